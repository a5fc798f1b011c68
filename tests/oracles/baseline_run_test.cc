// BuildCaseWithBaseline hands RunCase its probe only where the probe ran
// the very case it returns, and RunCase judges a case the same with the
// probe's run as without it (oracles/baseline_run.h).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "generators/contract_rules.h"
#include "generators/op_registry.h"
#include "generators/rng.h"
#include "oracles/case_builder.h"
#include "oracles/run_case.h"
#include "tests/planted/correct_specs.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

struct TakenOver {
  int taken_over = 0;  // Cases RunCase judged from the probe's run.
  int findings = 0;    // Of those, cases with a finding.
};

// Builds up to `draws` functional cases of `spec` and, for each that keeps
// its probe's run, expects RunCase to give the same outcome from the run
// as from the case alone.
void ExpectSameOutcomes(const OpSpec& spec, int draws, const BuildOptions& o,
                        TakenOver& tally) {
  Rng rng(7);
  for (int i = 0; i < draws; ++i) {
    absl::StatusOr<std::optional<BuiltCase>> built = BuildCaseWithBaseline(
        spec, rng.Pick(spec.dtypes), Variant::kFunctional, rng.Next(), o);
    ASSERT_TRUE(built.ok()) << spec.op << ": " << built.status();
    if (!built->has_value() || !(*built)->baseline_run.has_value()) continue;
    const Case& c = (*built)->c;
    absl::StatusOr<CaseOutcome> alone = RunCase(spec, c);
    absl::StatusOr<CaseOutcome> taken =
        RunCase(spec, c, std::move((*built)->baseline_run));
    ASSERT_TRUE(alone.ok()) << alone.status();
    ASSERT_TRUE(taken.ok()) << taken.status();
    // The same verdict, found in the same place (not always in the same
    // words: an op that reads past its storage reads what lies there).
    EXPECT_EQ(taken->verdict, alone->verdict) << CaseToString(c);
    EXPECT_EQ(taken->evidence.where, alone->evidence.where) << CaseToString(c);
    ++tally.taken_over;
    if (IsFinding(taken->verdict)) ++tally.findings;
  }
}

TEST(BaselineRunTest, RunCaseJudgesTheProbesRunAsTheCaseAlone) {
  BuildOptions forward_only;
  forward_only.check_grad = false;
  TakenOver planted;
  for (const PlantedOp& op : PlantedOps()) {
    ExpectSameOutcomes(op.spec, 40, forward_only, planted);
  }
  // The planted bugs are found from the probe's run too.
  EXPECT_GE(planted.findings, 10);
  TakenOver curated;
  for (const OpSpec& spec : CuratedOps()) {
    if (spec.nested || !spec.seeds_only.empty()) continue;
    ExpectSameOutcomes(spec, 4, forward_only, curated);
  }
  EXPECT_GE(curated.taken_over, 100);
}

// The probe runs under the grad mode the case's baseline and variant run
// under: an op that takes another path by grad mode, judged from the
// probe's run, compares layouts, not paths.
TEST(BaselineRunTest, TheProbeRunsUnderTheGradModeOfTheCase) {
  BuildOptions forward_only;
  forward_only.check_grad = false;
  const OpSpec* grad_mode_path = CorrectOp("grad_mode_path");
  ASSERT_NE(grad_mode_path, nullptr);
  TakenOver tally;
  ExpectSameOutcomes(*grad_mode_path, 40, forward_only, tally);
  EXPECT_GE(tally.taken_over, 30);
  EXPECT_EQ(tally.findings, 0);
}

struct KeptRuns {
  int runs = 0;     // Cases that kept the probe's run.
  int mutated = 0;  // Cases with arguments mutated by design.
};

// Every case built in `variant` keeps its probe's run exactly when it is
// functional without grad_outputs, aliases, requires_grad or arguments
// mutated by design.
KeptRuns ExpectRunOnlyWhereTheProbeRanTheCase(const OpSpec& spec,
                                              Variant variant,
                                              const BuildOptions& options) {
  Rng rng(3);
  KeptRuns kept;
  for (int i = 0; i < 60; ++i) {
    absl::StatusOr<std::optional<BuiltCase>> built = BuildCaseWithBaseline(
        spec, rng.Pick(spec.dtypes), variant, rng.Next(), options);
    EXPECT_TRUE(built.ok()) << built.status();
    if (!built.ok() || !built->has_value()) continue;
    Case& c = (*built)->c;
    bool grad = !c.grad_outputs.empty();
    for (const TensorSpec* t : AllTensorSpecsOf(c)) {
      grad = grad || t->requires_grad;
    }
    const bool mutated = !MutatedByDesign(c).empty();
    const bool probed = variant == Variant::kFunctional && !grad &&
                        c.aliases.empty() && !mutated;
    EXPECT_EQ((*built)->baseline_run.has_value(), probed) << CaseToString(c);
    kept.runs += (*built)->baseline_run.has_value() ? 1 : 0;
    kept.mutated += mutated ? 1 : 0;
  }
  return kept;
}

TEST(BaselineRunTest, KeptOnlyWhereTheProbeRanTheCase) {
  const OpSpec& add = *FindCuratedOp("add");
  BuildOptions options;  // Grads on, aliases 1 in 8.
  EXPECT_EQ(
      ExpectRunOnlyWhereTheProbeRanTheCase(add, Variant::kOut, options).runs,
      0);
  EXPECT_EQ(
      ExpectRunOnlyWhereTheProbeRanTheCase(add, Variant::kInplace, options)
          .runs,
      0);
  // Float cases get grads, integer ones none: some keep the run.
  EXPECT_GT(
      ExpectRunOnlyWhereTheProbeRanTheCase(add, Variant::kFunctional, options)
          .runs,
      0);
  // Training batch norm updates its running stats (mutated by design).
  options.check_grad = false;
  const KeptRuns batch_norm = ExpectRunOnlyWhereTheProbeRanTheCase(
      *FindCuratedOp("batch_norm"), Variant::kFunctional, options);
  EXPECT_GT(batch_norm.mutated, 0);
  EXPECT_GT(batch_norm.runs, 0);
}

}  // namespace
}  // namespace dpfuzz
