#include "cuda/device_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "generators/geometry.h"
#include "tests/cuda/cuda_test_util.h"

namespace dpfuzz {
namespace {

// Never dereferenced: geometry checks make no CUDA call.
void* const kStorage = reinterpret_cast<void*>(uintptr_t{1} << 40);

DeviceView View(StridedLayout layout, int64_t element_size = 4,
                int64_t storage_bytes = 1 << 20) {
  return {kStorage, storage_bytes, element_size, std::move(layout)};
}

void ExpectInvalid(const DeviceView& view, const std::string& needle) {
  const absl::StatusOr<cuda_kernels::ViewGeometry> g = MakeViewGeometry(view);
  ASSERT_FALSE(g.ok()) << DeviceViewToString(view);
  EXPECT_EQ(g.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(g.status().message().find(needle), absl::string_view::npos)
      << g.status();
  EXPECT_NE(g.status().message().find(LayoutToString(view.layout)),
            absl::string_view::npos)
      << g.status();
}

TEST(DeviceViewTest, KernelGeometryCopiesTheLayout) {
  const absl::StatusOr<cuda_kernels::ViewGeometry> g =
      MakeViewGeometry(View({{2, 3, 4}, {1, 8, 2}, 5}));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->dim, 3);
  EXPECT_EQ(g->numel, 24);
  EXPECT_EQ(g->storage_offset, 5);
  EXPECT_EQ(std::vector<int64_t>(g->sizes, g->sizes + 3),
            (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(std::vector<int64_t>(g->strides, g->strides + 3),
            (std::vector<int64_t>{1, 8, 2}));
}

TEST(DeviceViewTest, AcceptsWhatLibTorchAllows) {
  const std::vector<StridedLayout> layouts = {
      {{}, {}, 3},                      // 0-dim
      {{3, 4}, {0, 1}, 0},              // expanded
      {{3, 3}, {1, 1}, 0},              // overlapping
      {{0, 5}, {1000000, 1}, 1 << 30},  // empty, far offset
      {Dims(12, 2), ComputeContiguousStrides(Dims(12, 2)), 0},  // 12 dims
  };
  for (const StridedLayout& layout : layouts) {
    const absl::StatusOr<cuda_kernels::ViewGeometry> g =
        MakeViewGeometry(View(layout, 4, 1 << 16));
    EXPECT_TRUE(g.ok()) << g.status();
  }
}

TEST(DeviceViewTest, StorageMustHoldTheLastElementExactly) {
  // [2, 3]@[1, 2]+4: last element 4 + 1 + 4 = 9, so 10 elements.
  const StridedLayout layout{{2, 3}, {1, 2}, 4};
  EXPECT_TRUE(MakeViewGeometry(View(layout, 8, 80)).ok());
  ExpectInvalid(View(layout, 8, 79), "up to 9");
}

TEST(DeviceViewTest, RejectsWhatTheKernelsCannotTake) {
  ExpectInvalid(View({{2}, {1}, 0}, 3), "element size 3");
  ExpectInvalid(View({{2}, {1}, 0}, 32), "element size 32");
  ExpectInvalid(View({{2, 3}, {1}, 0}), "1 strides for 2 sizes");
  ExpectInvalid(View({Dims(13, 1), Dims(13, 1), 0}), "13 dims");
  ExpectInvalid(View({{-1}, {1}, 0}), "size -1");
  ExpectInvalid(View({{4}, {-1}, 3}), "stride -1 of dim 0 is negative");
  ExpectInvalid(View({{4}, {1}, -1}), "negative storage offset");
  ExpectInvalid(View({{4}, {1}, 0}, 4, -4), "negative storage offset");
  const int64_t big = int64_t{1} << 40;
  ExpectInvalid(View({{big, big}, {1, 1}, 0}), "numel overflows");
  ExpectInvalid(View({{int64_t{1} << 60}, {1}, 0}, 16),
                "numel * element size overflows");
  ExpectInvalid(View({{2, 2}, {int64_t{1} << 62, int64_t{1} << 62}, 0}),
                "storage extent overflows");
  ExpectInvalid({nullptr, 64, 4, {{2}, {1}, 0}}, "storage is null");
}

TEST(DeviceViewTest, LastStorageIndexIsTheLargestTheWalkVisits) {
  const std::vector<StridedLayout> layouts = {
      {{2, 3}, {1, 2}, 4}, {{}, {}, 7},   {{4, 1, 3}, {0, 9, 5}, 2},
      {{3, 0}, {7, 1}, 6}, {{5}, {3}, 0},
  };
  for (const StridedLayout& layout : layouts) {
    const absl::StatusOr<cuda_kernels::ViewGeometry> g =
        MakeViewGeometry(View(layout));
    ASSERT_TRUE(g.ok()) << g.status();
    const std::vector<int64_t> indices = ComputeStorageIndices(layout);
    const int64_t expected =
        indices.empty() ? layout.storage_offset - 1
                        : *std::max_element(indices.begin(), indices.end());
    EXPECT_EQ(LastStorageIndex(*g), expected) << layout;
  }
}

// The kernels' walk (cuda_kernels::StorageIndex, run here on the host)
// visits the storage elements generators/geometry.h's odometer visits, in
// the same order, on every test layout.
TEST(DeviceViewTest, KernelWalkMatchesTheHostWalk) {
  for (const StridedLayout& layout : TestLayouts()) {
    const absl::StatusOr<cuda_kernels::ViewGeometry> g =
        MakeViewGeometry(View(layout, 1, TestStorageElements(layout)));
    ASSERT_TRUE(g.ok()) << g.status();
    const std::vector<int64_t> expected = ComputeStorageIndices(layout);
    ASSERT_EQ(g->numel, static_cast<int64_t>(expected.size())) << layout;
    for (int64_t i = 0; i < g->numel; ++i) {
      ASSERT_EQ(cuda_kernels::StorageIndex(*g, i), expected[i])
          << layout << " element " << i;
    }
  }
}

TEST(DeviceViewTest, PrintsLayoutElementSizeAndStorage) {
  EXPECT_EQ(DeviceViewToString(View({{2, 3}, {1, 2}, 4}, 8, 128)),
            "[2, 3]@[1, 2]+4 (8-byte elements, 128-byte storage)");
}

}  // namespace
}  // namespace dpfuzz
