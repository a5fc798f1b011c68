// Curated specs: ops on nested tensors (LibTorch's strided NestedTensorImpl).
//
// Each draws ragged component sizes that fit the op (a regular last dim for
// linear and layer_norm, matching inner dims for bmm, the same components
// for both operands of add) and contiguous nested specs holding exact
// values; the engine (oracles/case_builder.h) then gives the components
// generated layouts (transposed, permuted, in another order, and where the
// LibTorch version allows it, gapped and offset: Note [Nested buffers by
// version]). They are listed as "nested:<op>" beside the op's dense spec.
// Which of them a LibTorch version runs on nested inputs differs (1.13 has
// no nested layer_norm without weights, 2.x adds more): a draw both
// layouts reject is no case, as for any op. The constructors from padded
// tensors (_nested_from_padded, _nested_tensor_from_mask) take dense
// arguments and return nested results, the round trip's way back.

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "generators/geometry.h"
#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

// Component sizes of rank 1-3, ragged in every dim but `regular` ones.
std::vector<Dims> RaggedSizes(Rng& rng, std::vector<int64_t> regular = {}) {
  return GenerateComponentSizes(rng.Uniform(1, 3), regular, rng);
}

std::vector<Argument> UnaryArgs(Rng& rng, DType dtype) {
  return {Arg("self", NestedValues(RaggedSizes(rng), dtype, rng))};
}

std::vector<Argument> AddArgs(Rng& rng, DType dtype) {
  const std::vector<Dims> sizes = RaggedSizes(rng);
  std::vector<Argument> args = {Arg("self", NestedValues(sizes, dtype, rng)),
                                Arg("other", NestedValues(sizes, dtype, rng))};
  if (rng.OneIn(2)) {
    KeepScaledExact(std::get<TensorSpec>(args[1].value));
    args.push_back(Arg("alpha", int64_t{2}));
  }
  return args;
}

std::vector<Argument> MulScalarArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = UnaryArgs(rng, dtype);
  args.push_back(Arg("other", ScalarFor(dtype, rng)));
  return args;
}

// A dim of the components (1..rank of the nested tensor), sometimes as a
// negative index.
int64_t ComponentDim(Rng& rng, int64_t component_rank) {
  const int64_t dim = rng.Uniform(1, component_rank);
  return rng.OneIn(3) ? dim - component_rank - 1 : dim;
}

std::vector<Argument> SoftmaxArgs(Rng& rng, DType dtype) {
  const std::vector<Dims> sizes = RaggedSizes(rng);
  const int64_t rank = static_cast<int64_t>(sizes.front().size());
  return {Arg("self", NestedValues(sizes, dtype, rng)),
          Arg("dim", ComponentDim(rng, rank))};
}

std::vector<Argument> TransposeArgs(Rng& rng, DType dtype) {
  std::vector<Dims> sizes = GenerateComponentSizes(rng.Uniform(2, 3), {}, rng);
  const int64_t rank = static_cast<int64_t>(sizes.front().size());
  return {Arg("self", NestedValues(sizes, dtype, rng)),
          Arg("dim0", ComponentDim(rng, rank)),
          Arg("dim1", ComponentDim(rng, rank))};
}

// Matrices [n_i, k_i] and [k_i, m_i]: every size ragged, inner ones paired.
std::vector<Argument> BmmArgs(Rng& rng, DType dtype, const char* second) {
  const std::vector<Dims> left = GenerateComponentSizes(2, {}, rng);
  std::vector<Dims> right;
  for (const Dims& l : left) right.push_back({l[1], rng.Uniform(1, 4)});
  return {Arg("self", NestedValues(left, dtype, rng)),
          Arg(second, NestedValues(right, dtype, rng))};
}

std::vector<Argument> BmmMat2Args(Rng& rng, DType dtype) {
  return BmmArgs(rng, dtype, "mat2");
}

std::vector<Argument> MatmulArgs(Rng& rng, DType dtype) {
  return BmmArgs(rng, dtype, "other");
}

// input [*, k] with a regular last dim, a dense weight [m, k], a bias [m]
// half the time.
std::vector<Argument> LinearArgs(Rng& rng, DType dtype) {
  std::vector<Dims> sizes = GenerateComponentSizes(2, {1}, rng);
  const int64_t k = sizes.front().back(), m = rng.Uniform(1, 4);
  std::vector<Argument> args = {Arg("input", NestedValues(sizes, dtype, rng)),
                                Arg("weight", Values({m, k}, dtype, rng))};
  if (rng.OneIn(2)) args.push_back(Arg("bias", Values({m}, dtype, rng)));
  return args;
}

std::vector<Argument> LayerNormArgs(Rng& rng, DType dtype) {
  std::vector<Dims> sizes = GenerateComponentSizes(2, {1}, rng);
  const int64_t k = sizes.front().back();
  return {Arg("input", NestedValues(sizes, dtype, rng)),
          Arg("normalized_shape", Dims{k}),
          Arg("weight", FiniteValues({k}, dtype, rng)),
          Arg("bias", FiniteValues({k}, dtype, rng))};
}

std::vector<Argument> ToPaddedArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = UnaryArgs(rng, dtype);
  args.push_back(Arg("padding", FloatArg{rng.OneIn(2) ? 0.0 : -1.5}));
  return args;
}

