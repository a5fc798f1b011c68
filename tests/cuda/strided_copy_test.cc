#include "cuda/strided_copy.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cuda/device_buffer.h"
#include "generators/geometry.h"
#include "tests/cuda/cuda_test_util.h"

namespace dpfuzz {
namespace {

// Byte shifts of the storage and dense pointers from an aligned address:
// they force words narrower than the element (1: bytes; 4 and 8: 16-byte
// elements moved as 4- or 8-byte words).
constexpr int64_t kShifts[] = {0, 1, 4, 8};

// Parameter: the element size.
class StridedCopyTest : public GpuTestWithParam<int64_t> {
 protected:
  int64_t element_size() const { return GetParam(); }
};

TEST_P(StridedCopyTest, GatherMatchesHostWalk) {
  std::mt19937_64 rng(element_size());
  for (const int64_t shift : kShifts) {
    for (const StridedLayout& layout : TestLayouts()) {
      SCOPED_TRACE(::testing::Message()
                   << LayoutToString(layout) << " shift " << shift);
      const int64_t numel = ComputeNumel(layout.sizes);
      const std::vector<uint8_t> storage =
          RandomBytes(TestStorageElements(layout) * element_size(), rng);
      DPFUZZ_ASSERT_OK_AND_ASSIGN(ShiftedBuffer device_storage,
                                  UploadShifted(storage, shift));
      // Filled with a value no gathered byte is likely to keep everywhere.
      const std::vector<uint8_t> before(numel * element_size(), 0xEE);
      DPFUZZ_ASSERT_OK_AND_ASSIGN(ShiftedBuffer dense,
                                  UploadShifted(before, shift));
      const DeviceView view{device_storage.data(),
                            static_cast<int64_t>(storage.size()),
                            element_size(), layout};
      DPFUZZ_ASSERT_OK(GatherStrided(view, dense.data()));
      DPFUZZ_ASSERT_OK_AND_ASSIGN(
          const std::vector<uint8_t> gathered,
          Download(dense.data(), numel * element_size()));
      EXPECT_EQ(gathered, HostGather(storage, layout, element_size()));
      // The source is only read.
      DPFUZZ_ASSERT_OK_AND_ASSIGN(
          const std::vector<uint8_t> after,
          Download(device_storage.data(), storage.size()));
      EXPECT_EQ(after, storage);
    }
  }
}

TEST_P(StridedCopyTest, ScatterWritesExactlyTheViewsElements) {
  std::mt19937_64 rng(element_size() + 1);
  int scattered = 0;
  for (const int64_t shift : kShifts) {
    for (const StridedLayout& layout : TestLayouts()) {
      if (ComputeExactOverlap(layout.sizes, layout.strides) !=
          MemOverlap::kNo) {
        continue;
      }
      SCOPED_TRACE(::testing::Message()
                   << LayoutToString(layout) << " shift " << shift);
      ++scattered;
      const int64_t numel = ComputeNumel(layout.sizes);
      const std::vector<uint8_t> storage =
          RandomBytes(TestStorageElements(layout) * element_size(), rng);
      const std::vector<uint8_t> dense =
          RandomBytes(numel * element_size(), rng);
      DPFUZZ_ASSERT_OK_AND_ASSIGN(ShiftedBuffer device_storage,
                                  UploadShifted(storage, shift));
      DPFUZZ_ASSERT_OK_AND_ASSIGN(ShiftedBuffer device_dense,
                                  UploadShifted(dense, shift));
      const DeviceView view{device_storage.data(),
                            static_cast<int64_t>(storage.size()),
                            element_size(), layout};
      DPFUZZ_ASSERT_OK(ScatterStrided(device_dense.data(), view));
      DPFUZZ_ASSERT_OK_AND_ASSIGN(
          const std::vector<uint8_t> after,
          Download(device_storage.data(), storage.size()));
      // Gaps and margins keep their bytes; the view holds `dense`.
      EXPECT_EQ(after, HostScatter(storage, dense, layout, element_size()));
    }
  }
  EXPECT_GE(scattered, 4 * 12);
}

TEST_P(StridedCopyTest, GatherThenScatterRoundTrips) {
  std::mt19937_64 rng(element_size() + 2);
  for (const int64_t shift : kShifts) {
    SCOPED_TRACE(::testing::Message() << "shift " << shift);
    const StridedLayout layout{{6, 5, 4}, {2, 60, 12}, 3};  // gapped, permuted
    const std::vector<uint8_t> source =
        RandomBytes(TestStorageElements(layout) * element_size(), rng);
    const std::vector<uint8_t> target(source.size(), 0);
    DPFUZZ_ASSERT_OK_AND_ASSIGN(ShiftedBuffer device_source,
                                UploadShifted(source, shift));
    DPFUZZ_ASSERT_OK_AND_ASSIGN(ShiftedBuffer device_target,
                                UploadShifted(target, shift));
    DPFUZZ_ASSERT_OK_AND_ASSIGN(
        ShiftedBuffer dense,
        UploadShifted(std::vector<uint8_t>(120 * element_size()), shift));
    const auto bytes = static_cast<int64_t>(source.size());
    DPFUZZ_ASSERT_OK(GatherStrided(
        {device_source.data(), bytes, element_size(), layout}, dense.data()));
    DPFUZZ_ASSERT_OK(ScatterStrided(
        dense.data(), {device_target.data(), bytes, element_size(), layout}));
    DPFUZZ_ASSERT_OK_AND_ASSIGN(const std::vector<uint8_t> after,
                                Download(device_target.data(), bytes));
    const std::vector<uint8_t> expected =
        HostScatter(target, HostGather(source, layout, element_size()), layout,
                    element_size());
    EXPECT_EQ(after, expected);
    EXPECT_NE(after, target);
  }
}

INSTANTIATE_TEST_SUITE_P(ElementSizes, StridedCopyTest,
                         ::testing::Values(1, 2, 4, 8, 16),
                         [](const ::testing::TestParamInfo<int64_t>& info) {
                           return "bytes" + std::to_string(info.param);
                         });

using StridedCopyDeviceTest = GpuTest;

TEST_F(StridedCopyDeviceTest, RejectsHostMemory) {
  std::vector<uint8_t> storage(64);
  DPFUZZ_ASSERT_OK_AND_ASSIGN(DeviceBuffer dense, DeviceBuffer::Allocate(64));
  const DeviceView view{storage.data(), 64, 4, {{4}, {1}, 0}};
  const absl::Status gather = GatherStrided(view, dense.data());
  EXPECT_EQ(gather.code(), absl::StatusCode::kInvalidArgument) << gather;
  EXPECT_NE(gather.message().find("host memory"), absl::string_view::npos)
      << gather;
  const absl::Status scatter = ScatterStrided(dense.data(), view);
  EXPECT_EQ(scatter.code(), absl::StatusCode::kInvalidArgument) << scatter;
}

}  // namespace
}  // namespace dpfuzz
