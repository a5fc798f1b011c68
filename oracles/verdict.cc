#include "oracles/verdict.h"

#include <array>
#include <string>
#include <utility>

#include "common/named_values.h"

namespace dpfuzz {
namespace {

constexpr NameTable<Verdict, 17> kNames = {{
    {Verdict::kAgree, "agree"},
    {Verdict::kBothRejected, "both_rejected"},
    {Verdict::kMismatch, "mismatch"},
    {Verdict::kNanIntroduced, "nan_introduced"},
    {Verdict::kRejectionMismatch, "rejection_mismatch"},
    {Verdict::kInternalAssert, "internal_assert"},
    {Verdict::kInputModified, "input_modified"},
    {Verdict::kOutsideWrite, "outside_write"},
    {Verdict::kGradMismatch, "grad_mismatch"},
    {Verdict::kLayoutContract, "layout_contract"},
    {Verdict::kDeviceMismatch, "device_mismatch"},
    {Verdict::kLeak, "leak"},
    {Verdict::kMemoryAmplification, "memory_amplification"},
    {Verdict::kPerfCliff, "perf_cliff"},
    {Verdict::kCrash, "crash"},
    {Verdict::kTimeout, "timeout"},
    {Verdict::kOom, "oom"},
}};

constexpr NameTable<FindingKind, 2> kKindNames = {{
    {FindingKind::kLayoutBug, "layout_bug"},
    {FindingKind::kBaselineFailure, "baseline_failure"},
}};

}  // namespace

absl::string_view FindingKindName(FindingKind kind) {
  return kKindNames[static_cast<size_t>(kind)].second;
}

absl::StatusOr<FindingKind> ParseFindingKind(absl::string_view name) {
  return ParseNamed(kKindNames, "finding kind", name);
}

const std::vector<Verdict>& AllVerdicts() {
  static const auto* all = [] {
    auto* v = new std::vector<Verdict>;
    for (const auto& [verdict, name] : kNames) v->push_back(verdict);
    return v;
  }();
  return *all;
}

absl::string_view VerdictName(Verdict verdict) {
  return kNames[static_cast<size_t>(verdict)].second;
}

absl::StatusOr<Verdict> ParseVerdict(absl::string_view name) {
  return ParseNamed(kNames, "verdict", name);
}

bool IsFinding(Verdict verdict) {
  return verdict != Verdict::kAgree && verdict != Verdict::kBothRejected;
}

bool IsCostVerdict(Verdict verdict) {
  return verdict == Verdict::kLeak ||
         verdict == Verdict::kMemoryAmplification ||
         verdict == Verdict::kPerfCliff;
}

bool IsDeath(Verdict verdict) {
  return verdict == Verdict::kCrash || verdict == Verdict::kTimeout ||
         verdict == Verdict::kOom;
}

std::ostream& operator<<(std::ostream& os, Verdict verdict) {
  return os << VerdictName(verdict);
}

}  // namespace dpfuzz
