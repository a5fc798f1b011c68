#include "oracles/device_sync.h"

#include <ATen/Context.h>
#include <torch/cuda.h>

#include <cstdlib>
#include <iostream>

#include "common/torch_compat.h"
#include "oracles/invoke.h"

namespace dpfuzz {

void PrepareDevice(Device device) {
  static const bool checked = (compat::CheckSparseTensorInvariants(), true);
  (void)checked;
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
  // where dpfuzz catches what LibTorch throws. Run as a CPU call: the
  // synchronization is the waiting, and its failure is reported, not died of.
  const CallResult sync =
      CallGuarded(Device::kCpu,
                  [](std::vector<at::Tensor>&) { torch::cuda::synchronize(); });
  if (sync.outcome == CallOutcome::kOk) return absl::OkStatus();
  return absl::InternalError(sync.error);
}

void DieOfDeviceError(absl::string_view message) {
  const absl::string_view first = message.substr(0, message.find('\n'));
  std::cerr << message << "\n" << kDeviceErrorBanner << first << std::endl;
  std::abort();
}

void DieIfDeviceLost(Device device, absl::string_view message) {
  if (!SynchronizeDevice(device).ok()) DieOfDeviceError(message);
}

}  // namespace dpfuzz
