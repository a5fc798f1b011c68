#include "cuda/cuda_status.h"

#include "absl/strings/str_cat.h"

namespace dpfuzz {

bool IsStickyCudaError(cudaError_t error) {
  switch (error) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

absl::Status CudaStatus(cudaError_t error, absl::string_view what) {
  if (error == cudaSuccess) return absl::OkStatus();
  std::string message = absl::StrCat(what, ": ", cudaGetErrorName(error), " (",
                                     cudaGetErrorString(error), ")");
  if (IsStickyCudaError(error)) {
    absl::StrAppend(&message,
                    "; the CUDA context is unusable until the process exits");
  }
  switch (error) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorInitializationError:
      return absl::UnavailableError(message);
    case cudaErrorMemoryAllocation:
      return absl::ResourceExhaustedError(message);
    default:
      return absl::InternalError(message);
  }
}

absl::Status CheckCudaDevice() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    // Clear the error so that it is not reported by a later launch check.
    cudaGetLastError();
    return absl::UnavailableError(
        absl::StrCat("no usable CUDA device: ", cudaGetErrorName(error), " (",
                     cudaGetErrorString(error), ")"));
  }
  if (count == 0) return absl::UnavailableError("no CUDA device");
  return absl::OkStatus();
}

absl::Status CheckDevicePointer(const void* pointer, absl::string_view what) {
  if (pointer == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is null"));
  }
  cudaPointerAttributes attributes;
  const cudaError_t error = cudaPointerGetAttributes(&attributes, pointer);
  if (error != cudaSuccess) {
    cudaGetLastError();
    return CudaStatus(error, what);
  }
  if (attributes.type != cudaMemoryTypeDevice &&
      attributes.type != cudaMemoryTypeManaged) {
    return absl::InvalidArgumentError(
        absl::StrCat(what,
                     " is host memory; the CUDA helpers take device "
                     "pointers"));
  }
  int current = 0;
  if (const cudaError_t e = cudaGetDevice(&current); e != cudaSuccess) {
    return CudaStatus(e, what);
  }
  if (attributes.device != current) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " is memory of CUDA device ", attributes.device, " but device ",
        current, " is current; make it current first"));
  }
  return absl::OkStatus();
}

}  // namespace dpfuzz
