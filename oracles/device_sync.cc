#include "oracles/device_sync.h"

#include <ATen/Context.h>
#include <torch/cuda.h>

#include <cstdlib>

#include "oracles/invoke.h"

namespace dpfuzz {

void PrepareDevice(Device device) {
  if (device != Device::kCuda) return;
  static const bool prepared = [] {
    // Read when cuBLAS makes its first handle: before any CUDA case.
    ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", /*overwrite=*/0);
    at::Context& context = at::globalContext();
    context.setAllowTF32CuBLAS(false);
    context.setAllowTF32CuDNN(false);
    context.setDeterministicAlgorithms(true, /*warn_only=*/true);
    return true;
  }();
  (void)prepared;
}

absl::Status SynchronizeDevice(Device device) {
  if (device != Device::kCuda) return absl::OkStatus();
  // LibTorch reports a failed synchronization by throwing; CallGuarded is
  // where dpfuzz catches what LibTorch throws.
  const CallResult sync =
      CallGuarded([](std::vector<at::Tensor>&) { torch::cuda::synchronize(); });
  if (sync.outcome == CallOutcome::kOk) return absl::OkStatus();
  return absl::InternalError(sync.error);
}

}  // namespace dpfuzz
