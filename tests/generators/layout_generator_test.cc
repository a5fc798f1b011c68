#include "generators/layout_generator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "generators/geometry.h"
#include "generators/layout_features.h"

namespace dpfuzz {
namespace {

constexpr uint64_t kSeed = 1;
constexpr int kLayouts = 5000;

struct Reach {
  std::map<uint32_t, int> alone;  // feature -> layouts with only it (plus
                                  // contiguous where c10 says so)
  std::map<uint32_t, int> pairs;  // feature pair -> layouts with both
  std::set<ViewKind> view_kinds;
  int longest_chain = 0;
  uint32_t seen = 0;
};

Reach Explore(const LayoutOptions& options, uint64_t seed) {
  Reach reach;
  Rng rng(seed);
  for (int i = 0; i < kLayouts; ++i) {
    const Dims sizes = GenerateSizes(rng);
    const GeneratedLayout g =
        GenerateLayout(sizes, DType::kFloat32, options, rng);
    EXPECT_EQ(g.layout.sizes, sizes) << g.description;
    const uint32_t f = ComputeLayoutFeatures(g.layout);
    reach.seen |= f;
    // "Alone": one feature besides contiguity (ambiguous and odd unit
    // strides only exist on contiguous layouts).
    const uint32_t rest = f & ~kFeatureContiguous;
    if (rest != 0 && (rest & (rest - 1)) == 0) ++reach.alone[rest];
    for (int a = 0; a < kNumLayoutFeatures; ++a) {
      for (int b = a + 1; b < kNumLayoutFeatures; ++b) {
        const uint32_t pair = (1u << a) | (1u << b);
        if ((f & pair) == pair) ++reach.pairs[pair];
      }
    }
    for (const ViewStep& step : g.steps) reach.view_kinds.insert(step.kind);
    reach.longest_chain =
        std::max(reach.longest_chain, static_cast<int>(g.steps.size()));
  }
  return reach;
}

// A fixed seed reaches every layout class, alone and in the combinations
// where layout bugs live, and every view op in chains of several steps.
TEST(LayoutGeneratorTest, FixedSeedReachesEveryLayoutClass) {
  const Reach reach = Explore({}, kSeed);
  for (int i = 0; i < kNumLayoutFeatures; ++i) {
    EXPECT_TRUE(reach.seen & (1u << i))
        << LayoutFeatureName(static_cast<LayoutFeature>(1u << i))
        << " never reached";
  }
  for (LayoutFeature f :
       {kFeaturePermuted, kFeatureChannelsLast, kFeatureChannelsLast3d,
        kFeatureAmbiguous, kFeatureGapped, kFeatureOffset, kFeatureZeroStride,
        kFeatureOverlapping, kFeatureEmpty, kFeatureOddUnitStride,
        kFeatureScalar}) {
    EXPECT_GE(reach.alone.count(f) ? reach.alone.at(f) : 0, 1)
        << LayoutFeatureName(f) << " never reached alone";
  }
  const std::vector<std::pair<LayoutFeature, LayoutFeature>> combined = {
      {kFeatureChannelsLast, kFeatureGapped},
      {kFeatureChannelsLast, kFeatureOffset},
      {kFeatureChannelsLast, kFeatureOddUnitStride},
      {kFeatureChannelsLast3d, kFeatureGapped},
      {kFeatureChannelsLast3d, kFeatureOffset},
      {kFeaturePermuted, kFeatureGapped},
      {kFeaturePermuted, kFeatureOffset},
      {kFeaturePermuted, kFeatureZeroStride},
      {kFeaturePermuted, kFeatureOverlapping},
      {kFeatureGapped, kFeatureOffset},
      {kFeatureGapped, kFeatureZeroStride},
      {kFeatureZeroStride, kFeatureOffset},
      {kFeatureOverlapping, kFeatureOffset},
      {kFeatureOverlapping, kFeatureZeroStride},
      {kFeatureEmpty, kFeatureOffset},
      {kFeatureEmpty, kFeatureOddUnitStride},
      {kFeatureContiguous, kFeatureOffset},
      {kFeatureAmbiguous, kFeatureOffset},
  };
  for (const auto& [a, b] : combined) {
    const uint32_t pair = a | b;
    EXPECT_GE(reach.pairs.count(pair) ? reach.pairs.at(pair) : 0, 1)
        << LayoutFeaturesToString(pair) << " never reached together";
  }
  EXPECT_EQ(reach.view_kinds.size(), static_cast<size_t>(kNumViewKinds));
  EXPECT_GE(reach.longest_chain, 4);
}

// Gaps, steps and view chains cost a bounded factor, not a blow-up: a
// direct layout needs at most a step of 3 and padding of 2 per dim, a view
// chain a base of at most max(4096, 16 * numel) elements (twice that in
// real units under view_as_real), plus offsets.
TEST(LayoutGeneratorTest, StorageStaysProportionate) {
  Rng rng(77);
  for (int i = 0; i < 200000; ++i) {
    const Dims sizes = GenerateSizes(rng, 5, 8);
    const GeneratedLayout g = GenerateLayout(sizes, DType::kFloat32, {}, rng);
    int64_t direct = 1;
    for (int64_t s : sizes) direct *= 3 * std::max<int64_t>(s, 1) + 2;
    const int64_t chain = std::max<int64_t>(4096, 16 * ComputeNumel(sizes));
    ASSERT_LE(ComputeStorageExtent(g.layout), std::max(direct, 2 * chain) + 16)
        << LayoutToString(g.layout) << " from " << g.description;
  }
}

TEST(LayoutGeneratorTest, SameSeedSameLayouts) {
  Rng a(42);
  Rng b(42);
  for (int i = 0; i < 500; ++i) {
    const Dims sizes_a = GenerateSizes(a);
    const Dims sizes_b = GenerateSizes(b);
    ASSERT_EQ(sizes_a, sizes_b);
    ASSERT_EQ(GenerateTensorSpec(sizes_a, DType::kInt32, {}, a),
              GenerateTensorSpec(sizes_b, DType::kInt32, {}, b));
  }
}

// Output tensors must not alias: with allow_overlap off no layout does.
TEST(LayoutGeneratorTest, NoAliasingWhenOverlapIsNotAllowed) {
  LayoutOptions options;
  options.allow_overlap = false;
  Rng rng(3);
  int gapped = 0;
  for (int i = 0; i < kLayouts; ++i) {
    const GeneratedLayout g =
        GenerateLayout(GenerateSizes(rng), DType::kFloat32, options, rng);
    ASSERT_EQ(ComputeExactOverlap(g.layout.sizes, g.layout.strides),
              MemOverlap::kNo)
        << LayoutToString(g.layout) << " from " << g.description;
    gapped += (ComputeLayoutFeatures(g.layout) & kFeatureGapped) != 0;
  }
  EXPECT_GE(gapped, kLayouts / 10);
}

TEST(LayoutGeneratorTest, ViewChainsOfComplexBasesEndReal) {
  Rng rng(11);
  int via_complex = 0;
  for (int i = 0; i < 4000; ++i) {
    Dims sizes = GenerateSizes(rng, 4);
    sizes.push_back(2);
    const GeneratedLayout g = GenerateLayout(sizes, DType::kFloat64, {}, rng);
    for (const ViewStep& step : g.steps) {
      via_complex += step.kind == ViewKind::kViewAsReal;
    }
  }
  EXPECT_GE(via_complex, 50);
}

TEST(LayoutFeaturesTest, ClassifiesByGeometry) {
  EXPECT_EQ(ComputeLayoutFeatures({{2, 3}, {3, 1}, 0}), kFeatureContiguous);
  EXPECT_EQ(ComputeLayoutFeatures({{2, 3}, {1, 2}, 0}), kFeaturePermuted);
  EXPECT_EQ(ComputeLayoutFeatures({{2, 3, 4, 5}, {60, 1, 15, 3}, 0}),
            kFeatureChannelsLast);
  EXPECT_EQ(ComputeLayoutFeatures({{2, 1, 4, 5}, {20, 20, 5, 1}, 0}),
            kFeatureContiguous | kFeatureAmbiguous);
  EXPECT_EQ(ComputeLayoutFeatures({{2, 3}, {6, 2}, 1}),
            kFeatureGapped | kFeatureOffset);
  EXPECT_EQ(ComputeLayoutFeatures({{2, 3}, {0, 1}, 0}), kFeatureZeroStride);
  EXPECT_EQ(ComputeLayoutFeatures({{3, 3}, {1, 1}, 0}), kFeatureOverlapping);
  EXPECT_EQ(ComputeLayoutFeatures({{0, 3}, {3, 1}, 0}),
            kFeatureContiguous | kFeatureEmpty);
  EXPECT_EQ(ComputeLayoutFeatures({{1, 3}, {7, 1}, 0}),
            kFeatureContiguous | kFeatureOddUnitStride);
  EXPECT_EQ(ComputeLayoutFeatures({{}, {}, 0}),
            kFeatureContiguous | kFeatureScalar);
  EXPECT_EQ(LayoutFeaturesToString(kFeatureGapped | kFeatureOffset),
            "gapped+offset");
}

}  // namespace
}  // namespace dpfuzz
