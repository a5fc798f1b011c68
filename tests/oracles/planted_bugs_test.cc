// End to end through the engine: every planted bug is found with its
// verdict within a bounded number of cases from a fixed seed, and the
// correct planted op gives no finding over 10,000 cases.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "generators/rng.h"
#include "oracles/case_builder.h"
#include "oracles/run_case.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

struct Tally {
  int cases = 0;
  int findings = 0;
  std::map<Verdict, int> verdicts;
  std::string first_finding;
};

// Runs up to `max_cases` cases of `spec` from `seed`, stopping at the first
// case with verdict `stop_at` (if any).
Tally Fuzz(const OpSpec& spec, int max_cases, uint64_t seed,
           std::optional<Verdict> stop_at) {
  Tally tally;
  Rng rng(seed);
  const std::vector<Variant> variants = VariantsOf(spec);
  for (int attempt = 0; tally.cases < max_cases && attempt < 4 * max_cases;
       ++attempt) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(spec, rng.Pick(spec.dtypes), rng.Pick(variants), rng.Next());
    EXPECT_TRUE(c.ok()) << c.status();
    if (!c.ok() || !c->has_value()) continue;
    absl::StatusOr<CaseOutcome> outcome = RunCase(spec, **c);
    EXPECT_TRUE(outcome.ok()) << outcome.status();
    if (!outcome.ok()) continue;
    ++tally.cases;
    ++tally.verdicts[outcome->verdict];
    if (IsFinding(outcome->verdict)) {
      if (tally.findings++ == 0) {
        tally.first_finding = std::string(VerdictName(outcome->verdict)) +
                              ": " + outcome->evidence.detail + "\n" +
                              CaseToString(**c);
      }
      if (stop_at == outcome->verdict) break;
    }
  }
  return tally;
}

std::vector<PlantedOp> BuggyOps() {
  std::vector<PlantedOp> buggy;
  for (const PlantedOp& op : PlantedOps()) {
    if (op.expected != Verdict::kAgree) buggy.push_back(op);
  }
  return buggy;
}

class PlantedBugTest : public ::testing::TestWithParam<PlantedOp> {};

TEST_P(PlantedBugTest, FoundWithItsVerdict) {
  const PlantedOp& planted = GetParam();
  Tally tally = Fuzz(planted.spec, 500, 1, planted.expected);
  EXPECT_GE(tally.verdicts[planted.expected], 1)
      << planted.spec.op << " never gave " << VerdictName(planted.expected)
      << " in " << tally.cases
      << " cases; first finding: " << tally.first_finding;
}

INSTANTIATE_TEST_SUITE_P(Planted, PlantedBugTest,
                         ::testing::ValuesIn(BuggyOps()),
                         [](const ::testing::TestParamInfo<PlantedOp>& info) {
                           return info.param.spec.op.substr(
                               info.param.spec.op.find(':') + 2);
                         });

TEST(PlantedCorrectOpTest, NoFindingOverTenThousandCases) {
  for (const PlantedOp& planted : PlantedOps()) {
    if (planted.expected != Verdict::kAgree) continue;
    const Tally tally = Fuzz(planted.spec, 10000, 2, std::nullopt);
    EXPECT_EQ(tally.cases, 10000);
    EXPECT_EQ(tally.findings, 0)
        << planted.spec.op << ": " << tally.first_finding;
  }
}

// The ops wrong only on CUDA (tests/oracles/cuda_oracles_test.cc) are right
// on the CPU, where no device oracle runs.
TEST(PlantedCudaOpsTest, RightOnTheCpu) {
  for (const PlantedOp& planted : PlantedCudaOps()) {
    const Tally tally = Fuzz(planted.spec, 200, 3, std::nullopt);
    EXPECT_EQ(tally.cases, 200);
    EXPECT_EQ(tally.findings, 0)
        << planted.spec.op << ": " << tally.first_finding;
  }
}

}  // namespace
}  // namespace dpfuzz
