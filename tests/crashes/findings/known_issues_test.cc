#include "crashes/findings/known_issues.h"

#include "gtest/gtest.h"

namespace dpfuzz {
namespace {

TEST(KnownIssuesTest, GlobsMatchWholeSignaturesFirstEntryWins) {
  absl::StatusOr<KnownIssues> k = KnownIssues::Parse(
      "# comment\n"
      "\n"
      "aten::tril.out|out|crash|*   heap corruption, see known_findings/\n"
      "  aten::masked_select|*|grad_mismatch|*\thttps://example.org/1  \n"
      "aten::tril.out|*  second\n",
      "known.txt");
  ASSERT_TRUE(k.ok()) << k.status();
  ASSERT_EQ(k->entries().size(), 3u);
  std::optional<KnownIssues::Entry> e =
      k->Match("aten::tril.out|out|crash|i8|cpu|aliased|SIGABRT");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->note, "heap corruption, see known_findings/");
  e = k->Match("aten::masked_select|functional|grad_mismatch|f32,b8|cpu");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->note, "https://example.org/1");
  EXPECT_EQ(k->Match("aten::tril.out|out|mismatch|i8|cpu")->note, "second");
  EXPECT_FALSE(k->Match("aten::tril|functional|mismatch|i8|cpu").has_value());
  // Whole signatures: a prefix of one is no match.
  EXPECT_FALSE(k->Match("xaten::tril.out|out|crash|i8").has_value());
}

TEST(KnownIssuesTest, ALineThatIsNoPatternNamesFileAndLine) {
  absl::StatusOr<KnownIssues> k = KnownIssues::Parse(
      "# ok\naten::a|*  fine\nmasked_select note\n", "k.txt");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.status().message().find("k.txt:3"), std::string::npos)
      << k.status();
}

TEST(KnownIssuesTest, AMissingFileIsAnError) {
  EXPECT_FALSE(KnownIssues::Load("/nonexistent/known.txt").ok());
}

}  // namespace
}  // namespace dpfuzz
