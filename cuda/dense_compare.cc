#include "cuda/dense_compare.h"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstring>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "cuda/cuda_status.h"
#include "cuda/device_buffer.h"
#include "cuda/kernels.h"

namespace dpfuzz {
namespace {

using cuda_kernels::ValueKind;

ValueKind DeviceValueKind(DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      return ValueKind::kFloat16;
    case DType::kBFloat16:
      return ValueKind::kBFloat16;
    case DType::kFloat32:
      return ValueKind::kFloat32;
    case DType::kFloat64:
      return ValueKind::kFloat64;
    case DType::kComplex64:
      return ValueKind::kComplex64;
    case DType::kComplex128:
      return ValueKind::kComplex128;
    default:
      return ValueKind::kBytes;
  }
}

bool IsTolerance(double t) { return std::isfinite(t) && t >= 0; }

// What can be told of a buffer without the device: set, and aligned for
// the kernel's component loads.
absl::Status CheckBufferArgument(const void* buffer, DType dtype,
                                 const std::string& what) {
  if (buffer == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is null"));
  }
  const int64_t alignment = ElementSize(ComponentType(dtype));
  if (DeviceValueKind(dtype) != ValueKind::kBytes &&
      reinterpret_cast<uintptr_t>(buffer) % alignment != 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is not aligned to ",
                                                   alignment, " bytes for ",
                                                   DTypeName(dtype)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CompareResult> CompareDense(const void* actual,
                                           const void* expected, int64_t numel,
                                           DType dtype,
                                           const CompareOptions& options) {
  const std::string what =
      absl::StrCat("comparing ", numel, " ", DTypeName(dtype), " elements");
  if (numel < 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": negative numel"));
  }
  if (!IsTolerance(options.atol) || !IsTolerance(options.rtol)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": atol ", options.atol, " and rtol ", options.rtol,
                     " must be finite and non-negative"));
  }
  const int64_t element_size = ElementSize(dtype);
  int64_t bytes = 0;
  if (__builtin_mul_overflow(numel, element_size, &bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the byte count overflows int64"));
  }
  CompareResult result;
  result.numel = numel;
  if (numel == 0) return result;
  const std::string actual_what = absl::StrCat(what, ": the actual buffer");
  const std::string expected_what = absl::StrCat(what, ": the expected buffer");
  DPFUZZ_RETURN_IF_ERROR(CheckBufferArgument(actual, dtype, actual_what));
  DPFUZZ_RETURN_IF_ERROR(CheckBufferArgument(expected, dtype, expected_what));
  DPFUZZ_RETURN_IF_ERROR(CheckDevicePointer(actual, actual_what));
  DPFUZZ_RETURN_IF_ERROR(CheckDevicePointer(expected, expected_what));

  cuda_kernels::CompareCounters counters = {};
  counters.first_mismatch = ~0ull;
  DPFUZZ_ASSIGN_OR_RETURN(DeviceBuffer device_counters,
                          DeviceBuffer::Allocate(sizeof(counters)));
  DPFUZZ_RETURN_IF_ERROR(
      device_counters.CopyFromHost(&counters, sizeof(counters)));
  cuda_kernels::CompareArgs args;
  args.actual = actual;
  args.expected = expected;
  args.numel = numel;
  args.element_size = static_cast<int>(element_size);
  args.kind = DeviceValueKind(dtype);
  args.tolerance = options.mode == CompareMode::kTolerance;
  args.equal_nan = options.equal_nan;
  args.atol = options.atol;
  args.rtol = options.rtol;
  DPFUZZ_RETURN_IF_ERROR(CudaStatus(
      cuda_kernels::LaunchCompare(
          args,
          static_cast<cuda_kernels::CompareCounters*>(device_counters.data())),
      absl::StrCat(what, ": launch")));
  DPFUZZ_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(nullptr), what));
  DPFUZZ_RETURN_IF_ERROR(
      device_counters.CopyToHost(&counters, sizeof(counters)));

  result.mismatches = static_cast<int64_t>(counters.mismatches);
  if (result.mismatches != 0) {
    result.first_mismatch = static_cast<int64_t>(counters.first_mismatch);
  }
  result.nan_actual = static_cast<int64_t>(counters.nan_actual);
  result.nan_expected = static_cast<int64_t>(counters.nan_expected);
  result.inf_actual = static_cast<int64_t>(counters.inf_actual);
  result.inf_expected = static_cast<int64_t>(counters.inf_expected);
  std::memcpy(&result.max_abs_diff, &counters.max_abs_diff_bits,
              sizeof(result.max_abs_diff));
  return result;
}

}  // namespace dpfuzz
