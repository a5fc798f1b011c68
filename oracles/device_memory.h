// Bytes allocated on a case's device and their peak, which the memory
// oracles (oracles/resource_checks.h) read around one call of an op: on
// the CPU the counting allocator's (oracles/counting_allocator.h), on
// CUDA the caching allocator's statistics of the current device. Those
// count the bytes handed to tensors, not the blocks the cache keeps
// reserved: a block freed into the cache is freed.
//
//   if (MemoryCountedOn(device)) {
//     ResetPeakBytesOn(device);
//     const int64_t before = AllocatedBytesOn(device);
//     ... call the op ...
//     const int64_t peak = PeakBytesOn(device) - before;
//   }

#ifndef DPFUZZ_ORACLES_DEVICE_MEMORY_H_
#define DPFUZZ_ORACLES_DEVICE_MEMORY_H_

#include <cstdint>
#include <string>

#include "generators/tensor_spec.h"

namespace dpfuzz {

// Whether this process counts `device`'s memory: on the CPU once
// InstallCountingCpuAllocator ran, on CUDA where a GPU is present and
// LibTorch has device-agnostic allocator statistics (common/torch_compat.h).
bool MemoryCountedOn(Device device);

// Why MemoryCountedOn(device) is false, for an error message.
std::string WhyMemoryNotCountedOn(Device device);

int64_t AllocatedBytesOn(Device device);

// The most bytes allocated at once since the last ResetPeakBytesOn.
int64_t PeakBytesOn(Device device);

void ResetPeakBytesOn(Device device);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_DEVICE_MEMORY_H_
