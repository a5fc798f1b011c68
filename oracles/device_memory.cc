#include "oracles/device_memory.h"

#include <ATen/Context.h>

#include "common/torch_compat.h"
#include "oracles/counting_allocator.h"

namespace dpfuzz {

bool MemoryCountedOn(Device device) {
  if (device == Device::kCpu) return CountingCpuAllocatorInstalled();
  return compat::kCudaMemoryCounted && at::hasCUDA();
}

std::string WhyMemoryNotCountedOn(Device device) {
  if (device == Device::kCpu) {
    return "the counting CPU allocator (InstallCountingCpuAllocator) is not "
           "installed";
  }
  if (!compat::kCudaMemoryCounted) {
    return "this LibTorch has no device-agnostic CUDA allocator statistics "
           "(LibTorch 2.9 and later have)";
  }
  return "no CUDA device is present";
}

int64_t AllocatedBytesOn(Device device) {
  if (device == Device::kCpu) return CpuAllocatedBytes();
  return compat::CudaBytes().allocated;
}

int64_t PeakBytesOn(Device device) {
  if (device == Device::kCpu) return CpuPeakBytes();
  return compat::CudaBytes().peak;
}

void ResetPeakBytesOn(Device device) {
  if (device == Device::kCpu) {
    ResetCpuPeakBytes();
  } else {
    compat::ResetCudaPeakBytes();
  }
}

}  // namespace dpfuzz
