#include "crashes/isolation/death_blame.h"

#include "crashes/isolation/crash_signature.h"

namespace dpfuzz {

std::optional<CallSide> BlamedSide(Verdict verdict,
                                   const std::optional<CallPhase>& phase,
                                   const std::vector<std::string>& last_lines) {
  if (!phase.has_value()) return CallSide::kVariant;
  if (phase->in_call) return phase->side;
  const bool after_a_call =
      verdict == Verdict::kOom ||
      (verdict == Verdict::kCrash &&
       (ReportsHeapCorruption(last_lines) || SegfaultInLibTorch(last_lines)));
  if (after_a_call && phase->called) return phase->last_called;
  return std::nullopt;
}

}  // namespace dpfuzz
