// Device-side helpers shared by the kernels of cuda/*.cu: grid-stride
// loops, launch shapes and words of 1 to 16 bytes (the strided walk itself,
// StorageIndex, is in cuda/kernels.h).
//
// Indices are int64_t throughout: a view's numel, a storage index and a
// linear index can each pass 2^31, and blockIdx.x * blockDim.x is widened
// before it is multiplied.

#ifndef DPFUZZ_CUDA_KERNEL_UTIL_CUH_
#define DPFUZZ_CUDA_KERNEL_UTIL_CUH_

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "cuda/kernels.h"

namespace dpfuzz::cuda_kernels {

// The first index a scan found, before it found one (atomicMin keeps the
// lowest, so "none" is the largest value).
inline constexpr unsigned long long kNone = ~0ull;

inline constexpr int kThreadsPerBlock = 256;

// Enough blocks to fill a large GPU (an H100 holds about 270k resident
// threads); a grid-stride loop covers the rest.
inline constexpr int64_t kMaxBlocks = 1024;

// Blocks for a grid-stride loop over n > 0 items.
inline unsigned BlocksFor(int64_t n) {
  const int64_t blocks = (n + kThreadsPerBlock - 1) / kThreadsPerBlock;
  return static_cast<unsigned>(blocks < kMaxBlocks ? blocks : kMaxBlocks);
}

__device__ __forceinline__ int64_t GridStart() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ int64_t GridStep() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

// Words of each size a copy may move; 16 bytes needs 16-byte alignment.
template <int kBytes>
struct Word;
template <>
struct Word<1> {
  using type = uint8_t;
};
template <>
struct Word<2> {
  using type = uint16_t;
};
template <>
struct Word<4> {
  using type = uint32_t;
};
template <>
struct Word<8> {
  using type = unsigned long long;
};
template <>
struct Word<16> {
  using type = uint4;
};

// Calls f(std::integral_constant<int, word_size>{}) for word_size in {1, 2,
// 4, 8, 16} and returns its result; cudaErrorInvalidValue for other sizes.
template <typename F>
cudaError_t DispatchWordSize(int word_size, F&& f) {
  switch (word_size) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    case 16:
      return f(std::integral_constant<int, 16>{});
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace dpfuzz::cuda_kernels

#endif  // DPFUZZ_CUDA_KERNEL_UTIL_CUH_
