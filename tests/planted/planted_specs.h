// OpSpecs for the planted ops of planted_ops.cc, with the verdict each one
// must produce (kAgree for the correct ones). Test code only.

#ifndef DPFUZZ_TESTS_PLANTED_PLANTED_SPECS_H_
#define DPFUZZ_TESTS_PLANTED_PLANTED_SPECS_H_

#include <string>
#include <vector>

#include "generators/case.h"
#include "generators/op_spec.h"
#include "oracles/verdict.h"

namespace dpfuzz {

struct PlantedOp {
  OpSpec spec;
  Verdict expected;  // The verdict dpfuzz must reach; kAgree: never a finding.
};

// Ops whose bugs RunCase can judge in-process.
const std::vector<PlantedOp>& PlantedOps();

// Ops right in value whose layouts cost memory or time (cost_ops.cc), for
// the resource oracles: leaky_neg (kLeak), bloated_neg
// (kMemoryAmplification), slow_strided_neg (kPerfCliff), and
// bounded_slow_neg, cached_neg, copying_neg and materializing_neg (kAgree).
const std::vector<PlantedOp>& PlantedCostOps();

// Ops that crash, abort, hang or exhaust memory: only for isolated runs
// (verdicts kCrash, kTimeout, kOom).
const std::vector<PlantedOp>& PlantedDeathOps();

// Ops wrong only on CUDA (verdicts kDeviceMismatch, and kCrash for a
// sticky device error: that one only for isolated runs); right on the CPU.
const std::vector<PlantedOp>& PlantedCudaOps();

// Ops whose results make dpfuzz's own code fail outside the op call (a
// result on the meta device, a result over unowned memory): internal errors,
// never findings (expected kAgree); only for isolated runs.
const std::vector<PlantedOp>& PlantedInternalErrorOps();

// Nested-tensor ops (nested_ops.cc): buffer_relu (kMismatch, the
// components read as dense) and good_relu (kAgree), as nested specs.
const std::vector<PlantedOp>& PlantedNestedOps();

// Ops that share a layout mistake (class_ops.cc), each with the mechanism
// that explains its wrong values (oracles/mechanism.h; "" when none does)
// in the variant that has the bug: three out= kernels sharing a helper
// ("writes_as_contiguous", variant out), unwritten_neg's out=
// ("leaves_unwritten"), two functional kernels reading
// self in memory order ("reads_as_contiguous"), offset_blind_neg
// ("reads_ignoring_offset"), memory_walk_cumsum, which sums self up in
// memory order ("walks_in_memory_order"), and skewed_neg ("").
struct ClassOp {
  OpSpec spec;
  Variant variant;
  std::string mechanism;
};
const std::vector<ClassOp>& PlantedClassOps();

// Ops whose layouts differ only where the baseline is undefined
// (unstable_ops.cc): step_at_zero, whose kernels disagree at its step
// (kMismatch, judged ill-conditioned), tail_garbage, whose contiguous
// kernel leaves an element of its result unwritten, and write_past_end,
// which writes after its input's end where there is room (both baseline
// failures), and nan_to_zero_contiguous, whose kernels differ only at NaN
// (low confidence).
const std::vector<PlantedOp>& PlantedUnstableOps();

// The specs of all the lists, for AddOps.
std::vector<OpSpec> AllPlantedSpecs();

}  // namespace dpfuzz

#endif  // DPFUZZ_TESTS_PLANTED_PLANTED_SPECS_H_
