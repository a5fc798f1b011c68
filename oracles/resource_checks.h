// The resource oracles' judgements (oracles/resource_oracles.h): whether a
// case's layouts make its op leak, use far more memory, or run far slower
// than the contiguous baseline plus the cost of contiguous copies of the
// layouts' strided tensors.
//
// Each measurement runs on tensors made afresh from the case (the value
// oracles' calls wrote theirs), after a warm-up call on each side so that
// what an op allocates or initializes once per process (a cache, a thread
// pool) counts for neither. Results, and the autograd graphs they hold,
// are released after every call. Memory is counted on the case's device
// (oracles/device_memory.h: the counting CPU allocator, or CUDA's caching
// allocator statistics); time only on the CPU.
//
// - leak: four calls after the warm-up each leave more bytes allocated on
//   the variant. When the baseline's do too, the arguments make the op
//   leak, not a layout: a baseline failure.
// - memory_amplification: the variant's peak bytes over one call exceed
//   the allowance (the baseline's peak plus the bytes of a contiguous copy
//   of each strided tensor of the variant) by both thresholds.
// - perf_cliff: the variant's time per call exceeds the threshold ratio
//   to the baseline's time plus the contiguous copies' time at two sizes:
//   the case scaled (generators/case_scaling.h) until the baseline takes
//   a millisecond a call (or the variant 10 ms), and half that scale. Each
//   time is the least of three timings of as many calls as take a
//   millisecond. A single call of each at the case's own sizes screens
//   first, so that a case without a cliff costs a few calls; a case the op
//   refuses at twice its sizes is not judged.
//
// The checks of one case stop after a second (the per-case time limit
// holds the value oracles' calls too): a case whose calls are slow is
// judged only as far as that goes, never timed out by its repeats.
//
//   absl::StatusOr<std::optional<CaseOutcome>> o =
//       CheckResources(oracles, op, c);

#ifndef DPFUZZ_ORACLES_RESOURCE_CHECKS_H_
#define DPFUZZ_ORACLES_RESOURCE_CHECKS_H_

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "oracles/resource_oracles.h"
#include "oracles/run_case.h"

namespace dpfuzz {

// The first finding of the oracles that are on, in the order leak,
// memory, perf; nullopt when none (or a call is rejected; perf judges CPU
// cases only). Leak and memory need the case's device's memory counted
// (MemoryCountedOn); an error status when it is not.
absl::StatusOr<std::optional<CaseOutcome>> CheckResources(
    const ResourceOracles& oracles, const c10::OperatorHandle& op,
    const Case& c);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_RESOURCE_CHECKS_H_
