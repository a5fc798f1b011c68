#include "oracles/nested_case.h"

#include <ATen/core/grad_mode.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "oracles/backward.h"
#include "oracles/call_phase.h"
#include "oracles/case_tensors.h"
#include "oracles/compare.h"
#include "oracles/device_sync.h"
#include "oracles/invoke.h"
#include "oracles/judgement.h"
#include "oracles/mechanism.h"
#include "oracles/output_promises.h"

namespace dpfuzz {
namespace {

// The components of a result, or the result itself when it is dense.
std::vector<at::Tensor> Parts(const at::Tensor& t) {
  if (t.defined() && t.is_nested()) return t.unbind();
  return {t};
}

// Compares two results, a nested one component by component; without
// `values` (an op whose results may differ between runs) only the
// components' sizes and dtypes.
std::optional<CaseOutcome> CompareResult(const at::Tensor& expected,
                                         const at::Tensor& actual,
                                         const std::string& where,
                                         Comparison comparison,
                                         bool values = true) {
  if (expected.defined() != actual.defined() ||
      (expected.defined() && expected.is_nested() != actual.is_nested())) {
    return MakeFinding(
        Verdict::kMismatch,
        Described(where, absl::StrCat("one result is ",
                                      expected.defined() && expected.is_nested()
                                          ? "nested"
                                          : "dense",
                                      " and the other is not")));
  }
  if (!expected.defined()) return std::nullopt;
  const std::vector<at::Tensor> e = Parts(expected), a = Parts(actual);
  if (e.size() != a.size()) {
    return MakeFinding(
        Verdict::kMismatch,
        Described(where, absl::StrCat("nested result has ", a.size(),
                                      " components where ", e.size(),
                                      " are expected")));
  }
  for (size_t i = 0; i < e.size(); ++i) {
    const std::string part =
        expected.is_nested() ? absl::StrCat(where, " component ", i) : where;
    if (!values) {
      if (e[i].sizes() == a[i].sizes() &&
          e[i].scalar_type() == a[i].scalar_type()) {
        continue;
      }
      return MakeFinding(
          Verdict::kMismatch,
          Described(part, absl::StrCat("expected ", c10::str(e[i].sizes()), " ",
                                       c10::toString(e[i].scalar_type()),
                                       ", got ", c10::str(a[i].sizes()), " ",
                                       c10::toString(a[i].scalar_type()))));
    }
    std::optional<Difference> d = CompareValues(e[i], a[i], comparison);
    if (!d.has_value()) continue;
    return FromDifference(d->verdict, part, *d);
  }
  return std::nullopt;
}

// The results of two calls compared as above, output by output.
std::optional<CaseOutcome> CompareResults(const CallResult& expected,
                                          const CallResult& actual,
                                          Comparison comparison, bool values) {
  if (expected.outputs.size() != actual.outputs.size()) {
    return OutputCountMismatch(expected.outputs.size(), actual.outputs.size());
  }
  for (size_t i = 0; i < expected.outputs.size(); ++i) {
    if (std::optional<CaseOutcome> diff =
            CompareResult(expected.outputs[i], actual.outputs[i],
                          absl::StrCat("output ", i), comparison, values)) {
      return diff;
    }
  }
  return std::nullopt;
}

// The baseline's arguments with every nested one replaced by its
// component `i` as a dense batch of one ([1, *sizes]), or nullopt when a
// nested argument has no component `i`.
std::optional<NamedTensors> ComponentArgs(const NamedTensors& baseline,
                                          size_t i) {
  NamedTensors out;
  for (const auto& [name, tensors] : baseline) {
    for (const at::Tensor& t : tensors) {
      if (!t.defined() || !t.is_nested()) {
        out[name].push_back(t);
        continue;
      }
      const std::vector<at::Tensor> components = t.unbind();
      if (i >= components.size()) return std::nullopt;
      out[name].push_back(components[i].unsqueeze(0));
    }
  }
  return out;
}

// Note [Unbind reference]
// A nested op means "the op on each component": PyTorch's own nested tests
// check it so. The contiguous nested baseline's result, component i, must
// equal the op on component i alone, as a dense batch of one. Only for
// specs that say so (NestedReference::kPerComponent): to_padded_tensor's
// result is not per component (NestedReference::kPadded). A reference call
// that the dense op rejects proves nothing and is skipped.
absl::StatusOr<std::optional<CaseOutcome>> CheckUnbindReference(
    const c10::OperatorHandle& op, const OpSpec& spec, const Case& c,
    const CaseTensors& baseline, const CallResult& b) {
  for (size_t o = 0; o < b.outputs.size(); ++o) {
    const at::Tensor& result = b.outputs[o];
    if (!result.defined() || !result.is_nested()) continue;
    const std::vector<at::Tensor> components = result.unbind();
    for (size_t i = 0; i < components.size(); ++i) {
      std::optional<NamedTensors> args = ComponentArgs(baseline.args, i);
      if (!args.has_value()) break;
      DPFUZZ_ASSIGN_OR_RETURN(CallResult r, Invoke(op, c, *args));
      if (r.outcome != CallOutcome::kOk || o >= r.outputs.size()) continue;
      const at::Tensor& dense = r.outputs[o];
      if (!dense.defined() || dense.dim() == 0 || dense.size(0) != 1) continue;
      std::optional<Difference> d =
          CompareValues(dense.select(0, 0), components[i], spec.comparison);
      if (!d.has_value()) continue;
      CaseOutcome finding = FromDifference(
          d->verdict, absl::StrCat("output ", o, " component ", i), *d);
      finding.evidence.detail = absl::StrCat(
          "the contiguous nested baseline differs from the op on that "
          "component alone (Note [Unbind reference]): ",
          finding.evidence.detail);
      return std::optional<CaseOutcome>(finding);
    }
  }
  return std::optional<CaseOutcome>();
}

// The `padding` argument of the case (0 when left out).
double PaddingOf(const Case& c) {
  const Argument* padding = FindArgument(c, "padding");
  const auto* value =
      padding ? std::get_if<FloatArg>(&padding->value) : nullptr;
  return value != nullptr ? value->value : 0.0;
}

// NestedReference::kPadded: the dense result must be `padding` everywhere
// but the corner of row i, which holds component i of `self` (the round
// trip to a padded tensor). The expected tensor is built with ATen's
// narrow and copy_ on dense contiguous tensors only.
std::optional<CaseOutcome> CheckPaddedReference(const Case& c,
                                                const CaseTensors& baseline,
                                                const CallResult& b,
                                                Comparison comparison) {
  const auto self = baseline.args.find("self");
  if (b.outputs.empty() || self == baseline.args.end() ||
      self->second.size() != 1 || !self->second.front().is_nested()) {
    return std::nullopt;
  }
  const at::Tensor& padded = b.outputs.front();
  const std::vector<at::Tensor> components = self->second.front().unbind();
  if (!padded.defined() || padded.is_nested() ||
      padded.dim() != components.front().dim() + 1 ||
      padded.size(0) != static_cast<int64_t>(components.size())) {
    return MakeFinding(
        Verdict::kMismatch,
        Described("output 0",
                  "the padded result does not have one row per component and "
                  "the components' rank"));
  }
  at::Tensor expected = at::full(padded.sizes(), PaddingOf(c),
                                 padded.options().requires_grad(false));
  for (size_t i = 0; i < components.size(); ++i) {
    at::Tensor corner = expected.select(0, static_cast<int64_t>(i));
    for (int64_t d = 0; d < components[i].dim(); ++d) {
      if (components[i].size(d) > corner.size(d)) {
        return MakeFinding(
            Verdict::kMismatch,
            Described("output 0",
                      absl::StrCat(
                          "the padded result is smaller than component ", i)));
      }
      corner = corner.narrow(d, 0, components[i].size(d));
    }
    corner.copy_(components[i]);
  }
  std::optional<Difference> d = CompareValues(expected, padded, comparison);
  if (!d.has_value()) return std::nullopt;
  CaseOutcome finding = FromDifference(d->verdict, "output 0", *d);
  finding.evidence.detail = absl::StrCat(
      "the contiguous nested baseline's padded result is not its components "
      "padded: ",
      finding.evidence.detail);
  return finding;
}

// Whether each grad_output has its result's sizes, component by component.
// Python's autograd checks it ("Mismatch in shape"); the C++ engine does not
// for nested tensors, so a case that fails it is one users cannot make.
bool GradOutputsFit(const std::vector<at::Tensor>& outputs,
                    const std::vector<at::Tensor>& grad_outputs) {
  const std::vector<at::Tensor> differentiable = DifferentiableOutputs(outputs);
  if (differentiable.size() != grad_outputs.size()) return true;  // Refused.
  for (size_t i = 0; i < grad_outputs.size(); ++i) {
    const std::vector<at::Tensor> r = Parts(differentiable[i]);
    const std::vector<at::Tensor> g = Parts(grad_outputs[i]);
    if (r.size() != g.size()) return false;
    for (size_t k = 0; k < r.size(); ++k) {
      if (r[k].sizes() != g[k].sizes()) return false;
    }
  }
  return true;
}

// Gradients through the op: the contiguous nested baseline's, with
// contiguous nested grad_outputs, against the variant's, with the case's
// strided ones, component by component. Both sides refusing backward
// (an op without a nested derivative) is no finding, nor are grad_outputs
// that do not fit the results.
std::optional<CaseOutcome> CompareGradients(
    const c10::OperatorHandle& op, const Case& c, const CaseTensors& baseline,
    const CaseTensors& variant, const CallResult& b, const CallResult& v,
    Comparison comparison) {
  if (!GradOutputsFit(b.outputs, baseline.grad_outputs)) return std::nullopt;
  const Gradients g = RunBothBackward(baseline, variant, b, v);
  const CallResult& gb = g.baseline;
  const CallResult& gv = g.variant;
  if (std::optional<CaseOutcome> e = JudgeErrors(gb, gv, c, "backward")) {
    return e->verdict == Verdict::kBothRejected ? std::nullopt : e;
  }
  const std::vector<std::string> names = GradInputNames(variant.args);
  for (size_t i = 0; i < gb.outputs.size() && i < gv.outputs.size(); ++i) {
    std::optional<CaseOutcome> diff =
        CompareResult(gb.outputs[i], gv.outputs[i], names[i], comparison);
    if (!diff.has_value()) continue;
    diff->verdict = Verdict::kGradMismatch;
    // Gradient i on other tensors, for its mechanism.
    Simulation s = SimulationOf(
        c, variant, {names[i]}, {gb.outputs[i]}, {gv.outputs[i]}, comparison,
        [&op, &c, i](CaseTensors& t) -> std::optional<std::vector<at::Tensor>> {
          const at::AutoGradMode grad_mode(true);
          std::optional<std::vector<at::Tensor>> grads = GradientsOn(op, c, t);
          if (!grads.has_value() || i >= grads->size()) return std::nullopt;
          return std::vector<at::Tensor>{(*grads)[i]};
        });
    s.gradient = true;
    if (std::optional<Explanation> e = ExplainWrongValues(s)) {
      diff->evidence.mechanism = e->mechanism;
      diff->evidence.mechanism_argument = e->argument;
    }
    return diff;
  }
  return std::nullopt;
}

// NestedReference::kFromPadded: component i of the nested result must be
// the corner of row i of the case's first tensor argument (the padded
// one), of the component's sizes; built with ATen's narrow on the dense
// contiguous baseline. A result that is not is a baseline failure.
std::optional<CaseOutcome> CheckFromPaddedReference(const Case& c,
                                                    const CaseTensors& baseline,
                                                    const CallResult& b) {
  const TensorSpec* first = nullptr;
  std::string name;
  for (const Argument& arg : c.args) {
    if ((first = std::get_if<TensorSpec>(&arg.value))) {
      name = arg.name;
      break;
    }
  }
  const auto padded = baseline.args.find(name);
  if (first == nullptr || b.outputs.empty() || !b.outputs[0].defined() ||
      !b.outputs[0].is_nested() || padded == baseline.args.end()) {
    return std::nullopt;
  }
  const at::Tensor& rows = padded->second.front();
  const std::vector<at::Tensor> components = b.outputs[0].unbind();
  // Whatever the layouts, the contiguous baseline's own result is wrong
  // here: a baseline failure (the op does not check its arguments, or is
  // wrong on any layout), never a layout bug.
  const auto baseline_failure = [](std::string where, std::string detail) {
    CaseOutcome finding = MakeFinding(
        Verdict::kMismatch, Described(std::move(where), std::move(detail)));
    finding.kind = FindingKind::kBaselineFailure;
    return finding;
  };
  if (static_cast<int64_t>(components.size()) != rows.size(0)) {
    return baseline_failure(
        "output 0", absl::StrCat("the nested result has ", components.size(),
                                 " components where ", name, " has ",
                                 rows.size(0), " rows"));
  }
  for (size_t i = 0; i < components.size(); ++i) {
    at::Tensor corner = rows.select(0, static_cast<int64_t>(i));
    for (int64_t d = 0; d < components[i].dim(); ++d) {
      if (d >= corner.dim() || components[i].size(d) > corner.size(d)) {
        return baseline_failure(
            absl::StrCat("output 0 component ", i),
            absl::StrCat("component ", i, " is larger than row ", i, " of ",
                         name));
      }
      corner = corner.narrow(d, 0, components[i].size(d));
    }
    std::optional<Difference> d =
        CompareValues(corner, components[i], Comparison::kExact);
    if (!d.has_value()) continue;
    CaseOutcome finding =
        FromDifference(d->verdict, absl::StrCat("output 0 component ", i), *d);
    finding.evidence.detail = absl::StrCat(
        "the contiguous baseline's component is not the corner of row ", i,
        " of ", name, ": ", finding.evidence.detail);
    finding.kind = FindingKind::kBaselineFailure;
    return finding;
  }
  return std::nullopt;
}

// `diff`, a wrong-values finding, with the mechanism that reproduces it
// when one does (Note [Mechanisms by simulation]): a nested kernel that
// reads its buffer as if the components were contiguous.
CaseOutcome Explained(CaseOutcome diff, const c10::OperatorHandle& op,
                      const Case& c, const CaseTensors& variant,
                      const CallResult& b, const CallResult& v,
                      Comparison comparison) {
  if (diff.verdict != Verdict::kMismatch &&
      diff.verdict != Verdict::kNanIntroduced) {
    return diff;
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < b.outputs.size(); ++i) {
    names.push_back(absl::StrCat("output ", i));
  }
  const Simulation s = SimulationOf(
      c, variant, std::move(names), b.outputs, v.outputs, comparison,
      [&op,
       &c](CaseTensors& tensors) -> std::optional<std::vector<at::Tensor>> {
        absl::StatusOr<CallResult> r = Invoke(op, c, tensors.args);
        if (!r.ok() || r->outcome != CallOutcome::kOk) return std::nullopt;
        return r->outputs;
      });
  if (std::optional<Explanation> e = ExplainWrongValues(s)) {
    diff.evidence.mechanism = e->mechanism;
    diff.evidence.mechanism_argument = e->argument;
  }
  return diff;
}

}  // namespace

bool HasNestedTensor(const Case& c) {
  for (const TensorSpec* t : AllTensorSpecsOf(c)) {
    if (t->is_nested()) return true;
  }
  return false;
}

absl::StatusOr<CaseOutcome> RunNestedCase(const OpSpec& spec, const Case& c) {
  DPFUZZ_ASSIGN_OR_RETURN(c10::OperatorHandle op, OperatorFor(spec, c.variant));
  if (!WrittenArguments(op).empty()) {
    return absl::UnimplementedError(absl::StrCat(
        "case for ", QualifiedOpName(c), " ", VariantName(c.variant),
        ": nested cases are judged for functional calls"));
  }
  // Autograd records the calls only of a case with gradients to judge.
  std::optional<at::NoGradGuard> no_grad;
  if (c.grad_outputs.empty()) no_grad.emplace();
  PrepareDevice(CaseDevice(c));
  DPFUZZ_ASSIGN_OR_RETURN(CaseTensors variant, MaterializeVariant(c));
  const CaseTensors baseline = MaterializeBaseline(variant);
  DPFUZZ_ASSIGN_OR_RETURN(CallResult b, Invoke(op, c, baseline.args));
  absl::StatusOr<CallResult> variant_call = [&] {
    const CallSideScope side(CallSide::kVariant);
    return Invoke(op, c, variant.args);
  }();
  DPFUZZ_ASSIGN_OR_RETURN(CallResult v, std::move(variant_call));
  if (std::optional<CaseOutcome> errors = JudgeErrors(b, v, c, "forward")) {
    return *errors;
  }
  if (std::optional<StorageChange> change = CheckStorages(variant, {})) {
    return MakeFinding(change->verdict,
                       Described(change->where, change->detail));
  }
  if (std::optional<CaseOutcome> broken =
          BrokenOutputPromise(b, FindingKind::kBaselineFailure)) {
    return *broken;
  }
  if (std::optional<CaseOutcome> broken =
          BrokenOutputPromise(v, FindingKind::kLayoutBug)) {
    return *broken;
  }
  // Values are compared for deterministic ops only: those known so, and
  // those whose baseline gives the same results twice (kRuleCheckDeterminism).
  bool values = !(spec.rules & kRuleNondeterministic);
  if (values && (spec.rules & kRuleCheckDeterminism)) {
    DPFUZZ_ASSIGN_OR_RETURN(CallResult again,
                            Invoke(op, c, MaterializeBaseline(variant).args));
    if (std::optional<CaseOutcome> broken =
            BrokenOutputPromise(again, FindingKind::kBaselineFailure)) {
      return *broken;
    }
    values = again.outcome == CallOutcome::kOk &&
             !CompareResults(b, again, Comparison::kExact, true).has_value();
  }
  if (std::optional<CaseOutcome> diff =
          CompareResults(b, v, spec.comparison, values)) {
    if (!values) return *diff;
    return Explained(*std::move(diff), op, c, variant, b, v, spec.comparison);
  }
  if (!values) return CaseOutcome{};
  switch (spec.nested_reference) {
    case NestedReference::kPerComponent: {
      DPFUZZ_ASSIGN_OR_RETURN(std::optional<CaseOutcome> reference,
                              CheckUnbindReference(op, spec, c, baseline, b));
      if (reference.has_value()) return *reference;
      break;
    }
    case NestedReference::kPadded:
      if (std::optional<CaseOutcome> padded =
              CheckPaddedReference(c, baseline, b, spec.comparison)) {
        return *padded;
      }
      break;
    case NestedReference::kFromPadded:
      if (std::optional<CaseOutcome> from =
              CheckFromPaddedReference(c, baseline, b)) {
        return *from;
      }
      break;
    case NestedReference::kNone:
      break;
  }
  if (!c.grad_outputs.empty()) {
    if (std::optional<CaseOutcome> grads =
            CompareGradients(op, c, baseline, variant, b, v, spec.comparison)) {
      return *grads;
    }
  }
  return CaseOutcome{};
}

}  // namespace dpfuzz
