// Judgement helpers shared by the oracles of dense and nested cases.
//
// Once both sides of a case have been called, their errors are judged the
// same way whatever the layouts: an internal assert is a finding (of the
// baseline: a baseline failure, Note [Layout bugs and baseline failures]),
// a rejection by one side only is a rejection mismatch unless the rule
// table allows it, and a rejection by both is no case. Differences found
// by the comparison become findings with their evidence.
//
//   if (std::optional<CaseOutcome> e = JudgeErrors(b, v, c, "forward"))
//     return *e;

#ifndef DPFUZZ_ORACLES_JUDGEMENT_H_
#define DPFUZZ_ORACLES_JUDGEMENT_H_

#include <optional>
#include <string>

#include "generators/case.h"
#include "oracles/compare.h"
#include "oracles/invoke.h"
#include "oracles/run_case.h"

namespace dpfuzz {

CaseOutcome MakeFinding(Verdict verdict, Evidence evidence);

// A finding of `verdict` at `where` with the difference's evidence.
CaseOutcome FromDifference(Verdict verdict, const std::string& where,
                           const Difference& d);

// The finding when the variant returned another number of tensors than
// the baseline.
CaseOutcome OutputCountMismatch(size_t baseline, size_t variant);

// Judges the errors of two calls (`stage`: "forward", "backward");
// nothing when both returned normally.
std::optional<CaseOutcome> JudgeErrors(const CallResult& baseline,
                                       const CallResult& variant, const Case& c,
                                       const char* stage);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_JUDGEMENT_H_
