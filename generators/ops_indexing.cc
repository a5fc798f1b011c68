// Curated specs: indexing ops (index_select, gather, scatter, masked_*, ...).

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {

void AddIndexingOps(std::vector<OpSpec>& ops) {
  ops.push_back(OpSpec{
      .op = "aten::masked_select",
      .overload = "",
      .out_overload = "out",
      .family = "indexing",
      .differentiable = true,
      .comparison = Comparison::kExact,
      .dtypes = AllDTypes(),
      .make_args =
          [](Rng& rng, DType dtype) {
            // self and mask broadcast against each other, either way round.
            Dims self = RandomShape(rng, 0, 4);
            Dims mask = BroadcastPartner(self, rng);
            if (rng.OneIn(3)) std::swap(self, mask);
            return std::vector<Argument>{Arg("self", Values(self, dtype, rng)),
                                         Arg("mask", Mask(mask, rng))};
          },
  });
}

}  // namespace dpfuzz
