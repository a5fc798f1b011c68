// The report's tables of what is not a bug: one row per op, variant and
// verdict, led by the finding with the most hits.

#include "fuzz/report_not_bugs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace dpfuzz {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

Json Entry(const std::string& dir, const std::string& op,
           const std::string& verdict, int64_t hits,
           const std::string& detail) {
  return {{"dir", dir},
          {"op", op},
          {"variant", "functional"},
          {"verdict", verdict},
          {"hits", hits},
          {"detail", detail},
          {"kind", "baseline_failure"}};
}

TEST(ReportNotBugsTest, OneRowPerOpVariantAndVerdict) {
  const Json findings =
      Json::array({Entry("internal_assert-lstm-f32", "aten::lstm_cell",
                         "internal_assert", 2, "f32 assert"),
                   Entry("crash-cat-1", "aten::cat", "crash", 1, "SIGFPE"),
                   Entry("internal_assert-lstm-f64", "aten::lstm_cell",
                         "internal_assert", 5, "f64 assert"),
                   Entry("internal_assert-lstm-bf16", "aten::lstm_cell",
                         "internal_assert", 1, "bf16 assert")});
  const Table t =
      NotBugsTable("baseline_failures", "Baseline failures", findings);
  ASSERT_EQ(t.rows.size(), 2u);
  // Groups in the order they first appear; the most hits lead.
  const std::string md = TablesMarkdown("findings", "", {t});
  EXPECT_THAT(md, HasSubstr("| [internal_assert-lstm-f64]"
                            "(internal_assert-lstm-f64), and 2 more | "
                            "`aten::lstm_cell` | functional | internal_assert "
                            "| 8 | f64 assert |"));
  EXPECT_THAT(md, HasSubstr("| [crash-cat-1](crash-cat-1) | `aten::cat` | "
                            "functional | crash | 1 | SIGFPE |"));
  EXPECT_THAT(md, Not(HasSubstr("lstm-f32)")));
  EXPECT_LT(md.find("lstm_cell"), md.find("aten::cat"));
}

TEST(ReportNotBugsTest, NothingToList) {
  EXPECT_TRUE(NotBugsTable("flaky", "Flaky", Json::array()).rows.empty());
}

}  // namespace
}  // namespace dpfuzz
