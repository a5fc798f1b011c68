// Verdict: what the oracles concluded about one case, richer than a bool.
//
// The names (VerdictName) are the ones written in finding files and counted
// in summaries; they are part of dpfuzz's interface. kAgree and
// kBothRejected are not findings; every other verdict is.
//
//   IsFinding(Verdict::kMismatch)       -> true
//   VerdictName(Verdict::kOutsideWrite) -> "outside_write"

#ifndef DPFUZZ_ORACLES_VERDICT_H_
#define DPFUZZ_ORACLES_VERDICT_H_

#include <cstdint>
#include <ostream>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dpfuzz {

enum class Verdict : uint8_t {
  kAgree,              // "agree": every layout gave the baseline's answer.
  kBothRejected,       // "both_rejected": every layout raised an error.
  kMismatch,           // "mismatch": values differ.
  kNanIntroduced,      // "nan_introduced": NaN where the baseline has none.
  kRejectionMismatch,  // "rejection_mismatch": one layout raised, one not.
  kInternalAssert,     // "internal_assert": INTERNAL ASSERT FAILED.
  kInputModified,      // "input_modified": an input or its gaps changed.
  kOutsideWrite,       // "outside_write": a write outside the written view.
  kGradMismatch,       // "grad_mismatch": gradients differ.
  kLayoutContract,     // "layout_contract": out= or memory-format promise
                       // broken.
  kDeviceMismatch,     // "device_mismatch": the contiguous baseline gives
                       // other results on CUDA than on the CPU.
  // Opt-in (oracles/resource_oracles.h): what a layout costs.
  kLeak,                 // "leak": allocated bytes grow call after call.
  kMemoryAmplification,  // "memory_amplification": peak bytes far past the
                         // baseline's plus contiguous copies'.
  kPerfCliff,            // "perf_cliff": time far past the baseline's plus
                         // contiguous copies'.
  // Judged by the supervisor (crashes/isolation/supervisor.h), not by RunCase:
  // the worker running the case died or was killed.
  kCrash,    // "crash": killed by a signal or aborted.
  kTimeout,  // "timeout": ran past the per-case time limit.
  kOom,      // "oom": went past the memory limit.
};

// Whom a finding's verdict is about. See Note [Layout bugs and baseline
// failures].
//
// Note [Layout bugs and baseline failures]
// dpfuzz hunts layout bugs: a layout that changes what an op does. When
// the contiguous baseline itself crashes, hangs, hits an internal assert
// or otherwise fails on the drawn arguments, the arguments (not a layout)
// break the op: that is a baseline failure, kept and reported apart, never
// counted as a layout bug nor in the exit status (--baseline_failures
// includes them).
enum class FindingKind : uint8_t {
  kLayoutBug,        // "layout_bug": a layout changes the op's behaviour.
  kBaselineFailure,  // "baseline_failure": the contiguous baseline fails.
};

absl::string_view FindingKindName(FindingKind kind);
absl::StatusOr<FindingKind> ParseFindingKind(absl::string_view name);

// Every verdict, in declaration order.
const std::vector<Verdict>& AllVerdicts();

absl::string_view VerdictName(Verdict verdict);

// "mismatch" -> Verdict::kMismatch; an error naming the accepted names.
absl::StatusOr<Verdict> ParseVerdict(absl::string_view name);

// False for kAgree and kBothRejected.
bool IsFinding(Verdict verdict);

// kLeak, kMemoryAmplification, kPerfCliff: the resource oracles' verdicts.
bool IsCostVerdict(Verdict verdict);

// kCrash, kTimeout, kOom: the worker died or was killed running the case.
bool IsDeath(Verdict verdict);

std::ostream& operator<<(std::ostream& os, Verdict verdict);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_VERDICT_H_
