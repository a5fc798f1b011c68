// Finding: a case the oracles judged to be a bug, with what shows it.
//
// Case + verdict + evidence + signature + environment. The signature is
// what makes two findings "the same bug" for deduplication: the op
// overload, the variant, the verdict, the dtypes and devices of the
// tensors, whether arguments share memory and whether any is nested
// (a nested kernel is not the dense one). FindingSignature returns it
// as text; SignatureHash gives the stable 64-bit FNV-1a hash that names the
// finding's directory (stable across runs and machines, unlike absl::Hash).
//
//   Finding f = MakeFinding(c, outcome);
//   f.signature  // "aten::masked_select|out|mismatch|f32,b8|cpu"

#ifndef DPFUZZ_CRASHES_FINDINGS_FINDING_H_
#define DPFUZZ_CRASHES_FINDINGS_FINDING_H_

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "generators/case.h"
#include "oracles/run_case.h"

namespace dpfuzz {

// Which argument's layout a finding needs, and which feature of that
// layout (found by isolated runs, fuzz/blame.h). Empty when not blamed.
struct Blame {
  // The argument whose layout is needed: "self", "out", "grad_output";
  // "self,out" when the bug needs two arguments sharing memory.
  std::string culprit;
  // What of its layout is needed: a LayoutFeatureName ("permuted",
  // "gapped", "offset", "zero_stride", "overlapping", "channels_last",
  // "odd_unit_stride", ...), "aliasing" (sharing memory with another
  // argument) or "dtype" (no layout needed: the dtype alone).
  std::string feature;

  friend bool operator==(const Blame& a, const Blame& b) {
    return a.culprit == b.culprit && a.feature == b.feature;
  }
};

// Why a finding whose verdict is a bug is not one: counted, stored, listed
// apart in the report, never a bug.
enum class Dismissal : uint8_t {
  kNone,
  kFlaky,  // Did not show again when re-run in a fresh worker.
  // Shows only while a written tensor shares memory with an input
  // (Case::aliases): the same case without the sharing agrees. PyTorch
  // does not define such results (Note [Overlap findings] in
  // fuzz/triage.cc).
  kOverlap,
};

// "" for kNone, "flaky", "overlap".
absl::string_view DismissalName(Dismissal d);

struct Finding {
  Case c;
  CaseOutcome outcome;
  std::string signature;
  Blame blame;
  Dismissal dismissal = Dismissal::kNone;
  // A death's (crash, timeout, oom): false when its case, re-run alone in a
  // fresh worker, did not die again (crashes/isolation/supervisor.cc); a
  // timeout so is load, not a hang (fuzz/triage.cc). Not stored in
  // finding.json.
  bool recurred_alone = true;
};

std::string FindingSignature(const Case& c, Verdict verdict);

uint64_t SignatureHash(const std::string& signature);

Finding MakeFinding(const Case& c, const CaseOutcome& outcome);

// The version of the LibTorch dpfuzz was built against: "1.13.0".
std::string LibTorchVersion();

// dpfuzz's own version.
std::string DpfuzzVersion();

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_FINDINGS_FINDING_H_
