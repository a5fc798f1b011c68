#include "tests/planted/correct_specs.h"

#include <string>

#include "generators/contract_rules.h"
#include "generators/op_args.h"

namespace dpfuzz {
namespace {

OpSpec Correct(const std::string& name, std::vector<DType> dtypes,
               std::function<std::vector<Argument>(Rng&, DType)> make) {
  OpSpec spec;
  spec.op = "correct::" + name;
  spec.family = "correct";
  spec.comparison = Comparison::kTolerance;
  spec.dtypes = std::move(dtypes);
  spec.make_args = std::move(make);
  return spec;
}

const std::vector<DType>& Floating() {
  static const auto* dtypes = new std::vector<DType>{
      DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64};
  return *dtypes;
}

std::vector<Argument> WidenCumsumArgs(Rng& rng, DType dtype) {
  return {Arg("self", Values(RandomShape(rng, 0, 4), dtype, rng))};
}

// Rows of up to 8 terms of up to 4 * 2^12 = 16384 in magnitude: in half, a
// partial sum may pass 65504 in one order and not in the other.
std::vector<Argument> OrderSumArgs(Rng& rng, DType dtype) {
  Dims sizes = RandomShape(rng, 1, 3, 3);
  const int64_t dim = RandomDim(rng, static_cast<int64_t>(sizes.size()));
  sizes[WrapDim(dim, static_cast<int64_t>(sizes.size()))] = rng.Uniform(1, 8);
  return {Arg("self", FiniteValues(sizes, dtype, rng)), Arg("dim", dim),
          Arg("scale",
              FloatArg{static_cast<double>(int64_t{1} << rng.Uniform(0, 12))})};
}

// One tensor of any values (correct::noisy, correct::grad_mode_path,
// correct::unsteady_grad).
std::vector<Argument> NoisyArgs(Rng& rng, DType dtype) {
  return {Arg("self", Values(RandomShape(rng, 0, 4), dtype, rng))};
}

std::vector<Argument> RunningUpdateArgs(Rng& rng, DType dtype) {
  const Dims sizes = RandomShape(rng, 1, 3, 4, false);
  const Dims stat(sizes.begin() + 1, sizes.end());
  return {Arg("input", FiniteValues(sizes, dtype, rng)),
          Arg("running_mean", FiniteValues(stat, dtype, rng)),
          Arg("momentum", FloatArg{0.25})};
}

}  // namespace

const std::vector<OpSpec>& CorrectOps() {
  static const auto* ops = [] {
    auto* v = new std::vector<OpSpec>;
    OpSpec widen = Correct("widen_cumsum", Floating(), &WidenCumsumArgs);
    widen.differentiable = true;
    v->push_back(widen);
    v->push_back(Correct("order_sum", Floating(), &OrderSumArgs));
    OpSpec noisy = Correct("noisy", Floating(), &NoisyArgs);
    noisy.rules = kRuleCheckDeterminism;  // As a generic op's.
    v->push_back(noisy);
    v->push_back(Correct("running_update", Floating(), &RunningUpdateArgs));
    // Exact: its two results differ by one, far past any tolerance, and a
    // widened reference would only blur what the test asks.
    OpSpec grad_mode = Correct("grad_mode_path",
                               {DType::kFloat32, DType::kFloat64}, &NoisyArgs);
    grad_mode.comparison = Comparison::kExact;
    v->push_back(grad_mode);
    OpSpec unsteady = Correct("unsteady_grad",
                              {DType::kFloat32, DType::kFloat64}, &NoisyArgs);
    unsteady.differentiable = true;
    v->push_back(unsteady);
    return v;
  }();
  return *ops;
}

const OpSpec* CorrectOp(const std::string& name) {
  for (const OpSpec& spec : CorrectOps()) {
    if (spec.op == "correct::" + name) return &spec;
  }
  return nullptr;
}

const OpSpec& FlatRunningUpdateSpec() {
  static const auto* spec = new OpSpec(
      Correct("flat_running_update", {DType::kFloat32}, &RunningUpdateArgs));
  return *spec;
}

void AddCorrectOpRules() {
  static const bool added = [] {
    AddMutatedArgumentRules(
        {{"correct::running_update", "running_mean", "",
          "centres its input and updates the running mean in place"},
         {"correct::flat_running_update", "running_mean", "",
          "the control: updates the running mean in place, wrongly"}});
    return true;
  }();
  (void)added;
}

}  // namespace dpfuzz
