#include "oracles/verdict.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

namespace dpfuzz {
namespace {

TEST(VerdictTest, NamesRoundTripAndAreUnique) {
  std::set<std::string> names;
  for (Verdict v : AllVerdicts()) {
    const std::string name(VerdictName(v));
    EXPECT_TRUE(names.insert(name).second) << name;
    absl::StatusOr<Verdict> parsed = ParseVerdict(name);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, v);
  }
  EXPECT_EQ(names.size(), AllVerdicts().size());
  EXPECT_THAT(std::string(ParseVerdict("bogus").status().message()),
              ::testing::HasSubstr("device_mismatch"));
}

TEST(VerdictTest, DeviceMismatchIsAFindingNotADeath) {
  EXPECT_EQ(VerdictName(Verdict::kDeviceMismatch), "device_mismatch");
  EXPECT_TRUE(IsFinding(Verdict::kDeviceMismatch));
  EXPECT_FALSE(IsDeath(Verdict::kDeviceMismatch));
  EXPECT_FALSE(IsFinding(Verdict::kAgree));
  EXPECT_FALSE(IsFinding(Verdict::kBothRejected));
  EXPECT_TRUE(IsDeath(Verdict::kCrash));
}

}  // namespace
}  // namespace dpfuzz
