#include "generators/geometry.h"

#include <ATen/ATen.h>
#include <ATen/MemoryOverlap.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "generators/aten_bridge.h"
#include "generators/layout_generator.h"
#include "generators/rng.h"

namespace dpfuzz {
namespace {

using ::testing::ElementsAre;

TEST(GeometryTest, ContiguousStridesTreatSizeZeroAsOne) {
  EXPECT_THAT(ComputeContiguousStrides({2, 3, 4}), ElementsAre(12, 4, 1));
  EXPECT_THAT(ComputeContiguousStrides({2, 0, 4}), ElementsAre(4, 4, 1));
  EXPECT_THAT(ComputeContiguousStrides({}), ElementsAre());
}

TEST(GeometryTest, ChannelsLastStrides) {
  EXPECT_THAT(ComputeChannelsLastStrides2d({2, 3, 4, 5}),
              ElementsAre(60, 1, 15, 3));
  EXPECT_THAT(ComputeChannelsLastStrides3d({2, 3, 4, 5, 6}),
              ElementsAre(360, 1, 90, 18, 3));
}

TEST(GeometryTest, StorageExtent) {
  EXPECT_EQ(ComputeStorageExtent({2, 3}, {1, 2}, 5), 11);
  EXPECT_EQ(ComputeStorageExtent({2, 0}, {1, 2}, 5), 0);
  EXPECT_EQ(ComputeStorageExtent({}, {}, 3), 4);
  EXPECT_EQ(ComputeStorageExtent({4}, {0}, 0), 1);
}

TEST(GeometryTest, ExactOverlapDecidesWhatATenCannot) {
  EXPECT_EQ(ComputeInternalOverlap({3, 3}, {1, 1}), MemOverlap::kTooHard);
  EXPECT_EQ(ComputeExactOverlap({3, 3}, {1, 1}), MemOverlap::kYes);
  // Interleaved but disjoint: {0, 2, 4} + {0, 3}.
  EXPECT_EQ(ComputeInternalOverlap({3, 2}, {2, 3}), MemOverlap::kTooHard);
  EXPECT_EQ(ComputeExactOverlap({3, 2}, {2, 3}), MemOverlap::kNo);
  EXPECT_EQ(ComputeExactOverlap({3, 2}, {2, 3}, /*max_enumerated=*/4),
            MemOverlap::kTooHard);
  EXPECT_EQ(ComputeExactOverlap({4, 1}, {0, 1}), MemOverlap::kYes);
  EXPECT_EQ(ComputeExactOverlap({0, 3}, {0, 0}), MemOverlap::kNo);
}

TEST(GeometryTest, StorageIndicesWalkRowMajor) {
  EXPECT_THAT(ComputeStorageIndices({{2, 3}, {1, 2}, 1}),
              ElementsAre(1, 3, 5, 2, 4, 6));
  EXPECT_THAT(ComputeStorageIndices({{}, {}, 4}), ElementsAre(4));
  EXPECT_THAT(ComputeStorageIndices({{2, 0}, {1, 1}, 0}), ElementsAre());
}

// Every answer of geometry.h against LibTorch's own, on generated layouts of
// every kind (the generator aims at the corner cases: size-0/1 dims with odd
// strides, ambiguous channels_last, overlaps).
TEST(GeometryTest, AgreesWithLibTorchOnGeneratedLayouts) {
  Rng rng(20261122);
  int checked = 0;
  int suggested_channels_last = 0;
  for (int i = 0; i < 12000; ++i) {
    const Dims sizes = GenerateSizes(rng, 5, 4);
    const StridedLayout layout =
        GenerateLayout(sizes, DType::kFloat32, {}, rng).layout;
    at::Tensor storage = at::empty({ComputeStorageExtent(layout) + 1});
    at::Tensor t =
        storage.as_strided(layout.sizes, layout.strides, layout.storage_offset);
    const Dims& z = layout.sizes;
    const Dims& s = layout.strides;
    SCOPED_TRACE(LayoutToString(layout));
    ASSERT_EQ(ComputeIsContiguous(z, s), t.is_contiguous());
    ASSERT_EQ(ComputeIsContiguous(z, s, MemoryFormat::kChannelsLast),
              t.is_contiguous(at::MemoryFormat::ChannelsLast));
    ASSERT_EQ(ComputeIsContiguous(z, s, MemoryFormat::kChannelsLast3d),
              t.is_contiguous(at::MemoryFormat::ChannelsLast3d));
    ASSERT_EQ(ComputeIsNonOverlappingAndDense(z, s),
              t.is_non_overlapping_and_dense());
    ASSERT_EQ(static_cast<int>(ComputeInternalOverlap(z, s)),
              static_cast<int>(at::has_internal_overlap(t)));
    ASSERT_EQ(ToAtenMemoryFormat(ComputeSuggestMemoryFormat(z, s)),
              t.suggest_memory_format());
    suggested_channels_last +=
        ComputeSuggestMemoryFormat(z, s) != MemoryFormat::kContiguous;
    ++checked;
  }
  EXPECT_GE(checked, 10000);
  EXPECT_GE(suggested_channels_last, 300);
}

// The exact overlap check against brute force on LibTorch's side: view an
// arange storage through the layout; it overlaps iff some index repeats.
TEST(GeometryTest, ExactOverlapAgreesWithWritesThroughLibTorch) {
  Rng rng(99);
  int overlapping = 0;
  for (int i = 0; i < 3000; ++i) {
    const StridedLayout layout =
        GenerateLayout(GenerateSizes(rng, 4, 4), DType::kFloat64, {}, rng)
            .layout;
    const int64_t numel = ComputeNumel(layout.sizes);
    at::Tensor storage =
        at::arange(ComputeStorageExtent(layout) + 1, at::kLong);
    at::Tensor t =
        storage.as_strided(layout.sizes, layout.strides, layout.storage_offset);
    const int64_t distinct = std::get<0>(at::_unique(t.reshape({-1}))).numel();
    const bool shared = distinct < numel;
    SCOPED_TRACE(LayoutToString(layout));
    ASSERT_EQ(ComputeExactOverlap(layout.sizes, layout.strides),
              shared ? MemOverlap::kYes : MemOverlap::kNo);
    overlapping += shared;
  }
  EXPECT_GE(overlapping, 100);
}

}  // namespace
}  // namespace dpfuzz
