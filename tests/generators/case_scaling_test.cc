#include "generators/case_scaling.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "generators/geometry.h"
#include "generators/layout_features.h"
#include "generators/layout_generator.h"
#include "generators/rng.h"

namespace dpfuzz {
namespace {

using ::testing::ElementsAre;

TEST(CaseScalingTest, EachKindOfLayoutStaysItsKind) {
  // Transposed.
  EXPECT_EQ(ScaledLayout({{3, 4}, {1, 3}, 0}, 2),
            (StridedLayout{{6, 8}, {1, 6}, 0}));
  // Every other column of a [3, 8] storage, at an offset.
  EXPECT_EQ(ScaledLayout({{3, 4}, {8, 2}, 5}, 2),
            (StridedLayout{{6, 8}, {16, 2}, 5}));
  // Channels_last, then expanded with a size-1 dim between.
  EXPECT_EQ(ScaledLayout({{2, 3, 4, 5}, {60, 1, 15, 3}, 0}, 2).strides,
            (Dims{480, 1, 60, 6}));
  EXPECT_EQ(ScaledLayout({{3, 1, 4}, {0, 4, 1}, 0}, 3),
            (StridedLayout{{9, 1, 12}, {0, 12, 1}, 0}));
  // A 0-dim tensor has nothing to grow.
  EXPECT_EQ(ScaledLayout({{}, {}, 2}, 4), (StridedLayout{{}, {}, 2}));
}

// Every layout the generator draws keeps its layout classes at twice and
// four times its sizes, and grows by as much as its sizes. An odd stride
// of a size-1 dim may land on the contiguous one of the larger sizes: c10
// ignores it, and so does this comparison.
TEST(CaseScalingTest, DrawnLayoutsKeepTheirFeatures) {
  Rng rng(31);
  for (int i = 0; i < 2000; ++i) {
    const GeneratedLayout g =
        GenerateLayout(GenerateSizes(rng), DType::kFloat32, {}, rng);
    // An empty tensor's classes are its strides' accidents.
    if (ComputeNumel(g.layout.sizes) == 0) continue;
    for (const int64_t factor : {2, 4}) {
      const StridedLayout scaled = ScaledLayout(g.layout, factor);
      const auto classes = [](const StridedLayout& l) {
        return LayoutFeaturesToString(ComputeLayoutFeatures(l) &
                                      ~kFeatureOddUnitStride);
      };
      EXPECT_EQ(classes(scaled), classes(g.layout))
          << g.layout << " -> " << scaled << " (" << g.description << ")";
      for (int64_t d = 0; d < g.layout.dim(); ++d) {
        const int64_t s = g.layout.sizes[d];
        EXPECT_EQ(scaled.sizes[d], s > 1 ? s * factor : s) << g.layout;
      }
    }
  }
}

TEST(CaseScalingTest, ACaseScalesAllItsTensorsAlikeWithinTheStorageCap) {
  Case c;
  c.op = "aten::mm";
  TensorSpec a;
  a.layout = {{2, 3}, {1, 2}, 0};
  TensorSpec b;
  b.layout = {{3, 1}, {1, 1}, 0};
  c.args = {{"self", a}, {"mat2", b}};
  const std::optional<Case> scaled = ScaledCase(c, 4, 1 << 10);
  ASSERT_TRUE(scaled.has_value());
  const std::vector<const TensorSpec*> ts = AllTensorSpecsOf(*scaled);
  EXPECT_THAT(ts[0]->layout.sizes, ElementsAre(8, 12));
  EXPECT_THAT(ts[1]->layout.sizes, ElementsAre(12, 1));
  EXPECT_FALSE(ScaledCase(c, 4, 95).has_value());  // self needs 96.

  TensorSpec scalar;
  scalar.layout = {{1, 1}, {1, 1}, 0};
  TensorSpec empty;
  empty.layout = {{0, 3}, {3, 1}, 0};
  c.args = {{"self", scalar}, {"mat2", empty}};
  EXPECT_FALSE(ScaledCase(c, 2, 1 << 10).has_value());  // Nothing grows.

  TensorSpec nested = a;
  nested.components = {{{1, 2}, {2, 1}, 0}};
  c.args = {{"self", nested}};
  EXPECT_FALSE(ScaledCase(c, 2, 1 << 10).has_value());
}

}  // namespace
}  // namespace dpfuzz
