#include "fuzz/op_schedule.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dpfuzz {
namespace {

using ::testing::DoubleEq;
using ::testing::ElementsAre;

TEST(OpScheduleTest, OpsSlowerThanTheMedianTakeAShareOfTheirTurns) {
  // Median 1 ms: an op at 8 ms takes a quarter of its turns (twice the
  // median over its cost), one a hundred times slower the floor; one at
  // 1.9 ms, cheaper and untimed ops all of theirs.
  EXPECT_THAT(
      TurnShares({1e-3, 1e-3, 8e-3, 0.1, 5e-4, -1, 1.9e-3}),
      ElementsAre(DoubleEq(1), DoubleEq(1), DoubleEq(0.25), DoubleEq(kMinShare),
                  DoubleEq(1), DoubleEq(1), DoubleEq(1)));
  EXPECT_THAT(TurnShares({2e-3, 2e-3, 2e-3}),
              ElementsAre(DoubleEq(1), DoubleEq(1), DoubleEq(1)));
  EXPECT_THAT(TurnShares({-1, -1}), ElementsAre(DoubleEq(1), DoubleEq(1)));
  EXPECT_TRUE(TurnShares({}).empty());
}

OpKnowledge Timed(const std::vector<std::pair<std::string, double>>& costs,
                  int64_t draws) {
  OpKnowledge k;
  for (const auto& [op, seconds] : costs) {
    for (int64_t i = 0; i < draws; ++i) {
      k.Record(op, DType::kFloat32, static_cast<uint64_t>(i), true, false,
               seconds);
    }
  }
  return k;
}

std::vector<int> Turns(OpSchedule& s, size_t n_ops, int draws) {
  std::vector<int> turns(n_ops, 0);
  for (int i = 0; i < draws; ++i) ++turns[s.Next(n_ops)];
  return turns;
}

TEST(OpScheduleTest, TimeIsSharedRatherThanTurns) {
  const std::vector<std::string> ops = {"a", "b", "c", "slow"};
  OpSchedule s(7);
  s.Update(ops, Timed({{"a", 1e-4}, {"b", 1e-4}, {"c", 1e-4}, {"slow", 8e-4}},
                      kMinDrawsToTime));
  const std::vector<int> turns = Turns(s, ops.size(), 13000);
  // A quarter of its turns: 1,000 draws to the others' 4,000 each.
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(turns[i], 4000, 100) << i;
  EXPECT_NEAR(turns[3], 1000, 100);
}

TEST(OpScheduleTest, PlainTurnsUntilOpsAreTimed) {
  const std::vector<std::string> ops = {"a", "slow"};
  OpSchedule s(7);
  EXPECT_THAT(Turns(s, 2, 10), ElementsAre(5, 5));  // No Update yet.
  s.Update(ops, Timed({{"a", 1e-4}, {"slow", 1.0}}, kMinDrawsToTime - 1));
  EXPECT_THAT(Turns(s, 2, 10), ElementsAre(5, 5));  // Too few draws timed.
  s.Update(ops, Timed({{"a", 1e-4}, {"slow", 1.0}}, kMinDrawsToTime));
  const std::vector<int> weighed = Turns(s, 2, 2000);
  EXPECT_GT(weighed[0], 3 * weighed[1]);
  // An op left the campaign: plain turns over the rest until reweighed.
  EXPECT_THAT(Turns(s, 1, 4), ElementsAre(4));
}

// Draws a worker never timed (a case that killed it) count toward no cost.
TEST(OpScheduleTest, UntimedDrawsLeaveTheCostAlone) {
  OpKnowledge k = Timed({{"a", 2e-4}}, 2);
  k.Record("a", DType::kFloat32, 9, true, false, /*seconds=*/0);
  const OpStats* s = k.Find("a");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->all.tried, 3);
  EXPECT_EQ(s->timed, 2);
  EXPECT_DOUBLE_EQ(s->cost(), 2e-4);
}

}  // namespace
}  // namespace dpfuzz
