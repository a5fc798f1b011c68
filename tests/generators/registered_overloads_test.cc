#include "generators/registered_overloads.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/library.h>

#include <algorithm>
#include <memory>

namespace dpfuzz {
namespace {

using ::testing::Contains;
using ::testing::IsEmpty;
using ::testing::Not;

TEST(RegisteredOverloadsTest, IndexesEveryOverloadSorted) {
  const std::vector<OverloadName> all = RegisteredOverloads();
  EXPECT_GT(all.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  // The order is that of the full names.
  for (size_t i = 1; i < all.size(); ++i) {
    ASSERT_LT(all[i - 1].Full(), all[i].Full());
  }
  EXPECT_THAT(OverloadsOf("aten::add"), Contains("Tensor"));
  EXPECT_THAT(OverloadsOf("aten::add"), Contains("out"));
  EXPECT_THAT(OverloadsOf("aten::relu"), Contains(""));
  EXPECT_THAT(OverloadsOf("aten::no_such_op"), IsEmpty());
}

// Libraries loaded after the index was built (--load, test libraries)
// show in it, and leave it when they are unloaded.
TEST(RegisteredOverloadsTest, FollowsLaterRegistrations) {
  ASSERT_THAT(OverloadsOf("dpfuzz_index_test::twice"), IsEmpty());
  auto library =
      std::make_unique<torch::Library>(torch::Library::DEF, "dpfuzz_index_test",
                                       c10::nullopt, __FILE__, __LINE__);
  library->def("twice(Tensor x) -> Tensor");
  library->def("twice.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_THAT(OverloadsOf("dpfuzz_index_test::twice"),
              ::testing::ElementsAre("", "out"));
  const std::vector<OverloadName> all = RegisteredOverloads();
  EXPECT_TRUE(std::any_of(all.begin(), all.end(), [](const OverloadName& n) {
    return n.Full() == "dpfuzz_index_test::twice.out";
  }));
  library.reset();
  EXPECT_THAT(OverloadsOf("dpfuzz_index_test::twice"), IsEmpty());
  EXPECT_THAT(OverloadsOf("aten::add"), Not(IsEmpty()));
}

}  // namespace
}  // namespace dpfuzz
