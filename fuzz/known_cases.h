// Known bugs by example: `--known=DIR`, a directory of cases
// (known_findings/, or an earlier campaign's findings/).
//
// A known-issues file (crashes/findings/known_issues.h) names findings by
// signature pattern, which someone has to write. A directory of cases names
// them by example: each case under DIR whose op the campaign fuzzes runs once
// before the campaign, isolated as `dpfuzz replay` runs it (glibc's
// checking allocator on), and each one that shows a finding on this
// LibTorch becomes a known-issues entry: its signature with the dtypes
// and a death's crash key made globs, so the campaign's findings of the
// same op overload, variant and verdict, on the same devices, aliased or
// nested alike, are counted as known in any dtypes (and any crash key, as
// replay judges deaths), with the case's directory as the note. A case
// that shows nothing here (fixed in this release, or one that needs
// several runs) mutes nothing, and so does a case of another op: a
// directory never mutes more than what its cases show.
//
//   absl::StatusOr<KnownCases> k =
//       LearnKnownCases("known_findings", options.ops, options.isolation);
//   k->known.Match("aten::masked_select|functional|grad_mismatch|f64,b8|cpu")
//   // -> {pattern ...|grad_mismatch|*|cpu,
//   //     note known_findings/masked_select-backward-transposed}

#ifndef DPFUZZ_FUZZ_KNOWN_CASES_H_
#define DPFUZZ_FUZZ_KNOWN_CASES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "crashes/findings/known_issues.h"
#include "crashes/isolation/supervisor.h"
#include "generators/op_spec.h"

namespace dpfuzz {

struct KnownCases {
  KnownIssues known;  // One entry per selected case that shows a finding.
  int cases = 0;      // Case files under the directory.
  // Those whose op is one of the campaign's and that run on this build.
  int selected = 0;
  std::vector<std::string> quiet;  // Selected ones that showed no finding.
};

// An error for a directory without case files or with a malformed one,
// or when no worker can be started.
absl::StatusOr<KnownCases> LearnKnownCases(
    const std::string& dir, const std::vector<const OpSpec*>& ops,
    SupervisorOptions isolation);

// The pattern a finding's signature stands for: its dtypes and crash key
// made globs. "aten::tril.out|out|mismatch|f32,f32|cpu|aliased" ->
// "aten::tril.out|out|mismatch|*|cpu|aliased";
// "aten::tril.out|out|crash|f32,f32|cpu|aliased|SIGSEGV:..." ->
// "aten::tril.out|out|crash|*|cpu|aliased|*".
std::string KnownPattern(const std::string& signature);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_KNOWN_CASES_H_
