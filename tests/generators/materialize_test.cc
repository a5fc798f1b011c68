#include "generators/materialize.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "generators/aten_bridge.h"
#include "generators/geometry.h"
#include "generators/layout_generator.h"
#include "generators/poison.h"
#include "generators/values.h"

namespace dpfuzz {
namespace {

using ::testing::HasSubstr;

class MaterializeTest : public ::testing::TestWithParam<DType> {};

// Logical values survive bit for bit, the geometry is the spec's, and every
// storage element outside the view holds poison, for every dtype and on
// layouts of every kind.
TEST_P(MaterializeTest, PreservesValuesAndPoisonsGaps) {
  const DType dtype = GetParam();
  Rng rng(static_cast<uint64_t>(dtype) + 100);
  LayoutOptions options;
  options.allow_overlap = false;  // Overlap: see the test below.
  int gapped = 0;
  for (int i = 0; i < 300; ++i) {
    TensorSpec spec =
        GenerateTensorSpec(GenerateSizes(rng, 4, 4), dtype, options, rng);
    spec.values.specials = kAllSpecials;
    SCOPED_TRACE(TensorSpecToString(spec));
    absl::StatusOr<MaterializedTensor> m = Materialize(spec);
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_EQ(m->tensor.scalar_type(), ToScalarType(dtype));
    ASSERT_EQ(LayoutOf(m->tensor), spec.layout);
    const std::vector<uint8_t> values =
        GenerateValues(spec.values, dtype, spec.layout.sizes);
    ASSERT_EQ(ReadLogicalBytes(m->tensor), values);
    EXPECT_TRUE(CheckStorageIntact(spec, m->storage).ok());
    // Independent of dpfuzz's byte walk: ATen's own contiguous() of the
    // view holds the same bits.
    at::Tensor dense = m->tensor.contiguous();
    ASSERT_EQ(0, std::memcmp(dense.data_ptr(), values.data(), values.size()));
    // Every storage element the view does not address is poison.
    const std::vector<uint8_t> storage = ReadStorageBytes(m->storage);
    std::vector<bool> addressed(storage.size() / ElementSize(dtype), false);
    for (int64_t index : ComputeStorageIndices(spec.layout))
      addressed[index] = true;
    int64_t poisoned = 0;
    for (size_t e = 0; e < addressed.size(); ++e) {
      if (!addressed[e]) {
        ASSERT_TRUE(IsPoison(dtype, storage.data() + e * ElementSize(dtype)))
            << e;
        ++poisoned;
      }
    }
    // An empty view needs no storage, so only the tail margin is there.
    const int64_t margins =
        kTailMargin + (spec.numel() > 0 ? spec.layout.storage_offset : 0);
    EXPECT_GE(poisoned, margins);
    gapped += poisoned > margins;
  }
  EXPECT_GE(gapped, 20);
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, MaterializeTest,
                         ::testing::ValuesIn(AllDTypes()),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(DTypeName(info.param));
                         });

TEST(MaterializeCheckTest, DetectsWritesOutsideTheView) {
  TensorSpec spec;
  spec.layout = {{2, 3}, {6, 2}, 2};  // Gaps between and after rows.
  absl::StatusOr<MaterializedTensor> m = Materialize(spec);
  ASSERT_TRUE(m.ok());
  ASSERT_TRUE(CheckStorageIntact(spec, m->storage).ok());
  // Writes through the view are fine.
  m->tensor.fill_(1);
  EXPECT_TRUE(CheckStorageIntact(spec, m->storage).ok());
  // A write into a gap is not.
  m->storage[3].fill_(7);
  absl::Status gap = CheckStorageIntact(spec, m->storage);
  EXPECT_THAT(std::string(gap.message()),
              HasSubstr("storage[3], in a gap between elements"));
  m->storage[0].fill_(7);
  EXPECT_THAT(std::string(CheckStorageIntact(spec, m->storage).message()),
              HasSubstr("2 storage element(s)"));
  EXPECT_THAT(std::string(CheckStorageIntact(spec, m->storage).message()),
              HasSubstr("storage[0], before the offset"));
}

TEST(MaterializeCheckTest, DetectsWritesPastTheEnd) {
  TensorSpec spec;
  spec.dtype = DType::kInt16;
  spec.layout = {{4}, {1}, 0};
  absl::StatusOr<MaterializedTensor> m = Materialize(spec);
  ASSERT_TRUE(m.ok());
  m->storage[4].fill_(0);
  EXPECT_THAT(std::string(CheckStorageIntact(spec, m->storage).message()),
              HasSubstr("storage[4], after the last element"));
}

// Overlapping views hold, wherever elements alias, the last value written;
// ReadLogicalBytes gives the values a baseline for them must hold, and they
// agree with what ATen reads.
TEST(MaterializeCheckTest, OverlappingViewsReadBackConsistently) {
  TensorSpec spec;
  spec.dtype = DType::kFloat64;
  spec.layout = {{3, 3}, {1, 1}, 1};
  spec.values.distribution = Distribution::kDyadic;
  absl::StatusOr<MaterializedTensor> m = Materialize(spec);
  ASSERT_TRUE(m.ok());
  const std::vector<uint8_t> read = ReadLogicalBytes(m->tensor);
  at::Tensor dense = m->tensor.contiguous();
  EXPECT_EQ(0, std::memcmp(dense.data_ptr(), read.data(), read.size()));
  EXPECT_TRUE(at::equal(dense[0][1], dense[1][0]));
}

// Aliasing arguments: one storage, each view where its spec says, and the
// later spec's values where they share elements.
TEST(MaterializeCheckTest, SharedStorageHoldsEverySpecLaterWinning) {
  TensorSpec base;
  base.dtype = DType::kInt32;
  base.layout = {{2, 3}, {3, 1}, 0};
  base.values = {1, Distribution::kSmallInt, 0, 0};
  TensorSpec alias = base;
  alias.layout = {{4}, {2}, 1};  // Elements 1, 3, 5, 7: beyond base's end.
  alias.values.seed = 2;
  absl::StatusOr<std::vector<MaterializedTensor>> m =
      MaterializeShared({alias, base});
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->size(), 2u);
  EXPECT_TRUE((*m)[0].storage.is_same((*m)[1].storage));
  EXPECT_EQ(LayoutOf((*m)[0].tensor), alias.layout);
  EXPECT_EQ((*m)[0].storage.numel(), 8 + kTailMargin);
  const std::vector<uint8_t> base_values =
      GenerateValues(base.values, base.dtype, base.layout.sizes);
  const std::vector<uint8_t> alias_values =
      GenerateValues(alias.values, alias.dtype, alias.layout.sizes);
  EXPECT_EQ(ReadLogicalBytes((*m)[1].tensor), base_values);
  const std::vector<uint8_t> read = ReadLogicalBytes((*m)[0].tensor);
  // Elements 1, 3, 5 belong to base (written last); 7 is alias's own.
  EXPECT_EQ(0, std::memcmp(read.data(), base_values.data() + 4, 4));
  EXPECT_EQ(0, std::memcmp(read.data() + 12, alias_values.data() + 12, 4));
  TensorSpec other_dtype = base;
  other_dtype.dtype = DType::kInt64;
  EXPECT_FALSE(MaterializeShared({base, other_dtype}).ok());
}

