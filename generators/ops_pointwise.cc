// Curated specs: pointwise ops (TensorIterator kernels).
//
// Operands broadcast against each other. `self` usually has the full
// shape, so that the in-place variant (which cannot grow `self`) mostly
// applies; now and then the roles swap and only the functional and out=
// variants do.

#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

// Two shapes that broadcast together: the full shape first, except one
// time in four.
std::pair<Dims, Dims> BroadcastPair(Rng& rng) {
  Dims full = RandomShape(rng, 0, 4);
  Dims partner = BroadcastPartner(full, rng);
  if (rng.OneIn(4)) std::swap(full, partner);
  return {full, partner};
}

// A power-of-two alpha (or 1): alpha * x stays exact for the values
// KeepScaledExact leaves, so the fused multiply-add of vectorized loops and
// the unfused scalar loops agree.
ArgValue PowerOfTwoAlpha(DType dtype, Rng& rng) {
  if (dtype == DType::kBool) return true;
  const int64_t alpha = rng.Pick(std::vector<int64_t>{1, 2, -1, -2, 4});
  if (IsIntegral(dtype) || rng.OneIn(2)) return alpha;
  return FloatArg{rng.OneIn(2) ? 0.5 : -0.25};
}

// `self` alone, any rank up to 4.
std::vector<Argument> UnaryArgs(Rng& rng, DType dtype) {
  return {Arg("self", Values(RandomShape(rng, 0, 4), dtype, rng))};
}

std::vector<Argument> BinaryArgs(Rng& rng, DType dtype, const char* other) {
  auto [self, partner] = BroadcastPair(rng);
  return {Arg("self", Values(self, dtype, rng)),
          Arg(other, Values(partner, dtype, rng))};
}

std::vector<Argument> SelfOtherArgs(Rng& rng, DType dtype) {
  return BinaryArgs(rng, dtype, "other");
}

// Whether alpha is 1 or -1 (or a bool), which scales every value exactly.
bool IsUnitAlpha(const ArgValue& alpha) {
  const int64_t* integer = std::get_if<int64_t>(&alpha);
  return std::holds_alternative<bool>(alpha) ||
         (integer != nullptr && (*integer == 1 || *integer == -1));
}

std::vector<Argument> AddArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = SelfOtherArgs(rng, dtype);
  if (rng.OneIn(3)) return args;
  ArgValue alpha = PowerOfTwoAlpha(dtype, rng);
  if (!IsUnitAlpha(alpha)) {
    KeepScaledExact(std::get<TensorSpec>(args[1].value));
  }
  args.push_back(Arg("alpha", std::move(alpha)));
  return args;
}

std::vector<Argument> WhereArgs(Rng& rng, DType dtype) {
  auto [a, b] = BroadcastPair(rng);
  const Dims condition = rng.OneIn(2) ? BroadcastPartner(a, rng) : a;
  if (rng.OneIn(2)) std::swap(a, b);
  return {Arg("condition", Mask(condition, rng)),
          Arg("self", Values(a, dtype, rng)),
          Arg("other", Values(b, dtype, rng))};
}

// At least one bound; min > max is allowed (every element becomes max).
std::vector<Argument> ClampArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = UnaryArgs(rng, dtype);
  const int64_t bounds = rng.Uniform(0, 2);  // 0: min, 1: max, 2: both.
  if (bounds != 1) args.push_back(Arg("min", ScalarFor(dtype, rng)));
  if (bounds != 0) args.push_back(Arg("max", ScalarFor(dtype, rng)));
  return args;
}

std::vector<Argument> LerpArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = BinaryArgs(rng, dtype, "end");
  // Both branches of the kernel: weight below and from 0.5 on.
  args.push_back(
      Arg("weight", FloatArg{static_cast<double>(rng.Uniform(-4, 12)) / 8}));
  return args;
}

std::vector<Argument> AddcmulArgs(Rng& rng, DType dtype) {
  const Dims self = RandomShape(rng, 0, 4);
  std::vector<Argument> args = {
      Arg("self", Values(self, dtype, rng)),
      Arg("tensor1", Values(BroadcastPartner(self, rng), dtype, rng)),
      Arg("tensor2", Values(BroadcastPartner(self, rng), dtype, rng))};
  if (rng.OneIn(2)) args.push_back(Arg("value", ScalarFor(dtype, rng)));
  return args;
}

// Integers to negative integer powers are an error, so integral exponents
// are non-negative (and floating ones are, half the time).
std::vector<Argument> PowArgs(Rng& rng, DType dtype) {
  auto [self, exponent] = BroadcastPair(rng);
  return {Arg("self", Values(self, dtype, rng)),
          Arg("exponent", IsIntegral(dtype) || rng.OneIn(2)
                              ? NonNegative(exponent, dtype, 4, rng)
                              : Values(exponent, dtype, rng))};
}

