#include "oracles/output_promises.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dpfuzz {
namespace {

using ::testing::HasSubstr;

// A float tensor of `numel` elements whose geometry is then set to `sizes`,
// `strides` at `offset` with no check against its storage, as a kernel that
// sets an output's geometry may leave it.
at::Tensor Regeometried(int64_t numel, at::IntArrayRef sizes,
                        at::IntArrayRef strides, int64_t offset) {
  at::Tensor t = at::empty({numel});
  t.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides);
  t.unsafeGetTensorImpl()->set_storage_offset(offset);
  return t;
}

TEST(OutputPromisesTest, AStridedOutputPastItsStorageIsNamed) {
  const at::Tensor past = Regeometried(0, {2, 1, 3}, {3, 3, 1}, 1);
  const std::optional<std::string> broken = CheckInsideStorage(past);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(*broken,
            "the output (sizes [2, 1, 3], strides [3, 3, 1], offset 1) "
            "reaches element 6 of a storage of 0");
  // One element short: the last one lies past the end.
  EXPECT_TRUE(CheckInsideStorage(Regeometried(6, {2, 3}, {3, 1}, 1)));
  // Views inside their storage, and empty ones anywhere, keep the promise.
  EXPECT_FALSE(CheckInsideStorage(Regeometried(7, {2, 3}, {3, 1}, 1)));
  EXPECT_FALSE(CheckInsideStorage(at::arange(12.).view({3, 4}).t()));
  EXPECT_FALSE(CheckInsideStorage(Regeometried(0, {0, 3}, {3, 1}, 5)));
  EXPECT_FALSE(CheckInsideStorage(at::Tensor()));
}

TEST(OutputPromisesTest, TheFirstBrokenOutputIsALayoutContractFinding) {
  CallResult result;
  result.outputs = {at::ones({2}), Regeometried(2, {4}, {1}, 0)};
  std::optional<CaseOutcome> broken =
      BrokenOutputPromise(result, FindingKind::kBaselineFailure);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->verdict, Verdict::kLayoutContract);
  EXPECT_EQ(broken->kind, FindingKind::kBaselineFailure);
  EXPECT_EQ(broken->evidence.where, "baseline output 1");
  EXPECT_THAT(broken->evidence.detail, HasSubstr("of a storage of 2"));
  broken = BrokenOutputPromise(result, FindingKind::kLayoutBug);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->evidence.where, "output 1");
  result.outputs.pop_back();
  EXPECT_FALSE(BrokenOutputPromise(result, FindingKind::kLayoutBug));
}

}  // namespace
}  // namespace dpfuzz
