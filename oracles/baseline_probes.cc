#include "oracles/baseline_probes.h"

#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "common/torch_compat.h"
#include "generators/materialize.h"
#include "generators/op_registry.h"
#include "oracles/call_results.h"
#include "oracles/compare.h"
#include "oracles/filled_allocations.h"
#include "oracles/invoke.h"
#include "oracles/run_case.h"

namespace dpfuzz {
namespace {

// A run of the baseline for a probe of its own behaviour: the call's
// outcome and its results.
struct ProbeRun {
  CallOutcome outcome = CallOutcome::kOk;
  CallResults results;
};

absl::StatusOr<ProbeRun> RunProbe(const c10::OperatorHandle& op, const Case& c,
                                  CaseTensors& tensors,
                                  const std::vector<std::string>& written,
                                  FreshMemory fresh) {
  const FilledAllocations filled(fresh);
  DPFUZZ_ASSIGN_OR_RETURN(CallResult r, Invoke(op, c, tensors.args));
  return ProbeRun{r.outcome, ResultsOf(r, tensors.args, written)};
}

// Whether two probe runs differ: in outcome, or in the results named
// `where` (all when empty).
bool ProbesDiffer(const ProbeRun& a, const ProbeRun& b,
                  const std::string& where) {
  if (a.outcome != b.outcome ||
      a.results.tensors.size() != b.results.tensors.size()) {
    return true;
  }
  for (size_t i = 0; i < a.results.tensors.size(); ++i) {
    if (!where.empty() && a.results.names[i] != where) continue;
    if (CompareValues(a.results.tensors[i], b.results.tensors[i],
                      Comparison::kExact)
            .has_value()) {
      return true;
    }
  }
  return false;
}

}  // namespace

// `outcome` as a baseline failure: `why` the baseline itself is wrong,
// then the layout variant's difference.
CaseOutcome BaselineFailure(CaseOutcome outcome, const std::string& why) {
  outcome.kind = FindingKind::kBaselineFailure;
  outcome.evidence.where = "baseline";
  outcome.evidence.detail = absl::StrCat(
      why, "; the layout variant's difference: ", outcome.evidence.detail);
  return outcome;
}

// The first line of the first "was resized since it had shape" warning
// among those captured.
std::optional<std::string> ResizeWarning(
    const compat::CaptureWarnings& warnings) {
  for (const std::string& w : warnings.messages()) {
    if (absl::StrContains(w, "was resized since it had shape")) {
      return w.substr(0, w.find('.'));
    }
  }
  return std::nullopt;
}

// Whether the op's functional overload, called on the baseline's values,
// resizes an output of its own (an out= path inside it): Note [Out= tensors
// the baseline resizes].
bool FunctionalResizes(const Case& c, const CaseTensors& variant) {
  const OpSpec* spec = FindOpFor(c);
  if (spec == nullptr) return false;
  const absl::StatusOr<c10::OperatorHandle> op =
      OperatorFor(*spec, Variant::kFunctional);
  if (!op.ok()) return false;
  Case functional = c;
  functional.variant = Variant::kFunctional;
  CaseTensors again = MaterializeBaselineBefore(variant);
  const compat::CaptureWarnings warnings;
  if (!Invoke(*op, functional, again.args).ok()) return false;
  return ResizeWarning(warnings).has_value();
}

// Why the contiguous baseline itself misbehaves on the case's arguments,
// "" when it does not: Note [Baselines that read outside] and Note
// [Baselines that read unwritten memory]. `where` names the result the
// finding is about.
absl::StatusOr<std::string> BaselineFault(
    const c10::OperatorHandle& op, const Case& c, const CaseTensors& variant,
    const std::vector<std::string>& written, const std::string& where,
    Device device) {
  const std::string unchecked =
      " (the arguments do not fit each other, unchecked)";
  // Note [Out= tensors the baseline resizes]: an out= kernel that resizes
  // a right-size out as scratch writes past its end by itself.
  bool resizes_out = false;
  if (c.variant == Variant::kOut) {
    CaseTensors again = MaterializeBaselineBefore(variant);
    const compat::CaptureWarnings warnings;
    DPFUZZ_RETURN_IF_ERROR(Invoke(op, c, again.args).status());
    const std::optional<std::string> resized = ResizeWarning(warnings);
    if (resized.has_value() && FunctionalResizes(c, variant)) {
      return absl::StrCat(
          "the contiguous baseline's out= call resizes an out= of the size "
          "the functional call returns (\"",
          *resized,
          "\"), and the functional call resizes a result of its own: the op "
          "disagrees with itself on the result's shape for these arguments");
    }
    resizes_out = resized.has_value();
  }
  std::vector<ProbeRun> tails;
  for (TailFill fill : {TailFill::kPoison, TailFill::kSentinel}) {
    CaseTensors filled = MaterializeTailFilledBaseline(variant, fill);
    DPFUZZ_ASSIGN_OR_RETURN(
        ProbeRun run, RunProbe(op, c, filled, written, FreshMemory::kZeros));
    std::vector<std::string> overrun = ArgumentsWithWrittenTails(filled, fill);
    if (resizes_out) {
      overrun.erase(std::remove_if(overrun.begin(), overrun.end(),
                                   [&](const std::string& name) {
                                     return std::count(written.begin(),
                                                       written.end(), name);
                                   }),
                    overrun.end());
    }
    if (!overrun.empty()) {
      return absl::StrCat("the contiguous baseline writes past the end of ",
                          absl::StrJoin(overrun, ", "), unchecked);
    }
    tails.push_back(std::move(run));
  }
  if (ProbesDiffer(tails[0], tails[1], "")) {
    return absl::StrCat(
        "the contiguous baseline gives other results when other values "
        "follow its arguments in memory: it reads past an argument's end",
        unchecked);
  }
  const std::vector<std::string>& names = tails[1].results.names;
  if (std::find(names.begin(), names.end(), where) == names.end()) return "";
  const std::string undefined =
      ": the op leaves part of it unwritten, so no layout's values there "
      "are defined";
  if (c.variant == Variant::kOut) {
    std::vector<ProbeRun> befores;
    for (int before : {0, 1}) {
      CaseTensors again = MaterializeBaselineBefore(variant);
      {
        const at::NoGradGuard no_grad;
        for (const std::string& name : written) {
          for (at::Tensor& t : again.args[name]) t.fill_(before);
        }
      }
      DPFUZZ_ASSIGN_OR_RETURN(
          ProbeRun run, RunProbe(op, c, again, written, FreshMemory::kZeros));
      befores.push_back(std::move(run));
    }
    if (ProbesDiffer(befores[0], befores[1], where)) {
      return absl::StrCat("the contiguous baseline's ", where,
                          " changes with what it held before the call",
                          undefined);
    }
  }
  if (device != Device::kCpu) return "";
  CaseTensors filled =
      MaterializeTailFilledBaseline(variant, TailFill::kSentinel);
  DPFUZZ_ASSIGN_OR_RETURN(ProbeRun junk,
                          RunProbe(op, c, filled, written, FreshMemory::kJunk));
  if (ProbesDiffer(tails[1], junk, where)) {
    return absl::StrCat(
        "the contiguous baseline's ", where,
        " changes with what fresh memory holds (an out= it resized, a "
        "workspace it reads before writing)",
        undefined);
  }
  return "";
}

absl::StatusOr<std::string> ForwardFault(const Case& c,
                                         const CaseTensors& variant) {
  constexpr absl::string_view kSuffix = "_backward";
  if (!absl::EndsWith(c.op, kSuffix)) return "";
  const std::string forward = c.op.substr(0, c.op.size() - kSuffix.size());
  absl::StatusOr<c10::OperatorHandle> op = FindOperator(forward, "");
  if (!op.ok()) return "";
  const CaseTensors before = MaterializeBaselineBefore(variant);
  // Invoke takes what the forward's schema names, by name, from the
  // backward's case: its tensors and scalars, never its variant.
  absl::StatusOr<CallResult> r = [&] {
    const at::NoGradGuard no_grad;
    return Invoke(*op, c, before.args);
  }();
  // An argument the forward needs that the case lacks: nothing to ask.
  if (!r.ok()) return "";
  const std::string no_caller =
      " (no caller of the backward passes them, unchecked)";
  if (r->outcome != CallOutcome::kOk) {
    return absl::StrCat("the forward op ", forward,
                        " rejects these arguments: ", r->error, no_caller);
  }
  if (r->outputs.empty() || !r->outputs.front().defined()) return "";
  for (const char* name : {"grad_output", "grad_out", "grad"}) {
    const auto it = before.args.find(name);
    if (it == before.args.end() || it->second.size() != 1) continue;
    const at::IntArrayRef sizes = it->second.front().sizes();
    const at::IntArrayRef result = r->outputs.front().sizes();
    if (sizes == result) return "";
    return absl::StrCat(name, " is [", absl::StrJoin(sizes, ", "),
                        "] where the forward op ", forward, " returns [",
                        absl::StrJoin(result, ", "), "]", no_caller);
  }
  return "";
}

bool NeedsNaN(const OpSpec& spec, const Case& c, Verdict verdict) {
  if (verdict != Verdict::kMismatch && verdict != Verdict::kNanIntroduced &&
      verdict != Verdict::kGradMismatch &&
      verdict != Verdict::kRejectionMismatch) {
    return false;
  }
  Case plain = c;
  bool nan = false;
  for (TensorSpec* t : AllTensorSpecsOf(plain)) {
    if (!IsFloating(t->dtype) || (t->values.specials & kSpecialNaN) == 0) {
      continue;
    }
    absl::StatusOr<MaterializedTensor> m = Materialize(*t);
    if (!m.ok()) continue;
    const at::Tensor logical =
        m->tensor.detach().cpu().reshape({-1}).to(at::kDouble).contiguous();
    std::vector<double> data(logical.data_ptr<double>(),
                             logical.data_ptr<double>() + logical.numel());
    bool replaced = false;
    for (double& v : data) {
      if (std::isnan(v)) {
        v = 0;
        replaced = true;
      }
    }
    if (!replaced) continue;
    t->values = ValueRecipe{.distribution = Distribution::kExplicit,
                            .data = std::move(data)};
    nan = true;
  }
  if (!nan) return false;
  absl::StatusOr<CaseOutcome> without = RunCase(spec, plain);
  return without.ok() && without->verdict == Verdict::kAgree;
}

}  // namespace dpfuzz
