// The nested oracles end to end in-process: a nested kernel that reads the
// buffer as if its components were dense (planted_nested::buffer_relu) is
// found as a wrong value, a correct one (planted_nested::good_relu) never
// gives a finding, and LibTorch's own nested ops run through the same
// path (cases built and judged, no dpfuzz error).

#include "oracles/nested_case.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "generators/op_catalog.h"
#include "generators/op_registry.h"
#include "generators/rng.h"
#include "oracles/case_builder.h"
#include "oracles/run_case.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

const OpSpec& Spec(const std::string& name) {
  for (const PlantedOp& p : PlantedNestedOps()) {
    if (p.spec.op == "planted_nested::" + name) return p.spec;
  }
  ADD_FAILURE() << "no planted nested op " << name;
  return PlantedNestedOps().front().spec;
}

// Verdicts of up to `cases` cases of `spec` from seed 1.
std::map<Verdict, int> Verdicts(const OpSpec& spec, int cases) {
  std::map<Verdict, int> verdicts;
  Rng rng(1);
  for (int i = 0; i < cases; ++i) {
    absl::StatusOr<std::optional<Case>> c = BuildCase(
        spec, rng.Pick(spec.dtypes), Variant::kFunctional, rng.Next());
    EXPECT_TRUE(c.ok()) << c.status();
    if (!c.ok() || !c->has_value()) continue;
    EXPECT_TRUE(HasNestedTensor(**c));
    absl::StatusOr<CaseOutcome> o = RunCase(spec, **c);
    EXPECT_TRUE(o.ok()) << o.status() << "\n" << CaseToString(**c);
    if (o.ok()) ++verdicts[o->verdict];
  }
  return verdicts;
}

TEST(NestedCaseTest, BufferReadAsDenseIsFound) {
  std::map<Verdict, int> v = Verdicts(Spec("buffer_relu"), 200);
  EXPECT_GT(v[Verdict::kMismatch] + v[Verdict::kNanIntroduced], 0);
  EXPECT_GT(v[Verdict::kAgree], 0);  // Contiguous draws are right.
}

TEST(NestedCaseTest, CorrectNestedOpHasNoFinding) {
  for (const auto& [verdict, count] : Verdicts(Spec("good_relu"), 500)) {
    EXPECT_FALSE(IsFinding(verdict))
        << count << " cases gave " << VerdictName(verdict);
  }
}

// Every curated nested spec builds cases that the nested oracles judge
// without an error of dpfuzz's own (which of them a LibTorch version
// supports on nested inputs is the op's business).
TEST(NestedCaseTest, CuratedNestedSpecsRun) {
  int specs = 0;
  for (const OpSpec& spec : CuratedOps()) {
    if (!spec.nested) continue;
    ++specs;
    EXPECT_EQ(FindOp(SpecName(spec)), &spec);
    Verdicts(spec, 20);
  }
  EXPECT_GE(specs, 10);
}

// "nested:NAME" selects the nested spec alone; NAME selects both.
TEST(NestedCaseTest, NestedPatternsSelectNestedSpecsOnly) {
  absl::StatusOr<std::vector<const OpSpec*>> nested =
      ResolveOps("nested:bmm", Device::kCpu);
  ASSERT_TRUE(nested.ok()) << nested.status();
  ASSERT_EQ(nested->size(), 1u);
  EXPECT_TRUE(nested->front()->nested);
  absl::StatusOr<std::vector<const OpSpec*>> both =
      ResolveOps("bmm", Device::kCpu);
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(std::count_if(both->begin(), both->end(),
                          [](const OpSpec* s) { return s->nested; }),
            1);
  EXPECT_GE(both->size(), 2u);
}

}  // namespace
}  // namespace dpfuzz
