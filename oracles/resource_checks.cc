#include "oracles/resource_checks.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "generators/case_scaling.h"
#include "oracles/call_phase.h"
#include "oracles/case_tensors.h"
#include "oracles/device_memory.h"
#include "oracles/invoke.h"
#include "oracles/judgement.h"

namespace dpfuzz {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kLeakCalls = 4;           // Calls after the warm-up.
constexpr double kTimedSeconds = 1e-3;  // What one timing lasts at least.
constexpr int kMaxTimedCalls = 1 << 16;
constexpr int kTimings = 3;
// How far the perf oracle scales a case: the longest variant call it
// times, and the largest storage of a tensor, in elements (16 MiB of
// float).
constexpr double kMaxVariantSeconds = 10e-3;
constexpr int64_t kMaxScaledStorage = int64_t{1} << 22;
// What the checks of one case may take together: the per-case time limit
// (3 s by default) holds the value oracles' calls too.
constexpr double kSecondsPerCase = 1.0;

// One call on one side; false when it did not return normally. Its
// results (and their autograd graph) are gone when it returns.
using Call = std::function<absl::StatusOr<bool>()>;

// Past `deadline` a call is not made and counts as failed: the check
// stops without a finding.
Call CallOf(const c10::OperatorHandle& op, const Case& c,
            const CaseTensors& tensors, CallSide side,
            Clock::time_point deadline) {
  return [&op, &c, &tensors, side, deadline]() -> absl::StatusOr<bool> {
    if (Clock::now() > deadline) return false;
    const CallSideScope scope(side);
    DPFUZZ_ASSIGN_OR_RETURN(CallResult r, Invoke(op, c, tensors.args));
    return r.outcome == CallOutcome::kOk;
  };
}

// The tensors of `variant` that are not contiguous: what a kernel that
// wants contiguous memory copies.
std::vector<at::Tensor> StridedTensors(const CaseTensors& variant) {
  std::vector<at::Tensor> strided;
  for (const auto& [name, tensors] : variant.args) {
    for (const at::Tensor& t : tensors) {
      if (t.defined() && !t.is_contiguous()) strided.push_back(t);
    }
  }
  return strided;
}

int64_t ContiguousCopyBytes(const CaseTensors& variant) {
  int64_t bytes = 0;
  for (const at::Tensor& t : StridedTensors(variant)) {
    bytes += t.numel() * static_cast<int64_t>(t.element_size());
  }
  return bytes;
}

std::string Bytes(int64_t n) {
  if (std::abs(n) < 1024) return absl::StrCat(n, " B");
  if (std::abs(n) < (int64_t{1} << 20)) {
    return absl::StrFormat("%.1f KiB", static_cast<double>(n) / 1024);
  }
  return absl::StrFormat("%.1f MiB", static_cast<double>(n) / (1 << 20));
}

std::string Duration(double seconds) {
  if (seconds >= 1e-3) return absl::StrFormat("%.2f ms", seconds * 1e3);
  return absl::StrFormat("%.1f us", seconds * 1e6);
}

// Bytes allocated after the warm-up and after each of kLeakCalls calls;
// empty when a call fails.
absl::StatusOr<std::vector<int64_t>> LiveAfterCalls(const Call& call,
                                                    Device device) {
  std::vector<int64_t> live;
  for (int i = 0; i <= kLeakCalls; ++i) {
    DPFUZZ_ASSIGN_OR_RETURN(const bool ok, call());
    if (!ok) return std::vector<int64_t>();
    live.push_back(AllocatedBytesOn(device));
  }
  return live;
}

bool GrowsEveryCall(const std::vector<int64_t>& live) {
  if (live.size() < 2) return false;
  for (size_t i = 1; i < live.size(); ++i) {
    if (live[i] <= live[i - 1]) return false;
  }
  return true;
}

absl::StatusOr<std::optional<CaseOutcome>> CheckLeak(const Call& variant,
                                                     const Call& baseline,
                                                     Device device) {
  DPFUZZ_ASSIGN_OR_RETURN(const std::vector<int64_t> v,
                          LiveAfterCalls(variant, device));
  if (!GrowsEveryCall(v)) return std::nullopt;
  DPFUZZ_ASSIGN_OR_RETURN(const std::vector<int64_t> b,
                          LiveAfterCalls(baseline, device));
  const int64_t per_call = (v.back() - v.front()) / kLeakCalls;
  std::vector<std::string> after;
  for (const int64_t n : v) after.push_back(absl::StrCat(n - v.front()));
  Evidence e = Described(
      "allocated bytes",
      absl::StrCat("each call leaves about ", Bytes(per_call),
                   " more allocated: bytes live after the warm-up and "
                   "after each of ",
                   kLeakCalls, " calls, results released, grow as ",
                   absl::StrJoin(after, ", ")));
  e.measured = {{"bytes_left_per_call", static_cast<double>(per_call)},
                {"calls", kLeakCalls}};
  CaseOutcome outcome = MakeFinding(Verdict::kLeak, std::move(e));
  if (GrowsEveryCall(b)) {
    outcome.kind = FindingKind::kBaselineFailure;
    outcome.evidence.detail +=
        "; the contiguous baseline's grow too: the arguments leak, not a "
        "layout";
  }
  return outcome;
}

// Peak bytes over one call after a warm-up, above the bytes allocated
// before it; nullopt when a call fails.
absl::StatusOr<std::optional<int64_t>> PeakOfCall(const Call& call,
                                                  Device device) {
  DPFUZZ_ASSIGN_OR_RETURN(const bool warm, call());
  if (!warm) return std::nullopt;
  const int64_t before = AllocatedBytesOn(device);
  ResetPeakBytesOn(device);
  DPFUZZ_ASSIGN_OR_RETURN(const bool ok, call());
  if (!ok) return std::nullopt;
  return PeakBytesOn(device) - before;
}

absl::StatusOr<std::optional<CaseOutcome>> CheckMemory(
    const ResourceOracles& oracles, const Call& variant, const Call& baseline,
    const CaseTensors& variant_tensors, Device device) {
  DPFUZZ_ASSIGN_OR_RETURN(const std::optional<int64_t> v,
                          PeakOfCall(variant, device));
  DPFUZZ_ASSIGN_OR_RETURN(const std::optional<int64_t> b,
                          PeakOfCall(baseline, device));
  if (!v.has_value() || !b.has_value()) return std::nullopt;
  const int64_t copies = ContiguousCopyBytes(variant_tensors);
  const int64_t allowed = *b + copies;
  const double ratio = static_cast<double>(*v) /
                       static_cast<double>(std::max<int64_t>(1, allowed));
  if (ratio <= oracles.memory_ratio ||
      *v - allowed <= oracles.memory_excess_bytes) {
    return std::nullopt;
  }
  Evidence e = Described(
      "peak bytes",
      absl::StrFormat("one call's peak allocation is %s, %.1fx the "
                      "contiguous baseline's %s plus %s for contiguous "
                      "copies of the strided tensors",
                      Bytes(*v), ratio, Bytes(*b), Bytes(copies)));
  e.measured = {{"peak_bytes", static_cast<double>(*v)},
                {"baseline_peak_bytes", static_cast<double>(*b)},
                {"copy_bytes", static_cast<double>(copies)},
                {"ratio", ratio}};
  return MakeFinding(Verdict::kMemoryAmplification, std::move(e));
}

// Seconds `count` calls take; nullopt when one fails.
absl::StatusOr<std::optional<double>> Timed(const Call& call, int count) {
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < count; ++i) {
    DPFUZZ_ASSIGN_OR_RETURN(const bool ok, call());
    if (!ok) return std::nullopt;
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Seconds per call: the least of kTimings timings of as many calls as take
// kTimedSeconds together; nullopt when a call fails.
absl::StatusOr<std::optional<double>> SecondsPerCall(const Call& call) {
  int count = 1;
  DPFUZZ_ASSIGN_OR_RETURN(std::optional<double> t, Timed(call, count));
  while (t.has_value() && *t < kTimedSeconds && count < kMaxTimedCalls) {
    count *= 2;
    DPFUZZ_ASSIGN_OR_RETURN(t, Timed(call, count));
  }
  if (!t.has_value()) return std::nullopt;
  double best = *t;
  for (int i = 1; i < kTimings; ++i) {
    DPFUZZ_ASSIGN_OR_RETURN(t, Timed(call, count));
    if (!t.has_value()) return std::nullopt;
    best = std::min(best, *t);
  }
  return best / count;
}

struct Timing {
  double variant = 0;
  double baseline = 0;
  double copies = 0;
  double ratio() const { return variant / (baseline + copies); }
};

using TimeFn =
    std::function<absl::StatusOr<std::optional<double>>(const Call&)>;

absl::StatusOr<std::optional<double>> OneCall(const Call& call) {
  return Timed(call, 1);
}

// One measurement of `c` on tensors made afresh, after a warm-up call of
// each side: the variant, the baseline and the contiguous copies of the
// variant's strided tensors; nullopt when a call fails.
absl::StatusOr<std::optional<Timing>> MeasureCase(const c10::OperatorHandle& op,
                                                  const Case& c,
                                                  Clock::time_point deadline,
                                                  const TimeFn& time) {
  DPFUZZ_ASSIGN_OR_RETURN(const CaseTensors variant_tensors,
                          MaterializeVariant(c));
  const CaseTensors baseline_tensors = MaterializeBaseline(variant_tensors);
  const Call variant =
      CallOf(op, c, variant_tensors, CallSide::kVariant, deadline);
  const Call baseline =
      CallOf(op, c, baseline_tensors, CallSide::kBaseline, deadline);
  const std::vector<at::Tensor> strided = StridedTensors(variant_tensors);
  const Call copies = [&strided]() -> absl::StatusOr<bool> {
    for (const at::Tensor& t : strided) (void)t.contiguous();
    return true;
  };
  Timing timing;
  for (const TimeFn& fn : {TimeFn(OneCall), time}) {
    for (auto [call, into] : {std::pair{&variant, &timing.variant},
                              std::pair{&baseline, &timing.baseline},
                              std::pair{&copies, &timing.copies}}) {
      DPFUZZ_ASSIGN_OR_RETURN(const std::optional<double> s, fn(*call));
      if (!s.has_value()) return std::nullopt;
      *into = *s;
    }
  }
  return timing;
}

// The largest factor up to which `c` scales (generators/case_scaling.h)
// while its baseline and copies take less than kTimedSeconds a call and
// its variant less than kMaxVariantSeconds; 1 when it does not scale.
int64_t FactorToTime(const c10::OperatorHandle& op, const Case& c,
                     Clock::time_point deadline, Timing at) {
  int64_t factor = 1;
  while (factor == 1 || (at.baseline + at.copies < kTimedSeconds &&
                         at.variant < kMaxVariantSeconds)) {
    const std::optional<Case> scaled =
        ScaledCase(c, factor * 2, kMaxScaledStorage);
    if (!scaled.has_value()) break;
    // A size the op refuses ends the scaling like one past the cap.
    const absl::StatusOr<std::optional<Timing>> t =
        MeasureCase(op, *scaled, deadline, OneCall);
    if (!t.ok() || !t->has_value()) break;
    factor *= 2;
    at = **t;
  }
  return factor;
}

absl::StatusOr<std::optional<CaseOutcome>> CheckPerf(
    const ResourceOracles& oracles, const c10::OperatorHandle& op,
    const Case& c, Clock::time_point deadline) {
  DPFUZZ_ASSIGN_OR_RETURN(const std::optional<Timing> screen,
                          MeasureCase(op, c, deadline, OneCall));
  if (!screen.has_value() || screen->ratio() <= oracles.perf_ratio / 2) {
    return std::nullopt;
  }
  // A cliff holds at two sizes, the largest the case scales to in the
  // time it may take and half of it; noise does not make one twice.
  const int64_t factor = FactorToTime(op, c, deadline, *screen);
  if (factor == 1) return std::nullopt;
  std::vector<Timing> measured;
  for (const int64_t f : {factor / 2, factor}) {
    const std::optional<Case> scaled = ScaledCase(c, f, kMaxScaledStorage);
    if (!scaled.has_value()) return std::nullopt;
    DPFUZZ_ASSIGN_OR_RETURN(const std::optional<Timing> t,
                            MeasureCase(op, *scaled, deadline, SecondsPerCall));
    if (!t.has_value() || t->ratio() <= oracles.perf_ratio) return std::nullopt;
    measured.push_back(*t);
  }
  const Timing& t = measured.back();
  Evidence e = Described(
      "time per call",
      absl::StrFormat("at %dx the case's sizes a call takes %s, %.0fx the "
                      "contiguous baseline's %s plus %s for contiguous "
                      "copies of the strided tensors; %.0fx at %dx",
                      factor, Duration(t.variant), t.ratio(),
                      Duration(t.baseline), Duration(t.copies),
                      measured.front().ratio(), factor / 2));
  e.measured = {{"seconds_per_call", t.variant},
                {"baseline_seconds_per_call", t.baseline},
                {"copy_seconds_per_call", t.copies},
                {"ratio", t.ratio()},
                {"scale", static_cast<double>(factor)},
                {"ratio_at_half_scale", measured.front().ratio()}};
  return MakeFinding(Verdict::kPerfCliff, std::move(e));
}

}  // namespace

absl::StatusOr<std::optional<CaseOutcome>> CheckResources(
    const ResourceOracles& oracles, const c10::OperatorHandle& op,
    const Case& c) {
  const Device device = CaseDevice(c);
  if (!oracles.any()) return std::nullopt;
  if (oracles.counts_memory() && !MemoryCountedOn(device)) {
    return absl::FailedPreconditionError(
        absl::StrCat("the leak and memory oracles count ", DeviceName(device),
                     " memory, and ", WhyMemoryNotCountedOn(device)));
  }
  // A case whose calls are slow (a big decomposition, a huge drawn count)
  // is judged only as far as kSecondsPerCase goes.
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(kSecondsPerCase));
  // Fresh tensors for each oracle: a call's writes (an in-place self, an
  // out= resized) are not the next oracle's arguments.
  auto judge = [&](auto check) -> absl::StatusOr<std::optional<CaseOutcome>> {
    DPFUZZ_ASSIGN_OR_RETURN(const CaseTensors variant, MaterializeVariant(c));
    const CaseTensors baseline = MaterializeBaseline(variant);
    return check(CallOf(op, c, variant, CallSide::kVariant, deadline),
                 CallOf(op, c, baseline, CallSide::kBaseline, deadline),
                 variant);
  };
  if (oracles.leak) {
    DPFUZZ_ASSIGN_OR_RETURN(
        std::optional<CaseOutcome> leak,
        judge([device](const Call& v, const Call& b, const CaseTensors&) {
          return CheckLeak(v, b, device);
        }));
    if (leak.has_value()) return leak;
  }
  if (oracles.memory) {
    DPFUZZ_ASSIGN_OR_RETURN(
        std::optional<CaseOutcome> memory,
        judge([&oracles, device](const Call& v, const Call& b,
                                 const CaseTensors& t) {
          return CheckMemory(oracles, v, b, t, device);
        }));
    if (memory.has_value()) return memory;
  }
  // Times on CUDA would need the device's own clock: CPU cases only.
  if (oracles.perf && device == Device::kCpu) {
    return CheckPerf(oracles, op, c, deadline);
  }
  return std::nullopt;
}

}  // namespace dpfuzz