std::vector<Argument> DropoutEvalArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = {
      Arg("input", NestedValues(RaggedSizes(rng), dtype, rng))};
  args.push_back(Arg("p", FloatArg{0.5}));
  args.push_back(Arg("train", false));
  return args;
}

// The largest size of each dim over `sizes`.
Dims MaxSizes(const std::vector<Dims>& sizes) {
  Dims max(sizes.front().size(), 0);
  for (const Dims& s : sizes) {
    for (size_t d = 0; d < s.size(); ++d) max[d] = std::max(max[d], s[d]);
  }
  return max;
}

// A padded batch [N, *max (+ 0-1 more)] and the sizes of the N components
// it holds in its corners (the nested size tensor, int64 [N, rank]).
std::vector<Argument> FromPaddedArgs(Rng& rng, DType dtype) {
  const std::vector<Dims> sizes = RaggedSizes(rng);
  Dims padded = {static_cast<int64_t>(sizes.size())};
  for (int64_t m : MaxSizes(sizes)) padded.push_back(m + rng.Uniform(0, 1));
  std::vector<double> rows;
  for (const Dims& s : sizes) rows.insert(rows.end(), s.begin(), s.end());
  return {Arg("padded", Values(padded, dtype, rng)),
          Arg("cpu_nested_shape_example",
              Explicit({padded[0], static_cast<int64_t>(sizes.front().size())},
                       rows, DType::kInt64))};
}

// t [N, L, D] and a mask [N, L] that keeps a prefix of each row.
std::vector<Argument> FromMaskArgs(Rng& rng, DType dtype) {
  const int64_t n = rng.Uniform(1, 4), l = rng.Uniform(1, 5);
  std::vector<double> mask;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t kept = rng.Uniform(1, l);
    for (int64_t j = 0; j < l; ++j) mask.push_back(j < kept ? 1 : 0);
  }
  return {Arg("t", Values({n, l, rng.Uniform(1, 4)}, dtype, rng)),
          Arg("mask", Explicit({n, l}, mask, DType::kBool))};
}

OpSpec Nested(std::string op, std::string overload, Comparison comparison,
              std::vector<DType> dtypes,
              std::function<std::vector<Argument>(Rng&, DType)> make_args,
              NestedReference reference = NestedReference::kPerComponent) {
  OpSpec spec;
  spec.op = std::move(op);
  spec.overload = std::move(overload);
  spec.family = "nested";
  spec.comparison = comparison;
  spec.dtypes = std::move(dtypes);
  spec.make_args = std::move(make_args);
  spec.nested = true;
  spec.nested_reference = reference;
  // Gradients through nested ops are judged where autograd gives them
  // (oracles/nested_case.h); an op without a nested derivative refuses
  // backward on both layouts, which is no finding.
  spec.differentiable = true;
  return spec;
}

}  // namespace

void AddNestedOps(std::vector<OpSpec>& ops) {
  const std::vector<DType> floats = {DType::kFloat32, DType::kFloat64};
  const std::vector<DType> numeric = {DType::kFloat32, DType::kFloat64,
                                      DType::kInt64};
  ops.push_back(
      Nested("aten::relu", "", Comparison::kExact, numeric, UnaryArgs));
  ops.push_back(
      Nested("aten::abs", "", Comparison::kExact, numeric, UnaryArgs));
  ops.push_back(
      Nested("aten::neg", "", Comparison::kExact, numeric, UnaryArgs));
  ops.push_back(
      Nested("aten::gelu", "", Comparison::kTolerance, floats, UnaryArgs));
  ops.push_back(
      Nested("aten::tanh", "", Comparison::kTolerance, floats, UnaryArgs));
  ops.push_back(
      Nested("aten::clone", "", Comparison::kExact, numeric, UnaryArgs));
  ops.push_back(
      Nested("aten::contiguous", "", Comparison::kExact, numeric, UnaryArgs));
  ops.push_back(
      Nested("aten::add", "Tensor", Comparison::kExact, numeric, AddArgs));
  ops.push_back(Nested("aten::mul", "Scalar", Comparison::kExact, numeric,
                       MulScalarArgs));
  ops.push_back(Nested("aten::softmax", "int", Comparison::kTolerance, floats,
                       SoftmaxArgs));
  ops.push_back(Nested("aten::transpose", "int", Comparison::kExact, numeric,
                       TransposeArgs));
  ops.push_back(
      Nested("aten::bmm", "", Comparison::kTolerance, floats, BmmMat2Args));
  ops.push_back(
      Nested("aten::matmul", "", Comparison::kTolerance, floats, MatmulArgs));
  ops.push_back(
      Nested("aten::linear", "", Comparison::kTolerance, floats, LinearArgs));
  ops.push_back(Nested("aten::layer_norm", "", Comparison::kTolerance, floats,
                       LayerNormArgs));
  ops.push_back(
      Nested("aten::dropout", "", Comparison::kExact, floats, DropoutEvalArgs));
  ops.push_back(Nested("aten::nested_to_padded_tensor", "", Comparison::kExact,
                       numeric, ToPaddedArgs, NestedReference::kPadded));
  ops.push_back(Nested("aten::_nested_from_padded", "", Comparison::kExact,
                       floats, FromPaddedArgs, NestedReference::kFromPadded));
  ops.push_back(Nested("aten::_nested_tensor_from_mask", "", Comparison::kExact,
                       floats, FromMaskArgs, NestedReference::kFromPadded));
}

}  // namespace dpfuzz
