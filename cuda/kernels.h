// The launch boundary between dpfuzz's device-side helpers and their kernels.
//
// The host API (cuda/*.h, cuda/*.cc) is compiled by the host compiler with
// Abseil and validates everything; the kernels (cuda/*.cu) are compiled by
// nvcc and see only what this header declares: trivially copyable argument
// structs of raw device pointers, sizes and strides in elements, and launch
// functions that return the launch's cudaError_t. Nothing here includes
// Abseil or LibTorch, so the kernels compile with any nvcc whatever LibTorch
// dpfuzz is built against, and they never use ATen's copy kernels (see Note
// [Reference copies] in cuda/strided_copy.h).
//
// Every launcher trusts its arguments (the host API has checked them: numel
// > 0, every storage index in bounds, words aligned), launches on the
// legacy default stream and returns without synchronizing.

#ifndef DPFUZZ_CUDA_KERNELS_H_
#define DPFUZZ_CUDA_KERNELS_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dpfuzz::cuda_kernels {

// The most dims a device helper accepts; more is an error, not a truncation.
inline constexpr int kMaxDims = 12;

// A strided view over a storage, by value: element i of the view (row-major,
// last dim fastest) is storage element storage_offset + sum(index[d] *
// strides[d]). Entries at and beyond `dim` are unused.
struct ViewGeometry {
  int64_t numel = 0;
  int64_t storage_offset = 0;
  int32_t dim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
};

#if defined(__CUDACC__)
#define DPFUZZ_HOST_DEVICE __host__ __device__
#else
#define DPFUZZ_HOST_DEVICE
#endif

// Storage element of the view's `linear`-th element (row-major, last dim
// fastest); needs linear < view.numel, so no size is 0. The walk of every
// kernel, callable on the host so that tests check it against
// generators/geometry.h's without a GPU.
DPFUZZ_HOST_DEVICE inline int64_t StorageIndex(const ViewGeometry& view,
                                               int64_t linear) {
  int64_t index = view.storage_offset;
  for (int d = view.dim - 1; d >= 0; --d) {
    const int64_t size = view.sizes[d];
    index += (linear % size) * view.strides[d];
    linear /= size;
  }
  return index;
}

// dense[i] = storage[StorageIndex(view, i)] for each of the view's numel
// elements of element_size bytes, moved as words of word_size bytes (1, 2,
// 4, 8 or 16, dividing element_size and both pointers' alignment).
// `storage` is the address of storage element 0, not of the view's first.
cudaError_t LaunchGather(const void* storage, void* dense,
                         const ViewGeometry& view, int element_size,
                         int word_size);

// storage[StorageIndex(view, i)] = dense[i]; the view must not overlap
// itself (two threads would write one element).
cudaError_t LaunchScatter(const void* dense, void* storage,
                          const ViewGeometry& view, int element_size,
                          int word_size);

// How the comparison reads an element.
enum class ValueKind : uint8_t {
  kBytes,       // Integers and bool: element_size bytes, compared exactly.
  kFloat16,     // IEEE half.
  kBFloat16,    // The top 16 bits of a float32.
  kFloat32,     // IEEE single.
  kFloat64,     // IEEE double.
  kComplex64,   // (real, imag) float32 pair.
  kComplex128,  // (real, imag) float64 pair.
};

struct CompareArgs {
  const void* actual = nullptr;
  const void* expected = nullptr;
  int64_t numel = 0;
  int element_size = 0;
  ValueKind kind = ValueKind::kBytes;
  bool tolerance = false;  // false: bitwise; true: |a - e| <= atol + rtol|e|.
  bool equal_nan = true;   // NaN equals NaN (any payloads) at one index.
  double atol = 0;
  double rtol = 0;
};

// Filled by LaunchCompare through atomics; the caller initializes it with
// first_mismatch = ~0ull and everything else 0.
struct CompareCounters {
  unsigned long long first_mismatch;  // Lowest differing index, or ~0ull.
  unsigned long long mismatches;
  unsigned long long nan_actual;    // As torch.isnan: a complex with either
  unsigned long long nan_expected;  // part NaN counts.
  unsigned long long inf_actual;    // As torch.isinf: either part infinite.
  unsigned long long inf_expected;
  // Bits of the largest |actual - expected| (a non-negative double, whose
  // bits order as its values) over elements finite on both sides.
  unsigned long long max_abs_diff_bits;
};

// Compares args.numel dense elements; `counters` is device memory.
cudaError_t LaunchCompare(const CompareArgs& args, CompareCounters* counters);

// mask[StorageIndex(view, i)] = 1 for every element of the view; mask holds
// one byte per storage element.
cudaError_t LaunchMarkView(uint8_t* mask, const ViewGeometry& view);

inline constexpr int kMaxPatternBytes = 16;

// What every storage byte outside a view should hold: snapshot[b] when
// `snapshot` is set, else pattern[b % pattern_size].
struct OutsideViewArgs {
  const uint8_t* storage = nullptr;
  int64_t storage_bytes = 0;
  const uint8_t* mask = nullptr;  // LaunchMarkView's, 1 inside the view.
  int element_size = 0;
  const uint8_t* snapshot = nullptr;
  uint8_t pattern[kMaxPatternBytes] = {};
  int pattern_size = 0;
};

// The caller initializes first_changed = ~0ull and changed = 0.
struct OutsideViewCounters {
  unsigned long long first_changed;  // Lowest changed byte, or ~0ull.
  unsigned long long changed;        // Changed bytes outside the view.
};

cudaError_t LaunchFindChangedOutsideView(const OutsideViewArgs& args,
                                         OutsideViewCounters* counters);

}  // namespace dpfuzz::cuda_kernels

#endif  // DPFUZZ_CUDA_KERNELS_H_
