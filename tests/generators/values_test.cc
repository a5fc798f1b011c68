#include "generators/values.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "generators/materialize.h"
#include "generators/poison.h"

namespace dpfuzz {
namespace {

class ValuesTest : public ::testing::TestWithParam<DType> {};

TEST_P(ValuesTest, DeterministicAndNeverPoison) {
  const DType dtype = GetParam();
  for (Distribution d :
       {Distribution::kZeros, Distribution::kOnes, Distribution::kSmallInt,
        Distribution::kDyadic, Distribution::kWide}) {
    const ValueRecipe recipe{77, d, kAllSpecials};
    const std::vector<uint8_t> a = GenerateValues(recipe, dtype, {4096});
    ASSERT_EQ(a, GenerateValues(recipe, dtype, {4096}));
    ASSERT_EQ(a.size(), 4096u * ElementSize(dtype));
    for (int64_t i = 0; i < 4096; ++i) {
      ASSERT_FALSE(IsPoison(dtype, a.data() + i * ElementSize(dtype)));
    }
    const bool constant = d == Distribution::kZeros || d == Distribution::kOnes;
    if (!constant || ApplicableSpecials(kAllSpecials, dtype) != 0) {
      EXPECT_NE(a, GenerateValues({78, d, kAllSpecials}, dtype, {4096}))
          << DistributionName(d);
    }
  }
}

// Note [Exact values]: the exact distributions survive a round trip through
// double, so every dtype holds them exactly.
TEST_P(ValuesTest, ExactDistributionsAreExactlyRepresentable) {
  const DType dtype = GetParam();
  for (Distribution d : {Distribution::kSmallInt, Distribution::kDyadic}) {
    const std::vector<uint8_t> bytes = GenerateValues({5, d, 0}, dtype, {2048});
    at::Tensor t = MakeContiguousTensor(dtype, {2048}, bytes);
    at::Tensor wide = t.to(IsComplex(dtype) ? at::kComplexDouble : at::kDouble);
    at::Tensor back = wide.to(t.scalar_type());
    ASSERT_EQ(0, std::memcmp(back.data_ptr(), bytes.data(), bytes.size()));
    if (dtype != DType::kBool && d == Distribution::kSmallInt) {
      EXPECT_GT(at::abs(wide).max().item<double>(), 4);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, ValuesTest,
                         ::testing::ValuesIn(AllDTypes()),
                         [](const ::testing::TestParamInfo<DType>& info) {
                           return std::string(DTypeName(info.param));
                         });

TEST(ValuesSpecialsTest, FloatingSpecialsAppear) {
  const std::vector<uint8_t> bytes = GenerateValues(
      {9, Distribution::kDyadic,
       kSpecialNaN | kSpecialNegInf | kSpecialNegZero | kSpecialDenormal},
      DType::kFloat32, {2000});
  std::vector<float> v(2000);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  int nan = 0, neg_inf = 0, neg_zero = 0, denormal = 0;
  for (float x : v) {
    nan += std::isnan(x);
    neg_inf += std::isinf(x) && x < 0;
    neg_zero += x == 0 && std::signbit(x);
    denormal += std::fpclassify(x) == FP_SUBNORMAL;
  }
  EXPECT_GT(nan, 10);
  EXPECT_GT(neg_inf, 10);
  EXPECT_GT(neg_zero, 10);
  EXPECT_GT(denormal, 10);
}

TEST(ValuesSpecialsTest, IntegerExtremesAppearAndFloatSpecialsDoNot) {
  EXPECT_EQ(ApplicableSpecials(kAllSpecials, DType::kInt8),
            kSpecialIntMin | kSpecialIntMax);
  EXPECT_EQ(ApplicableSpecials(kAllSpecials, DType::kBool), 0u);
  const std::vector<uint8_t> bytes = GenerateValues(
      {9, Distribution::kSmallInt, kAllSpecials}, DType::kInt8, {2000});
  int min = 0, max = 0;
  for (uint8_t b : bytes) {
    min += static_cast<int8_t>(b) == INT8_MIN;
    max += static_cast<int8_t>(b) == INT8_MAX;
  }
  EXPECT_GT(min, 10);
  EXPECT_GT(max, 10);
}

TEST(ValuesIndicesTest, IndicesStayInRangeAndUniqueOnesDoNotRepeat) {
  const std::vector<uint8_t> any = GenerateValues(
      {3, Distribution::kIndices, kAllSpecials, 5}, DType::kInt64, {40});
  std::vector<int64_t> v(40);
  std::memcpy(v.data(), any.data(), any.size());
  EXPECT_THAT(
      v, ::testing::Each(::testing::AllOf(::testing::Ge(0), ::testing::Lt(5))));
  EXPECT_THAT(v, ::testing::Contains(4));
  const std::vector<uint8_t> unique = GenerateValues(
      {3, Distribution::kUniqueIndices, 0, 6}, DType::kInt64, {7, 6});
  std::vector<int64_t> u(42);
  std::memcpy(u.data(), unique.data(), unique.size());
  for (int row = 0; row < 7; ++row) {
    std::vector<int64_t> run(u.begin() + row * 6, u.begin() + row * 6 + 6);
    std::sort(run.begin(), run.end());
    EXPECT_THAT(run, ::testing::ElementsAre(0, 1, 2, 3, 4, 5)) << row;
  }
}

TEST(ValueRecipeTest, PrintsAndParsesNames) {
  EXPECT_EQ(ValueRecipeToString({7, Distribution::kUniqueIndices, 0, 5}),
            "unique_indices<5#7");
  EXPECT_EQ(ValueRecipeToString(
                {7, Distribution::kDyadic, kSpecialNaN | kSpecialNegZero}),
            "dyadic#7+nan,-0");
  EXPECT_EQ(*ParseDistribution("wide"), Distribution::kWide);
  EXPECT_EQ(*ParseSpecial("int_max"), kSpecialIntMax);
  EXPECT_FALSE(ParseSpecial("NaN").ok());
}

TEST(ExplicitValuesTest, GivenValuesCycleAndConvertToTheDType) {
  ValueRecipe recipe;
  recipe.distribution = Distribution::kExplicit;
  recipe.data = {0.5, -3, 1e30};
  const std::vector<uint8_t> f32 =
      GenerateValues(recipe, DType::kFloat32, {2, 2});
  std::vector<float> floats(4);
  std::memcpy(floats.data(), f32.data(), f32.size());
  EXPECT_THAT(floats, ::testing::ElementsAre(0.5f, -3.0f, 1e30f, 0.5f));
  // Integers: truncated and clamped to the dtype's range; bool: non-zero.
  const std::vector<uint8_t> i8 = GenerateValues(recipe, DType::kInt8, {3});
  EXPECT_THAT(std::vector<int8_t>(i8.begin(), i8.end()),
              ::testing::ElementsAre(0, -3, 127));
  const std::vector<uint8_t> b8 = GenerateValues(recipe, DType::kBool, {3});
  EXPECT_THAT(b8, ::testing::ElementsAre(1, 1, 1));
  EXPECT_EQ(ValueRecipeToString(recipe), "explicit[3]#0");
}

TEST(ExplicitValuesTest, RecipesWithOtherDataDiffer) {
  ValueRecipe a;
  a.distribution = Distribution::kExplicit;
  a.data = {std::nan(""), 1};
  ValueRecipe b = a;
  EXPECT_EQ(a, b);  // NaN equals itself: values compare by bits.
  b.data[1] = 2;
  EXPECT_NE(a, b);
  b.data = {std::nan(""), 1, 1};
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace dpfuzz
