#include "oracles/gradient_check.h"

#include <ATen/core/grad_mode.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "oracles/backward.h"
#include "oracles/compare.h"
#include "oracles/conditioning.h"
#include "oracles/grad_per_location.h"
#include "oracles/judgement.h"
#include "oracles/mechanism.h"

namespace dpfuzz {
namespace {

// Note [Unsteady baseline gradients]
// A gradient the contiguous baseline does not give twice alike holds
// memory the backward never wrote: arguments of a shape the kernel does
// not expect (a private op's `g` of the wrong rank, of which _weight_norm's
// backward fills only the first entries), whose gradients say nothing of a
// layout. Asked only of a gradient that differs, on a fresh baseline.
bool BaselineGradientUnsteady(
    const c10::OperatorHandle& op, const Case& c, const CaseTensors& variant,
    size_t i, const at::Tensor& first,
    const std::function<at::Tensor(const at::Tensor&)>& per_location) {
  CaseTensors again = MaterializeBaselineBefore(variant);
  const at::AutoGradMode grad_mode(true);
  std::optional<std::vector<at::Tensor>> grads = GradientsOn(op, c, again);
  if (!grads.has_value() || i >= grads->size()) return false;
  return CompareValues(first, per_location((*grads)[i]), Comparison::kTolerance)
      .has_value();
}

// A gradient finding's mechanism, when one reproduces it (Note [Mechanisms
// by simulation]): the backward run on the baseline with an input, or the
// gradient it was given, read as the variant's kernel may have read it.
void ExplainGradient(
    CaseOutcome& outcome, const Case& c, const CaseTensors& variant,
    const at::Tensor& expected, const at::Tensor& actual,
    const std::function<std::optional<std::vector<at::Tensor>>(CaseTensors&)>&
        gradient) {
  Simulation s = SimulationOf(c, variant, {outcome.evidence.where}, {expected},
                              {actual}, Comparison::kTolerance, gradient);
  s.gradient = true;
  if (std::optional<Explanation> e = ExplainWrongValues(s)) {
    outcome.evidence.mechanism = e->mechanism;
    outcome.evidence.mechanism_argument = e->argument;
  }
}

}  // namespace

std::optional<CaseOutcome> CheckBackward(
    const c10::OperatorHandle& op, const Case& c, const CaseTensors& baseline,
    const CaseTensors& variant, const CallResult& b, const CallResult& v,
    Reference& reference) {
  // A sparse or compressed result is read densified (Invoke): its gradient
  // would flow through that to_dense's backward, not only the op's, and a
  // difference there is to_dense's (which rejects a transposed gradient in
  // 1.13: a view where a reshape is needed), blamed on the wrong op, with a
  // repro that calls no to_dense. Such results get no gradient check.
  if (!b.densified.empty()) return std::nullopt;
  const Gradients g = RunBothBackward(baseline, variant, b, v);
  const CallResult& gb = g.baseline;
  const CallResult& gv = g.variant;
  if (std::optional<CaseOutcome> errors = JudgeErrors(gb, gv, c, "backward")) {
    if (errors->verdict == Verdict::kBothRejected) return std::nullopt;
    return errors;
  }
  const std::vector<at::Tensor> leaves = GradInputs(variant.args);
  const std::vector<std::string> names = GradInputNames(variant.args);
  for (size_t i = 0; i < gb.outputs.size() && i < gv.outputs.size(); ++i) {
    // Note [Gradients of overlapping leaves]: such a leaf's gradients (and
    // their float64 reference and magnitudes) are compared summed per
    // memory location, each sum of up to numel() elements' terms.
    const at::Tensor& leaf = leaves[i];
    const bool shared = SharesMemory(leaf);
    const auto per_location = [&](const at::Tensor& t) -> at::Tensor {
      if (!shared || !t.defined()) return t;
      return GradPerLocation(leaf, t).value_or(at::Tensor());
    };
    const at::Tensor expected = per_location(gb.outputs[i]);
    const at::Tensor actual = per_location(gv.outputs[i]);
    std::optional<Difference> d =
        CompareValues(expected, actual, Comparison::kTolerance);
    if (d.has_value()) {
      d = ValueThenMagnitude(
          [&](const at::Tensor& magnitude) {
            return CompareValues(
                expected, actual, Comparison::kTolerance,
                per_location(Matching(reference.Grads(), i, gb.outputs[i])),
                magnitude, reference.Terms() * (shared ? leaf.numel() : 1));
          },
          [&] {
            return per_location(
                Matching(reference.MagnitudeGrads(), i, gb.outputs[i]));
          });
    }
    if (d.has_value() &&
        BaselineGradientUnsteady(op, c, variant, i, per_location(gb.outputs[i]),
                                 per_location)) {
      return std::nullopt;
    }
    if (d.has_value()) {
      CaseOutcome outcome = FromDifference(
          Verdict::kGradMismatch,
          shared ? absl::StrCat(names[i], " summed per memory location")
                 : names[i],
          *d);
      // Gradient i on other tensors (a nudged baseline), as compared.
      const auto gradient =
          [&](CaseTensors& tensors) -> std::optional<std::vector<at::Tensor>> {
        const at::AutoGradMode grad_mode(true);
        std::optional<std::vector<at::Tensor>> grads =
            GradientsOn(op, c, tensors);
        if (!grads.has_value() || i >= grads->size()) return std::nullopt;
        return std::vector<at::Tensor>{per_location((*grads)[i])};
      };
      outcome.evidence.ill_conditioned =
          Unstable(variant, {}, {{expected}, {outcome.evidence.where}},
                   {{actual}, {outcome.evidence.where}}, outcome.evidence.where,
                   b.outputs, /*gradient=*/true, gradient);
      if (!shared) {
        ExplainGradient(outcome, c, variant, expected, actual, gradient);
      }
      return outcome;
    }
  }
  return std::nullopt;
}

}  // namespace dpfuzz
