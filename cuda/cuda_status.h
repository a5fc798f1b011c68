// CUDA runtime results as absl::Status, and the checks every device helper
// makes before it launches.
//
// A CUDA error never escapes as an exception or an abort: it becomes a
// Status whose message names what was being done and the runtime's own
// error name and string, e.g.
//
//   gather of [2, 3]@[1, 2]+0: cudaErrorIllegalAddress (an illegal memory
//   access was encountered); the CUDA context is unusable until the
//   process exits
//
// Sticky errors (an illegal address, a device-side assert, a launch
// failure) poison the whole CUDA context: every later call fails with the
// same error, so a caller that sees one must restart its process. An
// asynchronous error left by earlier work (the op under test) is reported
// by the next helper that synchronizes; synchronize and check before
// calling a helper to attribute errors to their cause.

#ifndef DPFUZZ_CUDA_CUDA_STATUS_H_
#define DPFUZZ_CUDA_CUDA_STATUS_H_

#include <cuda_runtime_api.h>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace dpfuzz {

// OK for cudaSuccess. Otherwise kUnavailable when there is no usable device
// or driver, kResourceExhausted when device memory ran out, kInternal for
// everything else; the message is "<what>: <name> (<string>)".
absl::Status CudaStatus(cudaError_t error, absl::string_view what);

// True for the errors after which the CUDA context cannot be used again.
bool IsStickyCudaError(cudaError_t error);

// OK when the process can use a CUDA device; kUnavailable saying why not
// (no device, no driver, a driver older than this CUDA runtime).
absl::Status CheckCudaDevice();

// OK when `pointer` is device or managed memory of the current device;
// kInvalidArgument for a null, host or other-device pointer, naming `what`.
absl::Status CheckDevicePointer(const void* pointer, absl::string_view what);

}  // namespace dpfuzz

#endif  // DPFUZZ_CUDA_CUDA_STATUS_H_
