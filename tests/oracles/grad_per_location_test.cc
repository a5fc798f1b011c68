// GradPerLocation: gradients summed over the elements that share memory.

#include "oracles/grad_per_location.h"

#include "gtest/gtest.h"

namespace dpfuzz {
namespace {

TEST(GradPerLocationTest, SumsElementsThatShareALocation) {
  // [[a, b, c], [a, b, c]]: columns share; locations 0, 1, 2.
  const at::Tensor leaf = at::zeros({3}).expand({2, 3});
  const at::Tensor grad =
      at::tensor({1.f, 2.f, 3.f, 10.f, 20.f, 30.f}).reshape({2, 3});
  const std::optional<at::Tensor> sums = GradPerLocation(leaf, grad);
  ASSERT_TRUE(sums.has_value());
  EXPECT_TRUE(at::equal(*sums, at::tensor({11.f, 22.f, 33.f})));
}

TEST(GradPerLocationTest, SparseGradientsAreSummedAsTheirValues) {
  const at::Tensor leaf = at::zeros({3}).expand({2, 3});
  const at::Tensor grad =
      at::tensor({1.f, 2.f, 3.f, 10.f, 20.f, 30.f}).reshape({2, 3}).to_sparse();
  const std::optional<at::Tensor> sums = GradPerLocation(leaf, grad);
  ASSERT_TRUE(sums.has_value());
  EXPECT_TRUE(at::equal(*sums, at::tensor({11.f, 22.f, 33.f})));
}

TEST(GradPerLocationTest, OverlappingStridesAndGapsKeepAddressOrder) {
  // Sizes [3], stride 2 over storage 0..4 with a 2-element window: as
  // strided [3, 2]@[2, 1] addresses 0,1 | 2,3 | 4,5; [3, 2]@[1, 2]
  // addresses 0,2 | 1,3 | 2,4: location 2 is used twice.
  const at::Tensor leaf = at::zeros({6}).as_strided({3, 2}, {1, 2});
  const at::Tensor grad = at::arange(1, 7, at::kDouble).reshape({3, 2});
  const std::optional<at::Tensor> sums = GradPerLocation(leaf, grad);
  ASSERT_TRUE(sums.has_value());
  // Location 0: 1; 1: 3; 2: 2 + 5; 3: 4; 4: 6.
  EXPECT_TRUE(at::equal(*sums, at::tensor({1., 3., 7., 4., 6.}, at::kDouble)));
}

TEST(GradPerLocationTest, LeavesWithoutSharedMemoryGiveNothing) {
  const at::Tensor grad = at::ones({2, 3});
  EXPECT_FALSE(GradPerLocation(at::zeros({3, 2}).t(), grad).has_value());
  EXPECT_FALSE(GradPerLocation(at::zeros({12}).as_strided({2, 3}, {6, 2}), grad)
                   .has_value());
  // One element repeated along a size-1 dim is no sharing.
  EXPECT_FALSE(GradPerLocation(at::zeros({1}).expand({1, 1}), at::ones({1, 1}))
                   .has_value());
  EXPECT_FALSE(
      GradPerLocation(at::zeros({3}).expand({2, 3}), at::Tensor()).has_value());
}

}  // namespace
}  // namespace dpfuzz