OpSpec Pointwise(std::string op, std::string overload, std::string out,
                 bool inplace, Comparison comparison, std::vector<DType> dtypes,
                 bool differentiable,
                 std::function<std::vector<Argument>(Rng&, DType)> make) {
  return OpSpec{.op = std::move(op),
                .overload = std::move(overload),
                .out_overload = std::move(out),
                .has_inplace = inplace,
                .family = "pointwise",
                .differentiable = differentiable,
                .comparison = comparison,
                .rules = kRulePropagatesStrides,
                .dtypes = std::move(dtypes),
                .make_args = std::move(make)};
}

std::vector<DType> IntegralAndBoolDTypes() {
  std::vector<DType> out = IntegralDTypes();
  out.insert(out.begin(), DType::kBool);
  return out;
}

}  // namespace

void AddPointwiseOps(std::vector<OpSpec>& ops) {
  ops.push_back(Pointwise("aten::add", "Tensor", "out", true,
                          Comparison::kExact, AllDTypes(), true, &AddArgs));
  // Complex products round differently in vector and scalar loops (and
  // with FMA contraction), so mul is compared with tolerances; for exact
  // inputs and integers that is still exact.
  ops.push_back(Pointwise("aten::mul", "Tensor", "out", true,
                          Comparison::kTolerance, AllDTypes(), true,
                          &SelfOtherArgs));
  // True division: integer operands promote to the default float dtype.
  ops.push_back(Pointwise("aten::div", "Tensor", "out", true,
                          Comparison::kTolerance, AllDTypes(), true,
                          &SelfOtherArgs));
  ops.push_back(Pointwise("aten::where", "self", "self_out", false,
                          Comparison::kExact, AllDTypes(), true, &WhereArgs));
  // "clamp_max_scalar_cpu" not implemented for 'Half'; no bool or complex.
  ops.push_back(Pointwise("aten::clamp", "", "out", true, Comparison::kExact,
                          Except(RealDTypes(), {DType::kBool, DType::kFloat16}),
                          true, &ClampArgs));
  // "lerp_kernel_scalar" not implemented for 'Half'.
  ops.push_back(Pointwise(
      "aten::lerp", "Scalar", "Scalar_out", true, Comparison::kTolerance,
      Except(FloatingAndComplexDTypes(), {DType::kFloat16}), true, &LerpArgs));
  // "addcmul_cpu_out" not implemented for 'Half'.
  ops.push_back(Pointwise(
      "aten::addcmul", "", "out", true, Comparison::kTolerance,
      Except(NumericDTypes(), {DType::kFloat16}), true, &AddcmulArgs));
  // pow_ exists only as pow_.Tensor, not pow_.Tensor_Tensor.
  ops.push_back(Pointwise("aten::pow", "Tensor_Tensor", "Tensor_Tensor_out",
                          false, Comparison::kTolerance, NumericDTypes(), true,
                          &PowArgs));
  // abs rejects bool. Complex abs is left out on purpose: it is a hypot,
  // which vectorized and scalar loops round differently, so it is not an
  // exact op.
  ops.push_back(Pointwise("aten::abs", "", "out", true, Comparison::kExact,
                          Except(RealDTypes(), {DType::kBool}), true,
                          &UnaryArgs));
  ops.push_back(Pointwise("aten::neg", "", "out", true, Comparison::kExact,
                          NumericDTypes(), true, &UnaryArgs));
  // Integer and bool inputs promote to float. "sigmoid_cpu" and
  // "exp_vml_cpu" are not implemented for 'Half'.
  ops.push_back(
      Pointwise("aten::sigmoid", "", "out", true, Comparison::kTolerance,
                Except(AllDTypes(), {DType::kFloat16}), true, &UnaryArgs));
  ops.push_back(Pointwise("aten::exp", "", "out", true, Comparison::kTolerance,
                          Except(AllDTypes(), {DType::kFloat16}), true,
                          &UnaryArgs));
  // "maximum not implemented for complex tensors".
  ops.push_back(Pointwise("aten::maximum", "", "out", false, Comparison::kExact,
                          RealDTypes(), true, &SelfOtherArgs));
  ops.push_back(Pointwise("aten::bitwise_and", "Tensor", "Tensor_out", true,
                          Comparison::kExact, IntegralAndBoolDTypes(), false,
                          &SelfOtherArgs));
  // A comparison: bool results whatever the operands.
  ops.push_back(Pointwise("aten::eq", "Tensor", "Tensor_out", true,
                          Comparison::kExact, AllDTypes(), false,
                          &SelfOtherArgs));
}

}  // namespace dpfuzz
