// Curated specs: indexing ops (index_select, gather, scatter, masked_*, ...).
//
// Indices are always in range. Ops that write through indices without
// accumulating (scatter, index_put with accumulate=False) get indices that
// never repeat a target: which of two writes to one element wins is
// undefined, so duplicates would be noise, never findings. The unique
// distribution is unique along the last dim only (see Distribution::
// kUniqueIndices), so those ops index along the last dim or with 1-d
// indices.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "generators/geometry.h"
#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

OpSpec Indexing(std::string op, std::string overload, std::string out,
                bool inplace, Comparison comparison, bool differentiable,
                std::function<std::vector<Argument>(Rng&, DType)> make) {
  return OpSpec{.op = std::move(op),
                .overload = std::move(overload),
                .out_overload = std::move(out),
                .has_inplace = inplace,
                .family = "indexing",
                .differentiable = differentiable,
                .comparison = comparison,
                .dtypes = AllDTypes(),
                .make_args = std::move(make)};
}

// Index sizes for gather/scatter into `self` along `dim`: at most self's
// size in every other dim; along `dim` up to `max_along` (and 0 where self
// is empty there, since no index is valid then).
Dims IndexSizesFor(const Dims& self, int64_t dim, int64_t max_along, Rng& rng) {
  Dims index = self;
  const auto rank = static_cast<int64_t>(self.size());
  for (int64_t d = 0; d < rank; ++d) {
    const bool along = d == WrapDim(dim, rank);
    const int64_t high = along ? max_along : self[d];
    index[d] = self[d] == 0 ? 0 : rng.Uniform(along ? 0 : 1, high);
  }
  return index;
}

// A shape at least as large as `sizes` in every dim.
Dims AtLeast(const Dims& sizes, Rng& rng) {
  Dims out = sizes;
  for (int64_t& size : out) size += rng.OneIn(3) ? 1 : 0;
  return out;
}

// 1-d indices into a dim of `size` (0-d one time in five, 1 element for a
// 0-d self, which takes exactly one index).
TensorSpec IndexVector(int64_t size, bool self_is_0d, Rng& rng) {
  if (self_is_0d) return Indices(rng.OneIn(2) ? Dims{} : Dims{1}, 1, rng);
  if (size > 0 && rng.OneIn(5)) return Indices({}, size, rng);
  return Indices({size == 0 ? 0 : rng.Uniform(0, 4)}, size, rng);
}

std::vector<Argument> IndexSelectArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 0, 4);
  const int64_t dim = RandomDim(rng, static_cast<int64_t>(self.size()));
  return {Arg("self", Values(self, dtype, rng)), Arg("dim", dim),
          Arg("index", IndexVector(SizeAt(self, dim), self.empty(), rng))};
}

std::vector<Argument> GatherArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 1, 4);
  const int64_t dim = RandomDim(rng, static_cast<int64_t>(self.size()));
  const Dims index = IndexSizesFor(self, dim, 4, rng);
  return {Arg("self", Values(self, dtype, rng)), Arg("dim", dim),
          Arg("index", Indices(index, SizeAt(self, dim), rng))};
}

// Scatter along the last dim with unique indices: no element is written
// twice.
std::vector<Argument> ScatterArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 1, 4);
  const auto rank = static_cast<int64_t>(self.size());
  const int64_t dim = rng.OneIn(2) ? -1 : rank - 1;
  const Dims index = IndexSizesFor(self, dim, self.back(), rng);
  return {Arg("self", Values(self, dtype, rng)), Arg("dim", dim),
          Arg("index", Indices(index, self.back(), rng, /*unique=*/true)),
          Arg("src", Values(AtLeast(index, rng), dtype, rng))};
}

// Accumulating scatter: any dim, repeats allowed.
std::vector<Argument> ScatterAddArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 1, 4);
  const int64_t dim = RandomDim(rng, static_cast<int64_t>(self.size()));
  const Dims index = IndexSizesFor(self, dim, 4, rng);
  return {Arg("self", Values(self, dtype, rng)), Arg("dim", dim),
          Arg("index", Indices(index, SizeAt(self, dim), rng)),
          Arg("src", Values(AtLeast(index, rng), dtype, rng))};
}

std::vector<Argument> IndexAddArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 1, 4);
  const auto rank = static_cast<int64_t>(self.size());
  const int64_t dim = RandomDim(rng, rank);
  const int64_t size = SizeAt(self, dim);
  const int64_t n = size == 0 ? 0 : rng.Uniform(0, 4);
  Dims source = self;
  source[WrapDim(dim, rank)] = n;
  std::vector<Argument> args = {Arg("self", Values(self, dtype, rng)),
                                Arg("dim", dim),
                                Arg("index", Indices({n}, size, rng)),
                                Arg("source", Values(source, dtype, rng))};
  if (rng.OneIn(3)) args.push_back(Arg("alpha", ScalarFor(dtype, rng)));
  return args;
}

