#include "cuda/storage_integrity.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "cuda/device_buffer.h"
#include "generators/geometry.h"
#include "generators/poison.h"
#include "tests/cuda/cuda_test_util.h"

namespace dpfuzz {
namespace {

// The region of storage element `element` for a view, from the host walk.
OutsideRegion HostRegion(const StridedLayout& layout, int64_t element) {
  const std::vector<int64_t> indices = ComputeStorageIndices(layout);
  if (element < layout.storage_offset) return OutsideRegion::kMarginBefore;
  if (indices.empty() ||
      element > *std::max_element(indices.begin(), indices.end())) {
    return OutsideRegion::kMarginAfter;
  }
  return OutsideRegion::kGap;
}

// The storage bytes outside the view (all of them for an empty view).
std::vector<int64_t> OutsideBytes(const StridedLayout& layout,
                                  int64_t storage_bytes, int64_t element_size) {
  const std::vector<bool> inside =
      HostViewMask(layout, (storage_bytes + element_size - 1) / element_size);
  std::vector<int64_t> outside;
  for (int64_t b = 0; b < storage_bytes; ++b) {
    if (!inside[b / element_size]) outside.push_back(b);
  }
  return outside;
}

class StorageIntegrityTest : public GpuTestWithParam<int64_t> {
 protected:
  int64_t element_size() const { return GetParam(); }
};

// Poison everywhere, random values in the view: intact. Then bytes outside
// the view are changed a few at a time: the lowest is reported, with its
// region and both values, and all are counted; changes inside the view
// are never reported.
TEST_P(StorageIntegrityTest, FindsTheFirstChangeOutsideTheViewAgainstPoison) {
  std::mt19937_64 rng(element_size());
  const std::vector<uint8_t> pattern = RandomBytes(element_size(), rng);
  for (const StridedLayout& layout : TestLayouts()) {
    SCOPED_TRACE(LayoutToString(layout));
    // A partial element at the end: its bytes are outside every view.
    const int64_t bytes =
        TestStorageElements(layout) * element_size() + element_size() / 2;
    std::vector<uint8_t> storage(bytes);
    for (int64_t b = 0; b < bytes; ++b) {
      storage[b] = pattern[b % element_size()];
    }
    const int64_t numel = ComputeNumel(layout.sizes);
    storage = HostScatter(storage, RandomBytes(numel * element_size(), rng),
                          layout, element_size());
    DPFUZZ_ASSERT_OK_AND_ASSIGN(DeviceBuffer device,
                                DeviceBuffer::FromHost(storage));
    const DeviceView view{device.data(), bytes, element_size(), layout};
    DPFUZZ_ASSERT_OK_AND_ASSIGN(const OutsideViewReport clean,
                                CheckOutsideViewAgainstPattern(view, pattern));
    EXPECT_TRUE(clean.intact());
    EXPECT_EQ(clean.first_byte, -1);

    const std::vector<int64_t> outside =
        OutsideBytes(layout, bytes, element_size());
    ASSERT_FALSE(outside.empty());
    for (int round = 0; round < 3; ++round) {
      std::vector<uint8_t> changed = storage;
      std::vector<int64_t> picked;
      for (int k = 0; k < 4; ++k) {
        picked.push_back(outside[rng() % outside.size()]);
      }
      for (const int64_t b : picked) changed[b] = ~pattern[b % element_size()];
      // Inside the view, anything goes.
      if (numel > 0) {
        changed = HostScatter(changed, RandomBytes(numel * element_size(), rng),
                              layout, element_size());
      }
      DPFUZZ_ASSERT_OK(device.CopyFromHost(changed.data(), bytes));
      DPFUZZ_ASSERT_OK_AND_ASSIGN(
          const OutsideViewReport r,
          CheckOutsideViewAgainstPattern(view, pattern));
      std::sort(picked.begin(), picked.end());
      picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
      const int64_t first = picked.front();
      EXPECT_EQ(r.changed_bytes, static_cast<int64_t>(picked.size()));
      EXPECT_EQ(r.first_byte, first);
      EXPECT_EQ(r.first_element, first / element_size());
      EXPECT_EQ(r.region, HostRegion(layout, first / element_size()));
      EXPECT_EQ(r.expected, pattern[first % element_size()]);
      EXPECT_EQ(r.actual,
                static_cast<uint8_t>(~pattern[first % element_size()]));
    }
  }
}

// Against a snapshot of random bytes: the same, with the snapshot's byte as
// the expected one.
TEST_P(StorageIntegrityTest, FindsTheFirstChangeAgainstASnapshot) {
  std::mt19937_64 rng(element_size() + 100);
  for (const StridedLayout& layout : TestLayouts()) {
    SCOPED_TRACE(LayoutToString(layout));
    const int64_t bytes = TestStorageElements(layout) * element_size();
    const std::vector<uint8_t> before = RandomBytes(bytes, rng);
    DPFUZZ_ASSERT_OK_AND_ASSIGN(DeviceBuffer snapshot,
                                DeviceBuffer::FromHost(before));
    const int64_t numel = ComputeNumel(layout.sizes);
    std::vector<uint8_t> after =
        HostScatter(before, RandomBytes(numel * element_size(), rng), layout,
                    element_size());
    DPFUZZ_ASSERT_OK_AND_ASSIGN(DeviceBuffer storage,
                                DeviceBuffer::FromHost(after));
    const DeviceView view{storage.data(), bytes, element_size(), layout};
    DPFUZZ_ASSERT_OK_AND_ASSIGN(
        const OutsideViewReport clean,
        CheckOutsideViewAgainstSnapshot(view, snapshot.data()));
    EXPECT_TRUE(clean.intact());

    const std::vector<int64_t> outside =
        OutsideBytes(layout, bytes, element_size());
    const int64_t b = outside[rng() % outside.size()];
    after[b] ^= 0x5A;
    DPFUZZ_ASSERT_OK(storage.CopyFromHost(after.data(), bytes));
    DPFUZZ_ASSERT_OK_AND_ASSIGN(
        const OutsideViewReport r,
        CheckOutsideViewAgainstSnapshot(view, snapshot.data()));
    EXPECT_EQ(r.changed_bytes, 1);
    EXPECT_EQ(r.first_byte, b);
    EXPECT_EQ(r.region, HostRegion(layout, b / element_size()));
    EXPECT_EQ(r.expected, before[b]);
    EXPECT_EQ(r.actual, after[b]);
  }
}

INSTANTIATE_TEST_SUITE_P(ElementSizes, StorageIntegrityTest,
                         ::testing::Values(1, 2, 4, 8, 16),
                         [](const ::testing::TestParamInfo<int64_t>& info) {
                           return "bytes" + std::to_string(info.param);
                         });

using StorageIntegrityDeviceTest = GpuTest;

// Each region named where it is: margin before, gap, margin after.
TEST_F(StorageIntegrityDeviceTest, NamesTheRegion) {
  // [2]@[2]+1 over 6 float32 elements: 0 before, 2 gap, 4 and 5 after.
  const std::vector<uint8_t> poison = PoisonElement(DType::kFloat32);
  std::vector<uint8_t> storage;
  for (int e = 0; e < 6; ++e) {
    storage.insert(storage.end(), poison.begin(), poison.end());
  }
  const StridedLayout layout{{2}, {2}, 1};
  for (const auto& [element, region] :
       {std::pair{0, OutsideRegion::kMarginBefore},
        std::pair{2, OutsideRegion::kGap},
        std::pair{5, OutsideRegion::kMarginAfter}}) {
    std::vector<uint8_t> changed = storage;
    changed[element * 4 + 3] = 0;
    DPFUZZ_ASSERT_OK_AND_ASSIGN(DeviceBuffer device,
                                DeviceBuffer::FromHost(changed));
    DPFUZZ_ASSERT_OK_AND_ASSIGN(
        const OutsideViewReport r,
        CheckOutsideViewAgainstPattern({device.data(), 24, 4, layout}, poison));
    EXPECT_EQ(r.first_byte, element * 4 + 3);
    EXPECT_EQ(r.region, region);
  }
}

TEST_F(StorageIntegrityDeviceTest,
       AViewCoveringTheStorageLeavesNothingOutside) {
  std::mt19937_64 rng(7);
  const std::vector<uint8_t> storage = RandomBytes(48, rng);
  DPFUZZ_ASSERT_OK_AND_ASSIGN(DeviceBuffer device,
                              DeviceBuffer::FromHost(storage));
  const DeviceView view{device.data(), 48, 4, {{3, 4}, {1, 3}, 0}};
  DPFUZZ_ASSERT_OK_AND_ASSIGN(
      const OutsideViewReport r,
      CheckOutsideViewAgainstPattern(view, std::vector<uint8_t>{0xA5}));
  EXPECT_TRUE(r.intact());
}

}  // namespace
}  // namespace dpfuzz
