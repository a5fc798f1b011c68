// Curated specs: reductions and scans (sum, mean, prod, amax, argmax, var,
// norm, logsumexp, cumsum, cumprod).
//
// Reductions over several dims take distinct dims in any order and sign;
// None (or []) reduces over everything. Max-like reductions reject an
// empty reduced dim, so their shapes never have a size-0 dim.

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

OpSpec Reduction(std::string op, std::string overload, std::string out,
                 Comparison comparison, std::vector<DType> dtypes,
                 bool differentiable,
                 std::function<std::vector<Argument>(Rng&, DType)> make) {
  return OpSpec{.op = std::move(op),
                .overload = std::move(overload),
                .out_overload = std::move(out),
                .family = "reduction",
                .differentiable = differentiable,
                .comparison = comparison,
                .dtypes = std::move(dtypes),
                .make_args = std::move(make)};
}

// How a reduction may say "every dim".
enum class AllDims : uint8_t {
  kNever,        // The dim list is never empty.
  kEmptyList,    // dim=[] (an int[1] without `?`).
  kEmptyOrNone,  // dim=[] or dim=None (int[1]?).
};

// self, a dim list and keepdim.
std::vector<Argument> DimListArgs(Rng& rng, DType dtype, bool allow_empty,
                                  AllDims all) {
  const Dims self = RandomShape(rng, 0, 4, 4, allow_empty);
  std::vector<Argument> args = {Arg("self", Values(self, dtype, rng))};
  const Dims dims = RandomDims(rng, static_cast<int64_t>(self.size()),
                               all != AllDims::kNever);
  if (dims.empty() && all == AllDims::kEmptyOrNone && rng.OneIn(2)) {
    args.push_back(Arg("dim", std::monostate{}));
  } else {
    args.push_back(Arg("dim", dims));
  }
  if (rng.OneIn(2)) args.push_back(Arg("keepdim", rng.OneIn(2)));
  return args;
}

// self and one dim.
std::vector<Argument> OneDimArgs(Rng& rng, DType dtype, bool allow_empty) {
  const Dims self = RandomShape(rng, 0, 4, 4, allow_empty);
  return {Arg("self", Values(self, dtype, rng)),
          Arg("dim", RandomDim(rng, static_cast<int64_t>(self.size())))};
}

std::vector<Argument> SumArgs(Rng& rng, DType dtype) {
  return DimListArgs(rng, dtype, true, AllDims::kEmptyOrNone);
}

std::vector<Argument> MeanArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args =
      DimListArgs(rng, dtype, true, AllDims::kEmptyOrNone);
  // Accumulating into a wider dtype is its own code path.
  if (IsFloating(dtype) && rng.OneIn(4)) {
    args.push_back(Arg("dtype", std::string("f64")));
  }
  return args;
}

std::vector<Argument> ProdArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = OneDimArgs(rng, dtype, true);
  if (rng.OneIn(2)) args.push_back(Arg("keepdim", rng.OneIn(2)));
  return args;
}

// Max-like: no empty reduced dim.
std::vector<Argument> AmaxArgs(Rng& rng, DType dtype) {
  return DimListArgs(rng, dtype, false, AllDims::kEmptyList);
}

std::vector<Argument> ArgmaxArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = OneDimArgs(rng, dtype, false);
  if (rng.OneIn(4)) args[1].value = std::monostate{};  // The flattened input.
  if (rng.OneIn(2)) args.push_back(Arg("keepdim", rng.OneIn(2)));
  return args;
}

// correction None is the default (1); more than the count gives inf/nan.
std::vector<Argument> VarArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args =
      DimListArgs(rng, dtype, true, AllDims::kEmptyOrNone);
  const int64_t correction = rng.Uniform(-1, 2);
  args.push_back(Arg("correction", correction < 0 ? ArgValue(std::monostate{})
                                                  : ArgValue(correction)));
  return args;
}

// Each p has its own kernel: 0, 1, 2, inf, -inf and the general one.
std::vector<Argument> NormArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = DimListArgs(rng, dtype, true, AllDims::kNever);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double p =
      rng.Pick(std::vector<double>{0, 1, 2, 2, 3, 0.5, kInf, -kInf});
  args.push_back(Arg(
      "p", rng.OneIn(6) ? ArgValue(std::monostate{}) : ArgValue(FloatArg{p})));
  return args;
}

std::vector<Argument> LogsumexpArgs(Rng& rng, DType dtype) {
  return DimListArgs(rng, dtype, true, AllDims::kNever);
}

std::vector<Argument> ScanArgs(Rng& rng, DType dtype) {
  return OneDimArgs(rng, dtype, true);
}

OpSpec Scan(std::string op) {
  return OpSpec{.op = std::move(op),
                .overload = "",
                .out_overload = "out",
                .has_inplace = true,
                .family = "reduction",
                .differentiable = true,
                .comparison = Comparison::kTolerance,
                // "cumsum_out_cpu" and "cumprod_out_cpu" lack 'Half'.
                .dtypes = Except(AllDTypes(), {DType::kFloat16}),
                .make_args = &ScanArgs};
}

}  // namespace

void AddReductionOps(std::vector<OpSpec>& ops) {
  ops.push_back(Reduction("aten::sum", "dim_IntList", "IntList_out",
                          Comparison::kTolerance, AllDTypes(), true, &SumArgs));
  // mean(): "Input dtype must be either a floating point or complex dtype".
  ops.push_back(Reduction("aten::mean", "dim", "out", Comparison::kTolerance,
                          FloatingAndComplexDTypes(), true, &MeanArgs));
  // "prod_cpu" is not implemented for 'Half' nor 'BFloat16'.
  ops.push_back(
      Reduction("aten::prod", "dim_int", "int_out", Comparison::kTolerance,
                Except(AllDTypes(), {DType::kFloat16, DType::kBFloat16}), true,
                &ProdArgs));
  ops.push_back(Reduction("aten::amax", "", "out", Comparison::kExact,
                          RealDTypes(), true, &AmaxArgs));
  // "argmax_cpu" is not implemented for 'Bool'.
  OpSpec argmax =
      Reduction("aten::argmax", "", "out", Comparison::kExact,
                Except(RealDTypes(), {DType::kBool}), false, &ArgmaxArgs);
  argmax.rules = kRuleTiedIndices;
  ops.push_back(std::move(argmax));
  ops.push_back(Reduction("aten::var", "correction", "correction_out",
                          Comparison::kTolerance, FloatingAndComplexDTypes(),
                          true, &VarArgs));
  ops.push_back(Reduction("aten::norm", "ScalarOpt_dim", "out",
                          Comparison::kTolerance, FloatingAndComplexDTypes(),
                          true, &NormArgs));
  // Integers promote to float; "exp_vml_cpu" is not implemented for 'Half'
  // and complex results are rejected.
  ops.push_back(Reduction("aten::logsumexp", "", "out", Comparison::kTolerance,
                          Except(RealDTypes(), {DType::kFloat16}), true,
                          &LogsumexpArgs));
  ops.push_back(Scan("aten::cumsum"));
  ops.push_back(Scan("aten::cumprod"));
}

}  // namespace dpfuzz
