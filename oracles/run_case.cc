#include "oracles/run_case.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "generators/aten_bridge.h"
#include "generators/contract_rules.h"
#include "generators/materialize.h"
#include "generators/op_registry.h"
#include "generators/schema_args.h"
#include "oracles/baseline_probes.h"
#include "oracles/call_phase.h"
#include "oracles/call_results.h"
#include "oracles/case_tensors.h"
#include "oracles/compare.h"
#include "oracles/conditioning.h"
#include "oracles/device_compare.h"
#include "oracles/device_sync.h"
#include "oracles/filled_allocations.h"
#include "oracles/gradient_check.h"
#include "oracles/invoke.h"
#include "oracles/judgement.h"
#include "oracles/mechanism.h"
#include "oracles/nested_case.h"
#include "oracles/output_promises.h"
#include "oracles/places_written.h"
#include "oracles/reference.h"
#include "oracles/resource_checks.h"
#include "oracles/rules.h"

namespace dpfuzz {
namespace {

// The tensor of a `self` argument (the rule table breaks ties with it), or
// undefined.
at::Tensor SelfOf(const CaseTensors& tensors) {
  const auto self = tensors.args.find("self");
  return self != tensors.args.end() && self->second.size() == 1
             ? self->second.front()
             : at::Tensor();
}

std::optional<CaseOutcome> CompareResults(const OpSpec& spec, const Case& c,
                                          const CallResults& b,
                                          const CallResults& v,
                                          std::optional<Reference>& reference,
                                          const at::Tensor& self) {
  if (b.tensors.size() != v.tensors.size()) {
    return OutputCountMismatch(b.tensors.size(), v.tensors.size());
  }
  for (size_t i = 0; i < b.tensors.size(); ++i) {
    if (OutputChosenByLayout(c.op, i)) continue;
    std::optional<Difference> d =
        CompareOutput(spec, c, self, b.tensors[i], v.tensors[i], at::Tensor());
    if (d.has_value() && spec.comparison == Comparison::kTolerance) {
      d = ValueThenMagnitude(
          [&](const at::Tensor& magnitude) {
            return CompareOutput(
                spec, c, self, b.tensors[i], v.tensors[i],
                Matching(reference->Results(), i, b.tensors[i]), magnitude,
                reference->Terms());
          },
          [&] {
            return Matching(reference->MagnitudeResults(), i, b.tensors[i]);
          });
    }
    if (d.has_value()) return FromDifference(d->verdict, v.names[i], *d);
  }
  return std::nullopt;
}

// Arguments the op mutates by design (generators/contract_rules.h) are
// results too: their values after the call must agree.
std::optional<CaseOutcome> CompareMutated(
    const OpSpec& spec, const Case& c, const std::vector<std::string>& mutated,
    const CaseTensors& baseline, const CaseTensors& variant,
    std::optional<Reference>& reference) {
  if (spec.rules & kRuleNondeterministic) return std::nullopt;
  for (size_t i = 0; i < mutated.size(); ++i) {
    const at::Tensor& b = baseline.args.at(mutated[i]).front();
    const at::Tensor& v = variant.args.at(mutated[i]).front();
    std::optional<Difference> d = CompareValues(b, v, spec.comparison);
    if (d.has_value() && spec.comparison == Comparison::kTolerance &&
        reference.has_value()) {
      d = ValueThenMagnitude(
          [&](const at::Tensor& magnitude) {
            return CompareValues(b, v, spec.comparison,
                                 Matching(reference->Mutated(), i, b),
                                 magnitude, reference->Terms());
          },
          [&] { return Matching(reference->MagnitudeMutated(), i, b); });
    }
    if (d.has_value()) return FromDifference(d->verdict, mutated[i], *d);
  }
  return std::nullopt;
}

// The arguments a run may change: those it writes and those it mutates by
// design.
std::set<std::string> MayChange(const std::vector<std::string>& written,
                                const std::vector<std::string>& mutated) {
  std::set<std::string> names(written.begin(), written.end());
  names.insert(mutated.begin(), mutated.end());
  return names;
}

// True when two layouts put every element at the same storage position:
// same sizes, offset and strides of the dims larger than one.
bool SamePlaces(const StridedLayout& a, const StridedLayout& b) {
  if (a.sizes != b.sizes || a.storage_offset != b.storage_offset) return false;
  for (size_t d = 0; d < a.sizes.size(); ++d) {
    if (a.sizes[d] > 1 && a.strides[d] != b.strides[d]) return false;
  }
  return true;
}

// A broken promise about written argument `name`, seen directly: the
// mechanism is what was seen ("replaces_out": new memory or new strides
// for a right-size out; "marks_out_conj": a conjugate or negative bit;
// "returns_other_tensor").
CaseOutcome BrokenOutPromise(const std::string& name, std::string detail,
                             const char* mechanism) {
  Evidence e = Described(name, std::move(detail));
  e.mechanism = mechanism;
  e.mechanism_argument = name;
  return MakeFinding(Verdict::kLayoutContract, std::move(e));
}

// out= must write into the tensors it was given, keeping their geometry
// when their sizes were already right (the baseline's out kept them), and
// their conjugate and negative bits (another tensor sharing the memory
// would read the values conjugated), and return them.
std::optional<CaseOutcome> CheckOutArguments(
    const Case& c, const CaseTensors& baseline, const CaseTensors& variant,
    const CallResult& call, const std::vector<std::string>& written,
    const std::vector<void*>& pointers_before) {
  size_t k = 0;
  for (const std::string& name : written) {
    const Argument* arg = FindArgument(c, name);
    const auto* spec = arg ? std::get_if<TensorSpec>(&arg->value) : nullptr;
    const at::Tensor& t = variant.args.at(name).front();
    if (t.is_conj() || t.is_neg()) {
      return BrokenOutPromise(
          name,
          absl::StrCat("out= tensor came back with its ",
                       t.is_conj() ? "conjugate" : "negative",
                       " bit set: its memory holds other values than it "
                       "reads as"),
          "marks_out_conj");
    }
    const bool right_size =
        spec != nullptr &&
        baseline.args.at(name).front().sizes().vec() == spec->layout.sizes;
    // Only elements have places: an empty out has none, and the strides of
    // size-1 dims place nothing.
    if (right_size && spec->numel() > 0 &&
        (!SamePlaces(LayoutOf(t), spec->layout) ||
         t.data_ptr() != pointers_before[k])) {
      return BrokenOutPromise(
          name,
          absl::StrCat(
              "out= tensor ", LayoutToString(spec->layout),
              " of the right size came back as ", LayoutToString(LayoutOf(t)),
              t.data_ptr() != pointers_before[k] ? " in new memory" : ""),
          "replaces_out");
    }
    if (k < call.outputs.size() && !call.outputs[k].is_same(t)) {
      return BrokenOutPromise(name,
                              "out= call returned a tensor other than its out",
                              "returns_other_tensor");
    }
    ++k;
  }
  return std::nullopt;
}

// Note [Failed factorizations]
// An op that reports through an `info` result whether its factorization
// succeeded (linalg_solve_ex, linalg_inv_ex, cholesky_ex: LAPACK's info)
// leaves its other results unspecified where it failed: a singular matrix
// factored as A or as its transpose (which a layout decides) rounds to
// another pivot and gives NaN in one order and infinity in the other. When
// the contiguous baseline's info reports a failure, the case is judged on
// shapes, dtypes and errors only, as a nondeterministic op's; a layout
// that makes a factorization fail which the baseline's did not is still
// found.
// Asked of every case: an op without an `info` result or argument (most)
// costs a look at its schema.
bool FactorizationFailed(const c10::OperatorHandle& op, const CallResult& b,
                         const NamedTensors& args,
                         const std::vector<std::string>& written) {
  const std::vector<c10::Argument>& returns = op.schema().returns();
  const auto named_info = [](const c10::Argument& a) {
    return a.name() == "info";
  };
  if (std::none_of(returns.begin(), returns.end(), named_info) &&
      std::find(written.begin(), written.end(), "info") == written.end()) {
    return false;
  }
  const CallResults results = ResultsOf(b, args, written);
  for (size_t i = 0; i < results.tensors.size(); ++i) {
    const bool info = results.names[i] == "info" ||
                      (i < returns.size() && returns[i].name() == "info");
    const at::Tensor& t = results.tensors[i];
    if (info && t.defined() && !t.is_nested() && t.layout() == at::kStrided &&
        t.numel() > 0 && !c10::isFloatingType(t.scalar_type()) &&
        t.ne(0).any().item<bool>()) {
      return true;
    }
  }
  return false;
}

}  // namespace

absl::StatusOr<c10::OperatorHandle> OperatorFor(const OpSpec& spec,
                                                Variant variant) {
  switch (variant) {
    case Variant::kOut:
      if (spec.out_overload.empty()) break;
      return FindOperator(spec.op, spec.out_overload);
    case Variant::kInplace:
      if (spec.inplace_only) return FindOperator(spec.op, spec.overload);
      if (!spec.has_inplace) break;
      return FindOperator(spec.op + "_", spec.overload);
    default:  // An in-place-only op's probe is the op itself.
      return FindOperator(spec.op, spec.overload);
  }
  return absl::InvalidArgumentError(
      absl::StrCat(spec.op, " has no ", VariantName(variant),
                   " variant in dpfuzz's registry"));
}

namespace {

// True when a second baseline run (on `again`, a fresh copy of the
// baseline) gives other results or another outcome than the first.
absl::StatusOr<bool> RunsDiffer(const c10::OperatorHandle& op, const Case& c,
                                const CallResult& first, CaseTensors& again,
                                const std::vector<std::string>& written,
                                const CallResults& first_results) {
  DPFUZZ_ASSIGN_OR_RETURN(CallResult second, Invoke(op, c, again.args));
  if (first.outcome != second.outcome) return true;
  const CallResults r = ResultsOf(second, again.args, written);
  if (r.tensors.size() != first_results.tensors.size()) return true;
  for (size_t i = 0; i < r.tensors.size(); ++i) {
    if (CompareValues(first_results.tensors[i], r.tensors[i],
                      Comparison::kExact)
            .has_value()) {
      return true;
    }
  }
  return false;
}

// Forward results of `op` on `tensors`, as ResultsOf gives them; nullopt
// when the call fails.
std::function<std::optional<std::vector<at::Tensor>>(CaseTensors&)>
ForwardResults(const c10::OperatorHandle& op, const Case& c,
               const std::vector<std::string>& written) {
  return [&op, &c, &written](
             CaseTensors& tensors) -> std::optional<std::vector<at::Tensor>> {
    absl::StatusOr<CallResult> r = Invoke(op, c, tensors.args);
    if (!r.ok() || r->outcome != CallOutcome::kOk) return std::nullopt;
    return ResultsOf(*r, tensors.args, written).tensors;
  };
}

// `outcome`, a wrong-values finding, with the mechanism that reproduces
// it when one does (Note [Mechanisms by simulation]), and the reason the
// results it is about are within the baseline's own instability when they
// are (Note [Ill-conditioned baselines]): on a result of few distinct
// values (a step, a comparison) a simulation may match by chance. Results
// of a nondeterministic op differ by themselves: none is simulated, and
// only the places its call wrote are asked (Note [Mechanisms by the places
// written]).
CaseOutcome Explained(CaseOutcome outcome, const c10::OperatorHandle& op,
                      const OpSpec& judged, const Case& c,
                      const CaseTensors& variant, const CallResults& b,
                      const CallResults& v,
                      const std::vector<std::string>& written) {
  const auto forward = ForwardResults(op, c, written);
  Simulation s = SimulationOf(c, variant, v.names, b.tensors, v.tensors,
                              judged.comparison, forward);
  s.written = written;
  if (judged.rules & kRuleNondeterministic) {
    if (std::optional<Explanation> e = ExplainByPlacesWritten(s)) {
      outcome.evidence.mechanism = e->mechanism;
      outcome.evidence.mechanism_argument = e->argument;
    }
    return outcome;
  }
  if (std::optional<Explanation> e = ExplainWrongValues(s)) {
    outcome.evidence.mechanism = e->mechanism;
    outcome.evidence.mechanism_argument = e->argument;
  }
  if (outcome.verdict != Verdict::kMismatch &&
      outcome.verdict != Verdict::kNanIntroduced) {
    return outcome;
  }
  outcome.evidence.ill_conditioned =
      Unstable(variant, written, b, v, outcome.evidence.where, b.tensors,
               /*gradient=*/false, forward);
  return outcome;
}

// Runs the variant and judges it against the baseline's call `b`: the
// outcome of a case once both sides ran.
absl::StatusOr<CaseOutcome> JudgeVariant(
    const c10::OperatorHandle& op, const OpSpec& judged, const Case& c,
    CaseTensors& variant, const CaseTensors& baseline, const CallResult& b,
    const std::optional<CaseTensors>& on_cpu,
    std::optional<Reference>& reference,
    std::optional<Reference>& cpu_reference,
    const std::vector<std::string>& written,
    const std::vector<void*>& pointers_before) {
  absl::StatusOr<CallResult> variant_call = [&] {
    const CallSideScope side(CallSide::kVariant);
    return Invoke(op, c, variant.args);
  }();
  DPFUZZ_ASSIGN_OR_RETURN(CallResult v, std::move(variant_call));
  if (std::optional<CaseOutcome> broken =
          BrokenOutputPromise(v, FindingKind::kLayoutBug)) {
    return *broken;
  }
  if (std::optional<CaseOutcome> errors = JudgeErrors(b, v, c, "forward")) {
    // Note [Non-finite baselines]: what the side that returned gave.
    if (errors->verdict == Verdict::kRejectionMismatch) {
      const bool baseline_returned = b.outcome == CallOutcome::kOk;
      const CallResults returned = baseline_returned
                                       ? ResultsOf(b, baseline.args, written)
                                       : ResultsOf(v, variant.args, written);
      if (HoldsNonFinite(returned.tensors, /*nan_only=*/true) &&
          InfinitiesWithoutNaN(MaterializeBaselineBefore(variant), written)) {
        errors->evidence.ill_conditioned = NonFiniteReason(false);
      }
    }
    return *errors;
  }
  const std::vector<std::string> mutated = MutatedByDesign(c);
  const CallResults baseline_results = ResultsOf(b, baseline.args, written);
  const CallResults variant_results = ResultsOf(v, variant.args, written);
  if (std::optional<StorageChange> change =
          CheckStorages(variant, MayChange(written, mutated))) {
    CaseOutcome outcome =
        MakeFinding(change->verdict, Described(change->where, change->detail));
    if (change->verdict != Verdict::kOutsideWrite) return outcome;
    return Explained(std::move(outcome), op, judged, c, variant,
                     baseline_results, variant_results, written);
  }
  if (std::optional<CaseOutcome> diff =
          CompareResults(judged, c, baseline_results, variant_results,
                         reference, SelfOf(baseline))) {
    // Results compared dense; a snippet compares them so (Evidence::layout).
    if (diff->evidence.layout.empty()) {
      diff->evidence.layout = v.densified.empty() ? b.densified : v.densified;
    }
    return Explained(std::move(*diff), op, judged, c, variant, baseline_results,
                     variant_results, written);
  }
  if (std::optional<CaseOutcome> diff =
          CompareMutated(judged, c, mutated, baseline, variant, reference)) {
    return *diff;
  }
  if (c.variant == Variant::kOut) {
    if (std::optional<CaseOutcome> out = CheckOutArguments(
            c, baseline, variant, v, written, pointers_before)) {
      return *out;
    }
  } else if (written.empty()) {
    if (std::optional<std::string> broken =
            CheckLayoutPromises(judged, c, op, variant.args, v.outputs)) {
      return MakeFinding(Verdict::kLayoutContract,
                         Described("output 0", *broken));
    }
    if (std::optional<DroppedFormat> dropped =
            CheckKeepsMemoryFormat(judged, c, variant.args, v.outputs)) {
      Evidence e = Described("output 0", std::move(dropped->detail));
      e.mechanism = "drops_memory_format";
      e.mechanism_argument = dropped->argument;
      return MakeFinding(Verdict::kLayoutContract, std::move(e));
    }
  }
  // Gradients of a nondeterministic op differ as its values do.
  if (!c.grad_outputs.empty() && written.empty() &&
      !(judged.rules & kRuleNondeterministic)) {
    if (std::optional<CaseOutcome> grad =
            CheckBackward(op, c, baseline, variant, b, v, *reference)) {
      return *grad;
    }
  }
  if (on_cpu.has_value()) {
    DPFUZZ_ASSIGN_OR_RETURN(
        std::optional<CaseOutcome> devices,
        CompareDevices(op, c, ResultsOf(b, baseline.args, written), *on_cpu,
                       written,
                       [&](const CallResults& cpu, const CallResults& device) {
                         return CompareResults(judged, c, cpu, device,
                                               cpu_reference, SelfOf(*on_cpu));
                       }));
    if (devices.has_value()) return *devices;
  }
  return CaseOutcome{};
}

}  // namespace

absl::StatusOr<CaseOutcome> RunCase(const OpSpec& given, const Case& c) {
  return RunCase(given, c, std::nullopt);
}

absl::StatusOr<CaseOutcome> RunCase(const OpSpec& given, const Case& c,
                                    std::optional<BaselineRun> baseline_run,
                                    const ResourceOracles& resources) {
  if (given.nested || HasNestedTensor(c)) {  // By its nested spec, if any.
    const OpSpec* nested = given.nested ? &given : FindOpFor(c);
    return RunNestedCase(nested != nullptr ? *nested : given, c);
  }
  DPFUZZ_ASSIGN_OR_RETURN(c10::OperatorHandle op,
                          OperatorFor(given, c.variant));
  const Device device = CaseDevice(c);
  PrepareDevice(device);
  // Taken over, the baseline was called already, and its tensors are as
  // made (oracles/baseline_run.h), as the reference below needs them.
  CaseTensors variant;
  CaseTensors baseline;
  std::optional<CallResult> baseline_call;
  if (baseline_run.has_value()) {
    variant = std::move(baseline_run->variant);
    baseline = std::move(baseline_run->baseline);
    baseline_call = std::move(baseline_run->call);
  } else {
    DPFUZZ_ASSIGN_OR_RETURN(variant, MaterializeVariant(c));
    baseline = MaterializeBaseline(variant);
  }
  // Note [The forward decides a backward's domain]: arguments no caller
  // passes are rejected before the variant is called.
  DPFUZZ_ASSIGN_OR_RETURN(const std::string outside, ForwardFault(c, variant));
  if (!outside.empty()) {
    return MakeFinding(Verdict::kBothRejected, Described("arguments", outside));
  }
  // A CUDA case's baseline also runs on the CPU (Verdict::kDeviceMismatch);
  // built now, before any call writes the variant's tensors.
  std::optional<CaseTensors> on_cpu;
  if (device == Device::kCuda) {
    on_cpu = MaterializeBaseline(variant, BaselineDevice::kCpu);
  }
  // Judged as `given`, or as a copy (made only then: this is the per-case
  // path) compared with tolerances when the case's values are not those an
  // exact comparison assumes (a seeded case, HoldsExactValues), or marked
  // nondeterministic when its two baseline runs differ.
  const OpSpec* judged = &given;
  std::optional<OpSpec> inexact;
  if (given.comparison == Comparison::kExact && !HoldsExactValues(c)) {
    inexact = given;
    inexact->comparison = Comparison::kTolerance;
    judged = &*inexact;
  }
  std::optional<OpSpec> nondeterministic;
  std::optional<CaseTensors> baseline_again;
  if ((given.rules & kRuleCheckDeterminism) &&
      !(given.rules & kRuleNondeterministic)) {
    baseline_again = MaterializeBaseline(variant);
  }
  const std::vector<std::string> written = WrittenArguments(op);
  std::vector<void*> pointers_before;
  for (const std::string& name : written) {
    const auto it = variant.args.find(name);
    if (it == variant.args.end() || it->second.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "case for ", QualifiedOpName(c), " ", VariantName(c.variant),
          " has no tensor argument \"", name, "\" for the schema to write"));
    }
    pointers_before.push_back(it->second.front().data_ptr());
  }

  // Widened copies are needed only for kTolerance ops.
  std::optional<Reference> reference;
  if (judged->comparison == Comparison::kTolerance || !c.grad_outputs.empty()) {
    reference.emplace(op, c, baseline, written);
  }
  std::optional<Reference> cpu_reference;
  if (on_cpu.has_value() && judged->comparison == Comparison::kTolerance) {
    cpu_reference.emplace(op, c, *on_cpu, written);
  }
  if (!baseline_call.has_value()) {
    DPFUZZ_ASSIGN_OR_RETURN(baseline_call, Invoke(op, c, baseline.args));
  }
  const CallResult& b = *baseline_call;
  // No output is read before it lies where its layout says
  // (oracles/output_promises.h).
  if (std::optional<CaseOutcome> broken =
          BrokenOutputPromise(b, FindingKind::kBaselineFailure)) {
    return *broken;
  }
  // Note [Failed factorizations].
  if (!(judged->rules & kRuleNondeterministic) &&
      FactorizationFailed(op, b, baseline.args, written)) {
    nondeterministic = *judged;
    nondeterministic->rules |= kRuleNondeterministic;
    judged = &*nondeterministic;
  }
  if (baseline_again.has_value() && !(judged->rules & kRuleNondeterministic)) {
    DPFUZZ_ASSIGN_OR_RETURN(bool differ,
                            RunsDiffer(op, c, b, *baseline_again, written,
                                       ResultsOf(b, baseline.args, written)));
    if (differ) {
      nondeterministic = *judged;
      nondeterministic->rules |= kRuleNondeterministic;
      judged = &*nondeterministic;
    }
  }
  DPFUZZ_ASSIGN_OR_RETURN(
      CaseOutcome outcome,
      JudgeVariant(op, *judged, c, variant, baseline, b, on_cpu, reference,
                   cpu_reference, written, pointers_before));
  // Note [Baselines that read outside], Note [Baselines that read
  // unwritten memory].
  if (IsFinding(outcome.verdict) && outcome.kind == FindingKind::kLayoutBug &&
      baseline_again.has_value() && !(judged->rules & kRuleNondeterministic)) {
    DPFUZZ_ASSIGN_OR_RETURN(
        std::string why,
        BaselineFault(op, c, variant, written, outcome.evidence.where, device));
    if (!why.empty()) outcome = BaselineFailure(std::move(outcome), why);
  }
  if (outcome.verdict == Verdict::kAgree && resources.any()) {
    DPFUZZ_ASSIGN_OR_RETURN(std::optional<CaseOutcome> cost,
                            CheckResources(resources, op, c));
    if (cost.has_value()) return *cost;
  }
  // Note [Findings that need NaN].
  if (IsFinding(outcome.verdict) && outcome.kind == FindingKind::kLayoutBug &&
      outcome.evidence.ill_conditioned.empty() &&
      outcome.evidence.mechanism.empty() &&
      !absl::StrContains(outcome.evidence.detail, kPoisonNote) &&
      !(judged->rules & kRuleNondeterministic) &&
      NeedsNaN(given, c, outcome.verdict)) {
    outcome.evidence.ill_conditioned =
        "the layouts differ only with the NaN the inputs were drawn with: "
        "the same case drawn without it agrees, and how a kernel treats NaN "
        "may differ by path (a vectorized loop and a scalar one)";
  }
  return outcome;
}

}  // namespace dpfuzz
