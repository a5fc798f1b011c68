// Device housekeeping around the cases that run on CUDA.
//
// Before a CUDA case runs, PrepareDevice makes the process's CUDA math
// comparable (once per process): TF32 off for cuBLAS and cuDNN (TF32 would
// round float32 matmuls and convolutions to 10 mantissa bits on one device
// and not the other), deterministic algorithms on where PyTorch offers them,
// warn-only so that an op without a deterministic kernel still runs (its
// warning is silenced with the others), and cuBLAS's deterministic
// workspace (CUBLAS_WORKSPACE_CONFIG=:4096:8 unless the environment sets
// it). After a CUDA case, SynchronizeDevice waits for everything the case
// queued, so that an asynchronous device error (an illegal address, a
// device-side assert) surfaces while the case that caused it is still the
// one in flight. Both do nothing for CPU cases, so a CPU-only LibTorch
// never touches its CUDA hooks.
//
//   PrepareDevice(CaseDevice(c));
//   ... run the case ...
//   if (absl::Status s = SynchronizeDevice(CaseDevice(c)); !s.ok()) ...
//
// What a failed synchronization means for the process is the worker's
// business: see Note [Sticky device errors] in crashes/worker.h.

#ifndef DPFUZZ_ORACLES_DEVICE_SYNC_H_
#define DPFUZZ_ORACLES_DEVICE_SYNC_H_

#include "absl/status/status.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

void PrepareDevice(Device device);

// OK, or an internal error holding LibTorch's message ("CUDA error: an
// illegal memory access was encountered ...").
absl::Status SynchronizeDevice(Device device);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_DEVICE_SYNC_H_
