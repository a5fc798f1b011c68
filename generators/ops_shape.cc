// Curated specs: shape ops (cat, stack, flip, roll, repeat, tril, triu,
// constant_pad_nd, unfold).
//
// They only move values, so results are compared exactly. unfold returns
// a view of its input; the engine compares its values like any other
// output.

#include <algorithm>

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

OpSpec Shape(std::string op, std::string out, bool inplace,
             std::function<std::vector<Argument>(Rng&, DType)> make) {
  return OpSpec{.op = std::move(op),
                .overload = "",
                .out_overload = std::move(out),
                .has_inplace = inplace,
                .family = "shape",
                .differentiable = true,
                .comparison = Comparison::kExact,
                .dtypes = AllDTypes(),
                .make_args = std::move(make)};
}

// 1-4 tensors equal in every dim but `dim`, which may differ (and be 0).
std::vector<Argument> CatArgs(Rng& rng, DType dtype) {
  const Dims base = RandomShape(rng, 1, 4);
  const auto rank = static_cast<int64_t>(base.size());
  const int64_t dim = RandomDim(rng, rank);
  std::vector<TensorSpec> tensors;
  for (int64_t i = rng.Uniform(1, 4); i > 0; --i) {
    Dims sizes = base;
    sizes[WrapDim(dim, rank)] = rng.Uniform(0, 3);
    tensors.push_back(Values(sizes, dtype, rng));
  }
  std::vector<Argument> args = {Arg("tensors", tensors)};
  if (dim != 0 || rng.OneIn(2)) args.push_back(Arg("dim", dim));
  return args;
}

// 1-4 tensors of one shape, stacked at a new dim in [-(rank+1), rank].
std::vector<Argument> StackArgs(Rng& rng, DType dtype) {
  const Dims sizes = RandomShape(rng, 0, 3);
  std::vector<TensorSpec> tensors;
  for (int64_t i = rng.Uniform(1, 4); i > 0; --i) {
    tensors.push_back(Values(sizes, dtype, rng));
  }
  return {Arg("tensors", tensors),
          Arg("dim", RandomDim(rng, static_cast<int64_t>(sizes.size()) + 1))};
}

// Distinct dims, or none at all (a plain copy).
std::vector<Argument> FlipArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 0, 4);
  return {Arg("self", Values(self, dtype, rng)),
          Arg("dims", RandomDims(rng, static_cast<int64_t>(self.size()),
                                 /*allow_none=*/true))};
}

std::vector<Argument> RollArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 1, 4);
  std::vector<Argument> args = {Arg("self", Values(self, dtype, rng))};
  // No dims: roll the flattened tensor.
  const Dims dims = rng.OneIn(4)
                        ? Dims{}
                        : RandomDims(rng, static_cast<int64_t>(self.size()));
  Dims shifts(std::max<size_t>(dims.size(), 1));
  for (int64_t& shift : shifts) shift = rng.Uniform(-5, 5);
  args.push_back(Arg("shifts", shifts));
  if (!dims.empty()) args.push_back(Arg("dims", dims));
  return args;
}

std::vector<Argument> RepeatArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 0, 3);
  Dims repeats(self.size() + rng.Uniform(0, 2));
  for (int64_t& r : repeats) r = rng.OneIn(8) ? 0 : rng.Uniform(1, 3);
  return {Arg("self", Values(self, dtype, rng)), Arg("repeats", repeats)};
}

std::vector<Argument> TriangleArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = {
      Arg("self", Values(RandomShape(rng, 2, 4), dtype, rng))};
  if (!rng.OneIn(4)) args.push_back(Arg("diagonal", rng.Uniform(-3, 3)));
  return args;
}

// Pads (or, negative, crops) up to every dim from the last. Every padded
// dim must keep at least one element: 1.13 rejects an output size of 0
// (and so any empty input) once some pad is positive.
std::vector<Argument> PadArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 1, 4, 4, /*allow_empty=*/false);
  const auto rank = static_cast<int64_t>(self.size());
  Dims pad;
  for (int64_t i = rng.Uniform(1, rank); i > 0; --i) {
    const int64_t size = self[rank - 1 - static_cast<int64_t>(pad.size()) / 2];
    int64_t before = rng.Uniform(-1, 2);
    int64_t after = rng.Uniform(-1, 2);
    if (size + before + after < 1) before = after = 0;
    pad.push_back(before);
    pad.push_back(after);
  }
  std::vector<Argument> args = {Arg("self", Values(self, dtype, rng)),
                                Arg("pad", pad)};
  if (!rng.OneIn(3)) args.push_back(Arg("value", ScalarFor(dtype, rng)));
  return args;
}

std::vector<Argument> UnfoldArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 0, 4);
  const auto rank = static_cast<int64_t>(self.size());
  const int64_t dim = RandomDim(rng, rank);
  return {Arg("self", Values(self, dtype, rng)), Arg("dimension", dim),
          Arg("size", rng.Uniform(0, SizeAt(self, dim))),
          Arg("step", rng.Uniform(1, 3))};
}

}  // namespace

void AddShapeOps(std::vector<OpSpec>& ops) {
  ops.push_back(Shape("aten::cat", "out", false, &CatArgs));
  ops.push_back(Shape("aten::stack", "out", false, &StackArgs));
  ops.push_back(Shape("aten::flip", "out", false, &FlipArgs));
  ops.push_back(Shape("aten::roll", "out", false, &RollArgs));
  ops.push_back(Shape("aten::repeat", "out", false, &RepeatArgs));
  ops.push_back(Shape("aten::tril", "out", true, &TriangleArgs));
  ops.push_back(Shape("aten::triu", "out", true, &TriangleArgs));
  ops.push_back(Shape("aten::constant_pad_nd", "out", false, &PadArgs));
  ops.push_back(Shape("aten::unfold", "", false, &UnfoldArgs));
}

}  // namespace dpfuzz
