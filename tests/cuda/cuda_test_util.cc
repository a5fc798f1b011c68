#include "tests/cuda/cuda_test_util.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "generators/geometry.h"

namespace dpfuzz {
namespace {

constexpr int64_t kTailElements = 5;

// A 12-dim view: doubled contiguous strides (a gap after every element),
// with two dims swapped.
StridedLayout TwelveDims() {
  StridedLayout layout;
  layout.sizes = {2, 1, 3, 1, 2, 2, 1, 2, 1, 2, 3, 2};
  layout.strides = ComputeContiguousStrides(layout.sizes);
  for (int64_t& stride : layout.strides) stride *= 2;
  std::swap(layout.sizes[0], layout.sizes[10]);
  std::swap(layout.strides[0], layout.strides[10]);
  layout.storage_offset = 3;
  return layout;
}

}  // namespace

std::vector<StridedLayout> TestLayouts() {
  return {
      {{2, 3, 4}, {12, 4, 1}, 0},               // contiguous
      {{4, 3}, {1, 4}, 0},                      // transposed
      {{3, 4}, {16, 2}, 1},                     // stepped slices, offset
      {{5}, {1}, 7},                            // offset
      {{5}, {3}, 2},                            // 1-d step
      {{3, 4}, {0, 1}, 2},                      // expanded rows
      {{2, 3}, {0, 0}, 1},                      // expanded scalar
      {{}, {}, 5},                              // 0-dim, offset
      {{}, {}, 0},                              // 0-dim
      {{0, 3}, {3, 1}, 0},                      // empty
      {{3, 0}, {7, 100}, 4},                    // empty, odd strides
      {{1, 5, 1}, {999, 2, 77}, 3},             // size-1 dims, odd strides
      {{2, 3, 4, 5}, {60, 1, 15, 3}, 0},        // channels_last
      {{2, 3, 2, 2, 2}, {24, 1, 12, 6, 3}, 1},  // channels_last_3d
      {{3, 2}, {2, 3}, 0},                      // interleaved, no overlap
      {{3, 3}, {1, 1}, 0},                      // overlapping windows
      {{4, 3}, {2, 1}, 1},                      // unfold, step < size
      TwelveDims(),
      {{33, 65}, {1, 40}, 5},      // several blocks
      {{700, 800}, {1, 1400}, 3},  // more than one grid pass
  };
}

int64_t TestStorageElements(const StridedLayout& layout) {
  return std::max(ComputeStorageExtent(layout), layout.storage_offset) +
         kTailElements;
}

std::vector<uint8_t> RandomBytes(int64_t n, std::mt19937_64& rng) {
  std::vector<uint8_t> bytes(static_cast<size_t>(n));
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

std::vector<uint8_t> HostGather(const std::vector<uint8_t>& storage,
                                const StridedLayout& layout,
                                int64_t element_size) {
  std::vector<uint8_t> dense;
  for (const int64_t index : ComputeStorageIndices(layout)) {
    const auto begin = storage.begin() + index * element_size;
    dense.insert(dense.end(), begin, begin + element_size);
  }
  return dense;
}

std::vector<uint8_t> HostScatter(std::vector<uint8_t> storage,
                                 const std::vector<uint8_t>& dense,
                                 const StridedLayout& layout,
                                 int64_t element_size) {
  int64_t i = 0;
  for (const int64_t index : ComputeStorageIndices(layout)) {
    std::memcpy(storage.data() + index * element_size,
                dense.data() + i++ * element_size, element_size);
  }
  return storage;
}

std::vector<bool> HostViewMask(const StridedLayout& layout,
                               int64_t storage_elements) {
  std::vector<bool> mask(static_cast<size_t>(storage_elements), false);
  for (const int64_t index : ComputeStorageIndices(layout)) mask[index] = true;
  return mask;
}

absl::StatusOr<ShiftedBuffer> UploadShifted(const std::vector<uint8_t>& bytes,
                                            int64_t shift) {
  ShiftedBuffer shifted;
  shifted.shift = shift;
  DPFUZZ_ASSIGN_OR_RETURN(
      shifted.buffer,
      DeviceBuffer::Allocate(static_cast<int64_t>(bytes.size()) + shift));
  if (!bytes.empty()) {
    DPFUZZ_RETURN_IF_ERROR(
        CudaStatus(cudaMemcpy(shifted.data(), bytes.data(), bytes.size(),
                              cudaMemcpyHostToDevice),
                   "test upload"));
  }
  return shifted;
}

absl::StatusOr<std::vector<uint8_t>> Download(const void* data, int64_t bytes) {
  std::vector<uint8_t> host(static_cast<size_t>(bytes));
  if (bytes > 0) {
    DPFUZZ_RETURN_IF_ERROR(CudaStatus(
        cudaMemcpy(host.data(), data, host.size(), cudaMemcpyDeviceToHost),
        "test download"));
  }
  return host;
}

}  // namespace dpfuzz
