// Confidence: whether a finding shows behaviour PyTorch defines.
//
// A finding is high confidence unless a rule says why a maintainer would
// close it: behaviour PyTorch calls undefined or deprecated (arguments
// sharing memory with a written output, out= or in-place on an expanded
// or overlapping tensor, repeated indices without accumulate), a
// limitation the op states ("saved_v must be contiguous", "only supported
// for contiguous inputs", unlike an internal view's "view size is not
// compatible") or a precondition its documentation states
// (generators/contract_rules.h's AssumedContiguous), arguments outside the
// op's domain (a rank only one path checks, a death with every argument
// contiguous), values whose order of arithmetic decides NaN, an
// ill-conditioned baseline (Evidence::ill_conditioned). The list, with
// reasons: docs/verdicts-and-rules.md. Low-confidence findings are kept
// and marked, never hidden.
//
//   const ConfidenceJudgement j = ConfidenceOf(finding);
//   if (j.confidence == Confidence::kLow) ... j.reason

#ifndef DPFUZZ_CRASHES_BUGS_CONFIDENCE_H_
#define DPFUZZ_CRASHES_BUGS_CONFIDENCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "crashes/findings/finding.h"

namespace dpfuzz {

// Whether the behaviour is one PyTorch defines.
enum class Confidence : uint8_t {
  kHigh,  // "high": defined behaviour, a real bug.
  kLow,   // "low": behaviour PyTorch calls undefined or deprecated.
};

absl::string_view ConfidenceName(Confidence confidence);

struct ConfidenceJudgement {
  Confidence confidence = Confidence::kHigh;
  std::string reason;  // Why it is low; "" when high.
};

// The arguments the case's call writes (out=, an in-place self): from the
// schema when dpfuzz knows the op; else the names ATen's out= and in-place
// schemas use (an op of a library this process has not loaded).
std::vector<std::string> WrittenArgumentsOf(const Case& c);

// Low when the case's arguments share memory with a written output
// (Case::aliases), or when a tensor the call writes (out=, in-place self;
// from the op's schema when dpfuzz knows the op, else "self" and "out")
// is expanded (zero_stride) or overlaps itself; low for a mismatch or
// gradient mismatch whose baseline value at the first difference is NaN
// or infinite while the case holds special values; and more (Note
// [Findings that need no layout], docs/verdicts-and-rules.md). `reduced`:
// the case was reduced, so what its values hold the finding needs (an
// unreduced case holds NaN and infinities by chance).
ConfidenceJudgement ConfidenceOf(const Finding& f, bool reduced = true);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_BUGS_CONFIDENCE_H_