// k 1-d index tensors for the first k dims; the first has no repeats
// unless accumulating, so no two index tuples are equal.
std::vector<Argument> IndexPutArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 1, 4);
  const auto rank = static_cast<int64_t>(self.size());
  const int64_t k = rng.Uniform(1, rank);
  const bool accumulate = rng.OneIn(3);
  const bool empty = std::any_of(self.begin(), self.begin() + k,
                                 [](int64_t s) { return s == 0; });
  const int64_t n =
      empty ? 0
            : rng.Uniform(0, accumulate ? 4 : std::min<int64_t>(self[0], 4));
  std::vector<TensorSpec> indices;
  for (int64_t d = 0; d < k; ++d) {
    indices.push_back(Indices({n}, self[d], rng, /*unique=*/!accumulate));
  }
  Dims result = {n};
  result.insert(result.end(), self.begin() + k, self.end());
  std::vector<Argument> args = {
      Arg("self", Values(self, dtype, rng)), Arg("indices", indices),
      Arg("values", Values(BroadcastPartner(result, rng), dtype, rng))};
  if (accumulate || rng.OneIn(2)) args.push_back(Arg("accumulate", accumulate));
  return args;
}

// The in-place form needs the mask to broadcast to self; now and then it
// is the other way round.
std::vector<Argument> MaskedFillArgs(Rng& rng, DType dtype) {
  Dims self = RandomShape(rng, 0, 4);
  Dims mask = BroadcastPartner(self, rng);
  if (rng.OneIn(4)) std::swap(self, mask);
  return {Arg("self", Values(self, dtype, rng)), Arg("mask", Mask(mask, rng)),
          Arg("value", ScalarFor(dtype, rng))};
}

// source has at least as many elements as the broadcast result, so enough
// for every true of the mask.
std::vector<Argument> MaskedScatterArgs(Rng& rng, DType dtype) {
  const Dims full = RandomShape(rng, 0, 4);
  Dims self = full;
  Dims mask = BroadcastPartner(full, rng);
  if (rng.OneIn(4)) std::swap(self, mask);
  return {Arg("self", Values(self, dtype, rng)), Arg("mask", Mask(mask, rng)),
          Arg("source", Values(AtLeast(full, rng), dtype, rng))};
}

// Indices into the flattened self, of any shape; none into an empty self.
std::vector<Argument> TakeArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 0, 4);
  const int64_t numel = ComputeNumel(self);
  Dims index = RandomShape(rng, 0, 3);
  if (numel == 0) index.push_back(0);
  return {Arg("self", Values(self, dtype, rng)),
          Arg("index", Indices(index, numel, rng))};
}

std::vector<Argument> NonzeroArgs(Rng& rng, DType dtype) {
  return {Arg("self", Values(RandomShape(rng, 0, 4), dtype, rng))};
}

}  // namespace

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
  ops.push_back(Indexing("aten::index_select", "", "out", false,
                         Comparison::kExact, true, &IndexSelectArgs));
  ops.push_back(Indexing("aten::gather", "", "out", false, Comparison::kExact,
                         true, &GatherArgs));
  ops.push_back(Indexing("aten::scatter", "src", "src_out", true,
                         Comparison::kExact, true, &ScatterArgs));
  ops.push_back(Indexing("aten::scatter_add", "", "out", true,
                         Comparison::kTolerance, true, &ScatterAddArgs));
  ops.push_back(Indexing("aten::index_add", "", "out", true,
                         Comparison::kTolerance, true, &IndexAddArgs));
  // accumulate=True sums repeated targets, hence the tolerance.
  ops.push_back(Indexing("aten::index_put", "", "out", true,
                         Comparison::kTolerance, true, &IndexPutArgs));
  ops.push_back(Indexing("aten::masked_fill", "Scalar", "Scalar_out", true,
                         Comparison::kExact, true, &MaskedFillArgs));
  ops.push_back(Indexing("aten::masked_scatter", "", "out", true,
                         Comparison::kExact, true, &MaskedScatterArgs));
  ops.push_back(Indexing("aten::take", "", "out", false, Comparison::kExact,
                         true, &TakeArgs));
  ops.push_back(Indexing("aten::nonzero", "", "out", false, Comparison::kExact,
                         false, &NonzeroArgs));
}

}  // namespace dpfuzz
