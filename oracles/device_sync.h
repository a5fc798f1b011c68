// Device housekeeping around the cases that run on CUDA.
//
// On every device, PrepareDevice first asks LibTorch to check sparse
// tensors' invariants (once per process; Note [Sparse invariants] in
// common/torch_compat.h).
// Before a CUDA case runs, PrepareDevice makes the process's CUDA math
// comparable (once per process): TF32 off for cuBLAS and cuDNN (TF32 would
// round float32 matmuls and convolutions to 10 mantissa bits on one device
// and not the other), deterministic algorithms on where PyTorch offers them,
// warn-only so that an op without a deterministic kernel still runs (its
// warning is silenced with the others), and cuBLAS's deterministic
// workspace (CUBLAS_WORKSPACE_CONFIG=:4096:8 unless the environment sets
// it). Each op call on CUDA waits for the kernels it queued (CallGuarded,
// oracles/invoke.h), so that an asynchronous device error (an illegal
// address, a device-side assert) is the outcome of the call that caused it;
// if the device is then lost, DieIfDeviceLost ends the process while that
// call is still the one in flight. After a CUDA case, SynchronizeDevice
// waits for what dpfuzz's own code queued. All do nothing for CPU cases, so
// a CPU-only LibTorch never touches its CUDA hooks.
//
//   PrepareDevice(CaseDevice(c));
//   ... run the case ...
//   if (absl::Status s = SynchronizeDevice(CaseDevice(c)); !s.ok()) ...
//
// See Note [Sticky device errors] in crashes/isolation/worker.h.

#ifndef DPFUZZ_ORACLES_DEVICE_SYNC_H_
#define DPFUZZ_ORACLES_DEVICE_SYNC_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

// Starts the line DieOfDeviceError prints last; the crash key
// (crashes/isolation/crash_signature.h) takes that line as the fatal message.
inline constexpr char kDeviceErrorBanner[] = "dpfuzz-worker: device error: ";

void PrepareDevice(Device device);

// OK, or an internal error holding LibTorch's message ("CUDA error: an
// illegal memory access was encountered ...").
absl::Status SynchronizeDevice(Device device);

// Prints `message` (LibTorch's whole text, hints included), then
// kDeviceErrorBanner and the message's first line, on stderr; then aborts.
[[noreturn]] void DieOfDeviceError(absl::string_view message);

// After a call on `device` failed with `message`: if the device is lost
// (it cannot synchronize: a sticky error), DieOfDeviceError(message).
// A device that still works (a launch refused, memory short) is left as
// it is: the failure was that call's alone.
void DieIfDeviceLost(Device device, absl::string_view message);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_DEVICE_SYNC_H_
