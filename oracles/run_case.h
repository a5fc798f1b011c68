// RunCase: one case through every oracle.
//
// The case's layouts (the variant) and a contiguous baseline holding the
// same logical values both run the case's schema (functional, out= or
// in-place); then, in order of severity, the oracles look for an internal
// assert, a rejection by one side only, a write outside a written view or
// a change to an input (gaps included), NaNs or values the baseline does
// not have, a broken layout promise, when the case has grad_outputs the
// same for backward, and, for a case on CUDA, whether the contiguous
// baseline gives the results on CUDA that the same call gives on the CPU
// (per-dtype tolerances, the rule table as for layouts; TF32 off and
// deterministic algorithms on, oracles/device_sync.h). The first one found
// is the verdict.
//
//   absl::StatusOr<CaseOutcome> o = RunCase(*FindCuratedOp("masked_select"),
//   c); if (o.ok() && IsFinding(o->verdict)) ...  o->evidence.detail ...
//
// An error status means the case does not fit the op (a malformed case
// file, a dpfuzz bug, a device that is not there), never that the op
// misbehaved.

#ifndef DPFUZZ_ORACLES_RUN_CASE_H_
#define DPFUZZ_ORACLES_RUN_CASE_H_

#include <ATen/core/dispatch/Dispatcher.h>

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "generators/op_spec.h"
#include "oracles/baseline_run.h"
#include "oracles/resource_oracles.h"
#include "oracles/verdict.h"

namespace dpfuzz {

struct Evidence {
  std::string where;     // "output 0", "out", "grad of self", "storage of mask"
  std::string detail;    // One line for people.
  std::string index;     // First differing element, "[1, 0]".
  std::string expected;  // Baseline's value there.
  std::string actual;    // Variant's value there.
  double max_error = 0;
  std::string error;  // The error message, for rejections and asserts.
  // The compared result's layout when it is not strided ("Sparse",
  // "SparseCsr"): its values were compared through to_dense().
  std::string layout;
  // The layout mistake whose simulation gives the wrong values exactly
  // (oracles/mechanism.h: "reads_as_contiguous"), and the argument it
  // reads or writes wrongly; "" when none does.
  std::string mechanism;
  std::string mechanism_argument;
  // Why wrong values may be the op's own instability rather than the
  // layout's mistake (oracles/conditioning.h), "" when they are not: the
  // finding is then low confidence.
  std::string ill_conditioned;
  // A resource oracle's measurement (oracles/resource_checks.h), by name:
  // "peak_bytes", "seconds_per_call", "ratio", ...; empty otherwise.
  std::map<std::string, double> measured;
};

// Evidence without a first differing element: where, what, and the error
// message if any.
Evidence Described(std::string where, std::string detail,
                   std::string error = "");

struct CaseOutcome {
  Verdict verdict = Verdict::kAgree;
  Evidence evidence;
  FindingKind kind = FindingKind::kLayoutBug;
};

absl::StatusOr<CaseOutcome> RunCase(const OpSpec& spec, const Case& c);

// The same, taking over the baseline's run when there is one
// (oracles/baseline_run.h: BuildCaseWithBaseline's, for this very case),
// and, when the value oracles agree, judging the opt-in resource oracles
// that are on (oracles/resource_checks.h).
absl::StatusOr<CaseOutcome> RunCase(
    const OpSpec& spec, const Case& c, std::optional<BaselineRun> baseline_run,
    const ResourceOracles& resources = ResourceOracles());

// The schema a case's variant calls: aten::add.Tensor, aten::add.out or
// aten::add_.Tensor for the add spec.
absl::StatusOr<c10::OperatorHandle> OperatorFor(const OpSpec& spec,
                                                Variant variant);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_RUN_CASE_H_
