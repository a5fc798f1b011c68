// Bug: one root cause, the unit people read; findings are its evidence.
//
// A findings directory holds one finding per signature, and a signature
// names the dtypes, so one kernel mistake seen in f32, f64 and i64 is three
// findings. GroupBugs folds them: a bug is one op overload, variant,
// culprit and feature (Finding::blame, empty when not blamed) and verdict
// family (VerdictFamily); it lists the dtypes seen and sums the hits. A
// simulated mechanism stands for the feature (BugKey), and a bug no
// mechanism explains joins the one explained bug of the same op, variant,
// culprit and family (Note [Explained siblings] in bug.cc). Only
// layout bugs count: baseline failures (FindingKind::kBaselineFailure) and
// dismissed findings (flaky, overlap) are never bugs (the report lists them
// apart).
//
// Bugs are ranked for a maintainer's time:
//  - confidence (ConfidenceOf, crashes/bugs/confidence.h): low for
//    behaviour PyTorch leaves undefined, states as a limitation or
//    documents as a precondition, high otherwise. Low confidence bugs are
//    kept and marked, ranked after every high confidence one (the report
//    lists them apart), never hidden;
//  - severity (SeverityOf), the most severe finding's: memory (crash, oom,
//    writes outside the view, modified inputs), then silent wrong values
//    (mismatch, NaN, gradients, CPU vs CUDA), then internal asserts and
//    hangs, then rejection mismatches, then layout contracts;
//  - hits, most first; then the id, so the order is stable.
//
//   absl::StatusOr<std::vector<StoredFinding>> f = ReadFindingsDir("findings");
//   for (const Bug& bug : GroupBugs(*f)) {
//     bug.id        // "tril-out-wrong_values-1a2b3c4d"
//     bug.key       // "aten::tril|out|out|gapped|wrong_values"
//     bug.severity  // Severity::kMemory (an outside_write finding)
//     bug.dtypes    // {"f32", "f64"}
//   }

#ifndef DPFUZZ_CRASHES_BUGS_BUG_H_
#define DPFUZZ_CRASHES_BUGS_BUG_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "crashes/bugs/bug_mechanism.h"
#include "crashes/bugs/confidence.h"
#include "crashes/bugs/layout_picture.h"
#include "crashes/findings/finding.h"

namespace dpfuzz {

// How much a bug costs its users, most severe first.
enum class Severity : uint8_t {
  kMemory,        // "memory": crash, oom, outside_write, input_modified.
  kWrongValues,   // "wrong_values": mismatch, nan_introduced,
                  // grad_mismatch, device_mismatch (silent wrong results).
  kAssertOrHang,  // "assert_or_hang": internal_assert, timeout.
  kRejection,     // "rejection": rejection_mismatch.
  kCost,          // "cost": leak, memory_amplification, perf_cliff (right
                  // results at a layout's cost in memory or time).
  kContract,      // "layout_contract": layout_contract.
};

absl::string_view SeverityName(Severity severity);

// "wrong_values" (mismatch, nan_introduced, outside_write, input_modified,
// device_mismatch), "gradient" (grad_mismatch), "rejection"
// (rejection_mismatch), "internal_assert", "crash" (crash, oom), "hang"
// (timeout), "layout_contract", "leak", "memory" (memory_amplification),
// "perf" (perf_cliff); the verdict's own name for agree and
// both_rejected, which are not findings.
std::string VerdictFamily(Verdict v);

// kContract for agree and both_rejected, which are not findings.
Severity SeverityOf(Verdict v);

// "aten::masked_select|out|self|permuted|wrong_values": op overload
// (QualifiedOpName), variant, culprit, feature, verdict family; a finding
// whose wrong values a simulated mechanism explains has the mechanism in
// the feature's place ("...|out|writes_as_contiguous|wrong_values"), and
// its argument as culprit when it is not blamed. Findings
// blamed on "dtype" alone are dtype-specific: their dtypes are appended
// ("...|dtype|internal_assert|u8"), so each dtype is a bug of its own.
std::string BugKey(const Finding& f);

// Short, stable and safe as a file name: op (without namespace), variant,
// family and 8 hex digits of SignatureHash(BugKey(f)):
// "masked_select-out-wrong_values-1a2b3c4d".
std::string BugId(const Finding& f);

// A finding's evidence in one line: its detail, else the first line of its
// error.
std::string EvidenceLine(const Evidence& e);

// A finding as read back from a findings directory.
struct StoredFinding {
  std::string dir;  // The finding's directory.
  Finding finding;  // With its case (case.json).
  int64_t hits = 1;
  // The campaign's seconds (resumed runs included) when it first saw this
  // finding: finding.json's "first_seen_seconds", which campaigns write;
  // none for findings stored otherwise.
  std::optional<double> first_seen_seconds;
  // Stored before triage reached it (findings_store.h's kUntriagedKey).
  bool untriaged = false;
  // Its case is a reduction's (original.json beside case.json): what its
  // case holds, the finding needs.
  bool reduced = false;
  // Where it generalizes (kGeneralityKey's "summary"); "" when not tried.
  std::string generality;
};

// Every finding directory (one holding finding.json) directly under `dir`,
// sorted by name; other entries (errors/, report files, op stats) are
// skipped. An error for a directory that cannot be listed, or a finding
// whose finding.json or case.json cannot be read; it names the file.
// The finding stored in `dir` (finding.json and case.json).
absl::StatusOr<StoredFinding> ReadStoredFinding(const std::string& dir);

absl::StatusOr<std::vector<StoredFinding>> ReadFindingsDir(
    const std::string& dir);

struct Bug {
  std::string id, key, op, variant, family, culprit, feature;
  Severity severity = Severity::kContract;
  Confidence confidence = Confidence::kHigh;
  std::string confidence_reason;  // "" when high.
  std::set<std::string> dtypes;   // "f32", ...
  int64_t hits = 0;               // Summed over its findings.
  // The earliest of its findings' first_seen_seconds: how long the campaign
  // took to find it (time to bug). None when no finding has one.
  std::optional<double> first_seen_seconds;
  // Not reduced or blamed yet: every finding of it is untriaged
  // (`dpfuzz triage` finishes it).
  bool untriaged = false;
  // Where it shows beyond its case ("all 9 dtypes tried but f16",
  // reducers/generalize.h): the first finding's that says; "" when none.
  std::string generality;
  // Finding directories, representative first: the least odd (Oddity in
  // crashes/bugs/evidence_order.h: no memory shared between arguments, no
  // NaN or infinities), then triaged ones, then most severe, plainest
  // dtypes (float32 first), smallest case (CaseSize), then by name.
  std::vector<std::string> findings;
  std::string issue;  // <representative>/issue.md when it exists, else "".
  Verdict verdict = Verdict::kMismatch;  // The representative's.
  std::string detail;                    // Its evidence, one line.
  BugMechanism mechanism;                // The representative's.
  // The representative's layout of the argument the mechanism (else the
  // blame) names; none when it names no strided tensor.
  std::optional<LayoutPicture> picture;
};

// Groups layout-bug findings (kind kLayoutBug, not dismissed) into bugs,
// ranked: confidence (high first), then severity, then hits (most first),
// then id. A bug has high confidence when any of its findings has.
std::vector<Bug> GroupBugs(const std::vector<StoredFinding>& findings);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_BUGS_BUG_H_
