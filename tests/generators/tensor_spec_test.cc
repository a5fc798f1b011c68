#include "generators/tensor_spec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/hash/hash_testing.h"
#include "generators/dtype.h"

namespace dpfuzz {
namespace {

using ::testing::HasSubstr;

TensorSpec Example() {
  TensorSpec spec;
  spec.layout = {{4, 1, 4, 4}, {16, 1, 4, 1}, 3};
  spec.values = {7, Distribution::kDyadic, kSpecialNaN};
  return spec;
}

TEST(TensorSpecTest, PrintsInC10Notation) {
  EXPECT_EQ(TensorSpecLayoutString(Example()),
            "f32 cpu [4, 1, 4, 4]@[16, 1, 4, 1]+3");
  TensorSpec grad = Example();
  grad.requires_grad = true;
  EXPECT_EQ(TensorSpecToString(grad),
            "f32 cpu [4, 1, 4, 4]@[16, 1, 4, 1]+3 dyadic#7+nan grad");
  TensorSpec scalar;
  scalar.dtype = DType::kComplex128;
  EXPECT_EQ(TensorSpecLayoutString(scalar), "c128 cpu []@[]+0");
}

TEST(TensorSpecTest, DerivedSizes) {
  EXPECT_EQ(Example().numel(), 64);
  EXPECT_EQ(Example().storage_extent(), 3 + 1 + 48 + 12 + 3);
}

TEST(TensorSpecTest, EqualityAndHashCoverEveryField) {
  TensorSpec a = Example();
  std::vector<TensorSpec> variants(7, a);
  variants[1].dtype = DType::kFloat64;
  variants[2].device = Device::kCuda;
  variants[3].layout.storage_offset = 0;
  variants[4].layout.strides[1] = 5;
  variants[5].values.seed = 8;
  variants[6].requires_grad = true;
  for (size_t i = 1; i < variants.size(); ++i) EXPECT_NE(a, variants[i]) << i;
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(variants));
}

TEST(TensorSpecTest, ValidationNamesTheFieldAndValue) {
  TensorSpec spec = Example();
  EXPECT_TRUE(ValidateTensorSpec(spec).ok());
  spec.layout.sizes[2] = -1;
  EXPECT_THAT(std::string(ValidateTensorSpec(spec).message()),
              HasSubstr("\"sizes\"[2] is -1"));
  spec = Example();
  spec.layout.strides[0] = -16;
  EXPECT_THAT(std::string(ValidateTensorSpec(spec).message()),
              HasSubstr("\"strides\"[0] is -16"));
  spec = Example();
  spec.layout.storage_offset = -1;
  EXPECT_THAT(std::string(ValidateTensorSpec(spec).message()),
              HasSubstr("\"storage_offset\" is -1"));
  spec = Example();
  spec.layout.sizes = {1 << 20, 1 << 20};
  spec.layout.strides = {1 << 20, 1};
  EXPECT_THAT(std::string(ValidateTensorSpec(spec).message()),
              HasSubstr("needs more than"));
  spec = Example();
  spec.dtype = DType::kInt32;
  spec.requires_grad = true;
  EXPECT_THAT(std::string(ValidateTensorSpec(spec).message()),
              HasSubstr("dtype i32 is not floating or complex"));
}

TEST(DTypeTest, NamesRoundTrip) {
  for (DType d : AllDTypes()) EXPECT_EQ(*ParseDType(DTypeName(d)), d);
  EXPECT_THAT(std::string(ParseDType("float").status().message()),
              HasSubstr("expected one of b8, u8"));
  EXPECT_EQ(ElementSize(DType::kComplex128), 16);
  EXPECT_EQ(ComponentType(DType::kComplex64), DType::kFloat32);
}

}  // namespace
}  // namespace dpfuzz
