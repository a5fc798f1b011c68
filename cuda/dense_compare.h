// Comparing two dense device buffers element by element, on the device.
//
// The device half of dpfuzz's value oracle: once a result has been read
// into a dense buffer (cuda/strided_copy.h), CompareDense judges every
// element, counts NaN and Inf on each side and returns the first differing
// element: the lowest linear index, the same however the GPU schedules its
// threads. Nothing is copied to the host but a few counters.
//
//   CompareOptions options;
//   options.mode = CompareMode::kTolerance;
//   options.rtol = 1.3e-6;  // torch.testing.assert_close's for float32
//   options.atol = 1e-5;
//   DPFUZZ_ASSIGN_OR_RETURN(CompareResult r,
//                           CompareDense(actual, expected, numel,
//                                        DType::kFloat32, options));
//   if (!r.equal()) ... r.first_mismatch, r.mismatches, r.max_abs_diff
//
// Values are read exactly as float64 pairs (float16 and bfloat16 too);
// integers and bool are always compared bit for bit. Tolerances are the
// caller's (the oracle's per-dtype table); the kernels make no copy with
// ATen. Runs on the legacy default stream and waits for the result.

#ifndef DPFUZZ_CUDA_DENSE_COMPARE_H_
#define DPFUZZ_CUDA_DENSE_COMPARE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "generators/dtype.h"

namespace dpfuzz {

enum class CompareMode : uint8_t {
  // Equal bits (so -0.0 differs from 0.0); with equal_nan, a NaN equals a
  // NaN at the same index whatever the payloads.
  kBitwise,
  // Floating and complex, as torch.isclose: finite values are equal when
  // |actual - expected| <= atol + rtol * |expected| (complex modulus);
  // infinities equal only infinities of the same sign (complex: both parts
  // equal); with equal_nan, NaN equals NaN (a complex is NaN when either
  // part is). Zero tolerances make it value equality (-0.0 == 0.0).
  // Integers and bool: equal bits, as in kBitwise.
  kTolerance,
};

struct CompareOptions {
  CompareMode mode = CompareMode::kBitwise;
  double atol = 0;  // kTolerance only; finite and >= 0.
  double rtol = 0;
  bool equal_nan = true;
};

struct CompareResult {
  int64_t numel = 0;
  int64_t mismatches = 0;       // Elements that differ.
  int64_t first_mismatch = -1;  // Lowest differing linear index; -1: none.
  // Elements for which torch.isnan / torch.isinf holds, per side (0 for
  // integers and bool).
  int64_t nan_actual = 0;
  int64_t nan_expected = 0;
  int64_t inf_actual = 0;
  int64_t inf_expected = 0;
  // Largest |actual - expected| over elements finite on both sides, in
  // either mode (0 for integers and bool).
  double max_abs_diff = 0;

  bool equal() const { return mismatches == 0; }
};

// Compares numel elements of `dtype` at two device addresses (each aligned
// to the dtype's component size; they may be the same buffer).
// kInvalidArgument for a negative numel, bad tolerances, null, misaligned
// or host pointers; CUDA errors as in cuda/cuda_status.h.
absl::StatusOr<CompareResult> CompareDense(const void* actual,
                                           const void* expected, int64_t numel,
                                           DType dtype,
                                           const CompareOptions& options = {});

}  // namespace dpfuzz

#endif  // DPFUZZ_CUDA_DENSE_COMPARE_H_
