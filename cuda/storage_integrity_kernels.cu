// Kernels of cuda/storage_integrity.h: mark the storage elements a view
// addresses, then scan every other byte of the storage.

#include "cuda/kernel_util.cuh"
#include "cuda/kernels.h"

namespace dpfuzz::cuda_kernels {
namespace {

// Overlapping views mark an element more than once, always with 1.
__global__ void MarkViewKernel(uint8_t* mask, const ViewGeometry view) {
  for (int64_t i = GridStart(); i < view.numel; i += GridStep()) {
    mask[StorageIndex(view, i)] = 1;
  }
}

__global__ void FindChangedOutsideViewKernel(const OutsideViewArgs args,
                                             OutsideViewCounters* counters) {
  unsigned long long first = kNone;
  unsigned long long changed = 0;
  for (int64_t b = GridStart(); b < args.storage_bytes; b += GridStep()) {
    if (args.mask[b / args.element_size] != 0) continue;
    const uint8_t expected = args.snapshot != nullptr
                                 ? args.snapshot[b]
                                 : args.pattern[b % args.pattern_size];
    if (args.storage[b] != expected) {
      if (first == kNone) first = static_cast<unsigned long long>(b);
      ++changed;
    }
  }
  if (changed != 0) {
    atomicMin(&counters->first_changed, first);
    atomicAdd(&counters->changed, changed);
  }
}

}  // namespace

cudaError_t LaunchMarkView(uint8_t* mask, const ViewGeometry& view) {
  MarkViewKernel<<<BlocksFor(view.numel), kThreadsPerBlock>>>(mask, view);
  return cudaGetLastError();
}

cudaError_t LaunchFindChangedOutsideView(const OutsideViewArgs& args,
                                         OutsideViewCounters* counters) {
  FindChangedOutsideViewKernel<<<BlocksFor(args.storage_bytes),
                                 kThreadsPerBlock>>>(args, counters);
  return cudaGetLastError();
}

}  // namespace dpfuzz::cuda_kernels
