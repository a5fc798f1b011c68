#include "fuzz/known_cases.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "generators/case_json.h"
#include "generators/op_registry.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

TEST(KnownCasesTest, APatternGlobsTheDtypesAndCrashKey) {
  EXPECT_EQ(KnownPattern("aten::tril.out|out|mismatch|f32,f32|cpu|aliased"),
            "aten::tril.out|out|mismatch|*|cpu|aliased");
  EXPECT_EQ(
      KnownPattern("aten::kron|functional|rejection_mismatch|f64,f64|cpu"),
      "aten::kron|functional|rejection_mismatch|*|cpu");
  EXPECT_EQ(KnownPattern("aten::masked_select.out|out|crash|f32,b8,f32|cpu|"
                         "aliased|SIGABRT:free():_invalid_pointer"),
            "aten::masked_select.out|out|crash|*|cpu|aliased|*");
  EXPECT_EQ(KnownPattern("aten::neg|functional|timeout|f32|cpu|nested|hang"),
            "aten::neg|functional|timeout|*|cpu|nested|*");
}

// Two real LibTorch bugs of known_findings/ in one directory, and a
// campaign that fuzzes the op of one of them: that one is run and, where
// it shows on this LibTorch, learned; the other op's case is not run.
TEST(KnownCasesTest, LearnsWhatTheCasesOfTheFuzzedOpsShowHere) {
  const std::string dir = ::testing::TempDir() + "/known_cases_test";
  std::filesystem::remove_all(dir);
  const std::string kron = "kron-transposed-vector-rejected";
  const std::string tril = "tril-out-gapped-writes-outside-view";
  for (const std::string& name : {kron, tril}) {
    std::filesystem::create_directories(dir + "/" + name);
    std::filesystem::copy_file(KnownCasePath(name),
                               dir + "/" + name + "/case.json");
  }
  const OpSpec* spec = FindOpFor(LoadKnownCase(kron));
  ASSERT_NE(spec, nullptr);
  SupervisorOptions isolation;
  isolation.executable = DPFUZZ_BINARY;
  isolation.jobs = 1;
  absl::StatusOr<KnownCases> learned = LearnKnownCases(dir, {spec}, isolation);
  ASSERT_TRUE(learned.ok()) << learned.status();
  EXPECT_EQ(learned->cases, 2);
  EXPECT_EQ(learned->selected, 1);
  const std::string signature =
      "aten::kron|functional|rejection_mismatch|i64,i64|cpu";
  if (KnownFindingShows(kron)) {
    ASSERT_EQ(learned->known.entries().size(), 1u);
    EXPECT_TRUE(learned->quiet.empty());
    const std::optional<KnownIssues::Entry> match =
        learned->known.Match(signature);
    ASSERT_TRUE(match.has_value());
    EXPECT_EQ(match->note, dir + "/" + kron);
  } else {
    EXPECT_TRUE(learned->known.entries().empty());
    EXPECT_EQ(learned->quiet.size(), 1u);
  }
  EXPECT_FALSE(
      learned->known.Match("aten::tril.out|out|outside_write|f32,f32|cpu")
          .has_value());
  EXPECT_FALSE(
      learned->known.Match("aten::kron|functional|mismatch|f32,f32|cpu")
          .has_value());
}

TEST(KnownCasesTest, ADirectoryWithoutCasesIsAnError) {
  const std::string dir = ::testing::TempDir() + "/known_cases_empty";
  std::filesystem::create_directories(dir);
  EXPECT_FALSE(LearnKnownCases(dir, {}, SupervisorOptions()).ok());
}

}  // namespace
}  // namespace dpfuzz
