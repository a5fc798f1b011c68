// What the tests of cuda/ share: fixtures that skip without a CUDA device,
// the layouts every kernel is checked on, host references for strided
// walks, and device buffers made from host bytes.
//
// Skipping: a test derived from GpuTest calls GTEST_SKIP() in SetUp when
// CheckCudaDevice() fails (no device, no driver, a driver too old for this
// CUDA runtime), so its body never runs; CTest reports it as skipped
// through the SKIP_REGULAR_EXPRESSION "\[  SKIPPED \]" that
// gtest_discover_tests gives every test it registers.

#ifndef DPFUZZ_TESTS_CUDA_CUDA_TEST_UTIL_H_
#define DPFUZZ_TESTS_CUDA_CUDA_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "common/status_macros.h"
#include "cuda/cuda_status.h"
#include "cuda/device_buffer.h"
#include "generators/strided_layout.h"

namespace dpfuzz {

template <typename Base = ::testing::Test>
class WithCudaDevice : public Base {
 protected:
  void SetUp() override {
    const absl::Status device = CheckCudaDevice();
    if (!device.ok()) GTEST_SKIP() << device.message();
  }
};

using GpuTest = WithCudaDevice<>;
template <typename Param>
using GpuTestWithParam = WithCudaDevice<::testing::TestWithParam<Param>>;

// `lhs = *expr`, or a fatal failure printing the status.
#define DPFUZZ_ASSERT_OK_AND_ASSIGN(lhs, expr) \
  DPFUZZ_INTERNAL_ASSERT_OK_AND_ASSIGN(        \
      DPFUZZ_INTERNAL_CONCAT(dpfuzz_test_statusor_, __LINE__), lhs, expr)
#define DPFUZZ_INTERNAL_ASSERT_OK_AND_ASSIGN(statusor, lhs, expr) \
  auto statusor = (expr);                                         \
  ASSERT_TRUE(statusor.ok()) << statusor.status();                \
  lhs = *std::move(statusor)

#define DPFUZZ_ASSERT_OK(expr)                          \
  do {                                                  \
    const absl::Status dpfuzz_test_s_ = (expr);         \
    ASSERT_TRUE(dpfuzz_test_s_.ok()) << dpfuzz_test_s_; \
  } while (false)

// Contiguous, transposed, stepped, offset, expanded, overlapping,
// interleaved, channels_last (2d, 3d), 0-dim, empty, size-1 dims with odd
// strides, 12 dims, and views of more elements than one grid of threads
// covers in one pass (see kMaxBlocks in cuda/kernel_util.cuh).
std::vector<StridedLayout> TestLayouts();

// Storage elements a test allocates for `layout`: its extent plus a margin
// after it, so that writes past the view can show.
int64_t TestStorageElements(const StridedLayout& layout);

std::vector<uint8_t> RandomBytes(int64_t n, std::mt19937_64& rng);

// The view's elements (element_size bytes each) in row-major order, read
// from `storage` by generators/geometry.h's host walk.
std::vector<uint8_t> HostGather(const std::vector<uint8_t>& storage,
                                const StridedLayout& layout,
                                int64_t element_size);

// `storage` with the view's elements replaced by `dense`.
std::vector<uint8_t> HostScatter(std::vector<uint8_t> storage,
                                 const std::vector<uint8_t>& dense,
                                 const StridedLayout& layout,
                                 int64_t element_size);

// One flag per storage element: true where the view has an element.
std::vector<bool> HostViewMask(const StridedLayout& layout,
                               int64_t storage_elements);

// A device buffer holding `bytes` at a device address `shift` bytes past a
// 256-byte aligned allocation (shift < 16), to test unaligned pointers.
struct ShiftedBuffer {
  DeviceBuffer buffer;
  int64_t shift = 0;
  void* data() const { return static_cast<uint8_t*>(buffer.data()) + shift; }
};
absl::StatusOr<ShiftedBuffer> UploadShifted(const std::vector<uint8_t>& bytes,
                                            int64_t shift);

// `bytes` bytes at device address `data`, copied to the host.
absl::StatusOr<std::vector<uint8_t>> Download(const void* data, int64_t bytes);

}  // namespace dpfuzz

#endif  // DPFUZZ_TESTS_CUDA_CUDA_TEST_UTIL_H_