TEST(MaterializeCheckTest, RequiresGradMakesALeafWithTheSpecsLayout) {
  TensorSpec spec;
  spec.layout = {{2, 2}, {1, 4}, 3};
  spec.requires_grad = true;
  absl::StatusOr<MaterializedTensor> m = Materialize(spec);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->tensor.requires_grad());
  EXPECT_TRUE(m->tensor.is_leaf());
  EXPECT_EQ(LayoutOf(m->tensor), spec.layout);
}

TEST(MaterializeCheckTest, RejectsInvalidSpecsAndWrongValueCounts) {
  TensorSpec spec;
  spec.layout = {{2, 3}, {1}, 0};
  EXPECT_THAT(std::string(Materialize(spec).status().message()),
              HasSubstr("\"strides\" has 1 entries but \"sizes\" has 2"));
  spec.layout = {{2}, {1}, 0};
  EXPECT_THAT(std::string(Materialize(spec, {1, 2, 3}).status().message()),
              HasSubstr("has 2 elements but 3 bytes"));
}

// Without a device a CUDA spec fails cleanly; with one it is built there.
TEST(MaterializeCheckTest, CudaSpecsFailCleanlyWithoutADevice) {
  TensorSpec spec;
  spec.device = Device::kCuda;
  spec.layout = {{2}, {1}, 0};
  absl::StatusOr<MaterializedTensor> m = Materialize(spec);
  if (at::hasCUDA()) {
    ASSERT_TRUE(m.ok()) << m.status();
    EXPECT_TRUE(m->tensor.is_cuda());
    return;
  }
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(m.status().message()),
              HasSubstr("needs a cuda device"));
}

}  // namespace
}  // namespace dpfuzz
