// Kernels of cuda/strided_copy.h: one grid-stride element walk for both
// directions, moving each element as whole words.

#include "cuda/kernel_util.cuh"
#include "cuda/kernels.h"

namespace dpfuzz::cuda_kernels {
namespace {

// kGather: to[dense] = from[strided]; else to[strided] = from[dense], where
// an element is words_per_element consecutive words of type W.
template <typename W, bool kGather>
__global__ void StridedCopyKernel(const W* from, W* to, const ViewGeometry view,
                                  int64_t words_per_element) {
  for (int64_t i = GridStart(); i < view.numel; i += GridStep()) {
    const int64_t strided = StorageIndex(view, i) * words_per_element;
    const int64_t dense = i * words_per_element;
    const int64_t src = kGather ? strided : dense;
    const int64_t dst = kGather ? dense : strided;
    for (int64_t w = 0; w < words_per_element; ++w) to[dst + w] = from[src + w];
  }
}

template <bool kGather>
cudaError_t LaunchStridedCopy(const void* from, void* to,
                              const ViewGeometry& view, int element_size,
                              int word_size) {
  return DispatchWordSize(word_size, [&](auto bytes) {
    using W = typename Word<decltype(bytes)::value>::type;
    StridedCopyKernel<W, kGather><<<BlocksFor(view.numel), kThreadsPerBlock>>>(
        static_cast<const W*>(from), static_cast<W*>(to), view,
        element_size / word_size);
    return cudaGetLastError();
  });
}

}  // namespace

cudaError_t LaunchGather(const void* storage, void* dense,
                         const ViewGeometry& view, int element_size,
                         int word_size) {
  return LaunchStridedCopy<true>(storage, dense, view, element_size, word_size);
}

cudaError_t LaunchScatter(const void* dense, void* storage,
                          const ViewGeometry& view, int element_size,
                          int word_size) {
  return LaunchStridedCopy<false>(dense, storage, view, element_size,
                                  word_size);
}

}  // namespace dpfuzz::cuda_kernels
