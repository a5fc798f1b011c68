// Ill-conditioned baselines (oracles/conditioning.h) and baselines that
// read unwritten memory (Note [Baselines that read unwritten memory]):
// one-ulp nudges by dtype, the envelope test, non-finite inputs and
// results, and both judgements end to end on planted_unstable ops, with
// planted_class::skewed_neg (wrong by a whole unit no nudge gives) as the
// layout bug they must leave alone.

#include "oracles/conditioning.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "crashes/bugs/bug.h"
#include "generators/rng.h"
#include "oracles/case_builder.h"
#include "oracles/run_case.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

at::Tensor Nudged(const at::Tensor& values, Nudge nudge,
                  const std::vector<std::string>& written = {}) {
  CaseTensors t;
  t.args["self"] = {values.clone()};
  NudgeInputs(t, written, nudge);
  return t.args["self"].front();
}

TEST(NudgeInputsTest, FloatAndDoubleStepAsNextafter) {
  const std::vector<double> values = {3, 0, -0.0, -2.5, 1e-40, 3.4e38};
  for (at::ScalarType type : {at::kFloat, at::kDouble}) {
    const at::Tensor t = at::tensor(values, at::kDouble).to(type);
    const at::Tensor up = Nudged(t, Nudge::kUp).to(at::kDouble);
    const at::Tensor down = Nudged(t, Nudge::kDown).to(at::kDouble);
    for (size_t i = 0; i < values.size(); ++i) {
      const double v = t[i].item<double>();
      const float f = static_cast<float>(v);
      const float f_inf = std::numeric_limits<float>::infinity();
      const double want_up = type == at::kFloat ? std::nextafter(f, f_inf)
                                                : std::nextafter(v, kInf);
      const double want_down = type == at::kFloat ? std::nextafter(f, -f_inf)
                                                  : std::nextafter(v, -kInf);
      EXPECT_EQ(up[i].item<double>(), want_up) << v << " " << type;
      EXPECT_EQ(down[i].item<double>(), want_down) << v << " " << type;
    }
  }
}

TEST(NudgeInputsTest, HalfBfloat16AndComplexStepByTheirOwnUlp) {
  const at::Tensor three = at::full({1}, 3.0, at::kHalf);
  EXPECT_EQ(Nudged(three, Nudge::kUp).item<double>(), 3 + 1.0 / 512);
  EXPECT_EQ(Nudged(three, Nudge::kDown).item<double>(), 3 - 1.0 / 512);
  const at::Tensor one = at::full({1}, 1.0, at::kBFloat16);
  EXPECT_EQ(Nudged(one, Nudge::kUp).item<double>(), 1 + 1.0 / 128);
  const at::Tensor z = at::full({1}, c10::complex<float>(1, -1),
                                at::TensorOptions().dtype(at::kComplexFloat));
  const at::Tensor parts = at::view_as_real(Nudged(z, Nudge::kUp));
  EXPECT_GT(parts[0][0].item<float>(), 1.0f);
  EXPECT_GT(parts[0][1].item<float>(), -1.0f);
}

TEST(NudgeInputsTest, LeavesNaNInfinitiesIntegersAndWrittenArgumentsAlone) {
  const at::Tensor nan = at::full({1}, std::nan(""), at::kFloat);
  EXPECT_TRUE(std::isnan(Nudged(nan, Nudge::kUp).item<float>()));
  const at::Tensor inf = at::tensor({kInf, -kInf}).to(at::kFloat);
  EXPECT_TRUE(Nudged(inf, Nudge::kUp).equal(inf));
  EXPECT_TRUE(Nudged(inf, Nudge::kDown).equal(inf));
  const at::Tensor ints = at::arange(3, at::kLong);
  EXPECT_TRUE(Nudged(ints, Nudge::kUp).equal(ints));
  const at::Tensor floats = at::arange(3, at::kFloat);
  EXPECT_TRUE(Nudged(floats, Nudge::kUp, {"self"}).equal(floats));
}

TEST(WithinNudgesTest, ValuesTheNudgedBaselinesSpan) {
  const auto f = [](std::vector<double> v) { return at::tensor(v); };
  // A step at the element: the baseline gives 1.5 and 1 around it.
  EXPECT_TRUE(WithinNudges(f({1.5, 2}), f({1, 2}), f({1.5, 2}), f({1, 2})));
  EXPECT_FALSE(WithinNudges(f({1.5, 2}), f({1, 2}), f({1.5, 2}), f({1, 3})));
  // Within the dtype's tolerance of the span.
  EXPECT_TRUE(WithinNudges(f({1}), f({1}), f({1}), f({1 + 1e-7})));
  // An element that turns non-finite under a nudge holds any value.
  EXPECT_TRUE(WithinNudges(f({0}), f({std::nan("")}), f({0}), f({5})));
  // A steadily non-finite element must be matched.
  EXPECT_FALSE(WithinNudges(f({kInf}), f({kInf}), f({kInf}), f({5})));
  EXPECT_TRUE(WithinNudges(f({kInf}), f({kInf}), f({kInf}), f({kInf})));
  // A NaN where every baseline is finite is never within.
  EXPECT_FALSE(WithinNudges(f({1}), f({1}), f({1}), f({std::nan("")})));
  EXPECT_FALSE(WithinNudges(f({1}), f({1}), f({1}), f({1, 1})));
}

TEST(NonFiniteTest, InputsAndResults) {
  const auto inputs = [](std::vector<double> v) {
    CaseTensors t;
    t.args["self"] = {at::tensor(v)};
    t.args["out"] = {at::full({1}, std::nan(""))};
    t.args["index"] = {at::arange(2, at::kLong)};
    return t;
  };
  // The out= argument is written, not read: its NaN does not count.
  EXPECT_TRUE(InfinitiesWithoutNaN(inputs({-kInf, 1}), {"out"}));
  EXPECT_FALSE(InfinitiesWithoutNaN(inputs({-kInf, std::nan("")}), {"out"}));
  EXPECT_FALSE(InfinitiesWithoutNaN(inputs({1, 2}), {"out"}));
  EXPECT_FALSE(InfinitiesWithoutNaN(inputs({-kInf, 2}), {}));
  EXPECT_TRUE(NonFiniteInputs(inputs({std::nan(""), 2}), {"out"}));
  EXPECT_TRUE(NonFiniteInputs(inputs({1, 2}), {}));
  EXPECT_FALSE(NonFiniteInputs(inputs({1, 2}), {"out"}));
  EXPECT_TRUE(HoldsNonFinite({at::tensor({1.0, kInf})}));
  EXPECT_FALSE(HoldsNonFinite({at::tensor({1.0, kInf})}, /*nan_only=*/true));
  EXPECT_TRUE(HoldsNonFinite({at::arange(2), at::tensor({std::nan("")})},
                             /*nan_only=*/true));
  EXPECT_FALSE(HoldsNonFinite({at::tensor({1.0, 2.0}), at::arange(2)}));
}

struct Judged {
  int layout_bugs = 0;
  int ill_conditioned = 0;
  int baseline_failures = 0;
  std::string example;
  std::vector<std::string> stable;  // Layout bugs not ill-conditioned.
};

// Judges up to `cases` cases of `spec` from a fixed seed.
Judged Judge(const OpSpec& spec, int cases) {
  Judged j;
  Rng rng(7);
  for (int i = 0; i < cases; ++i) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(spec, DType::kFloat32, Variant::kFunctional, rng.Next());
    if (!c.ok() || !c->has_value()) continue;
    absl::StatusOr<CaseOutcome> o = RunCase(spec, **c);
    EXPECT_TRUE(o.ok()) << o.status();
    if (!o.ok() || !IsFinding(o->verdict)) continue;
    if (o->kind == FindingKind::kBaselineFailure) {
      ++j.baseline_failures;
      j.example = o->evidence.detail;
      continue;
    }
    ++j.layout_bugs;
    Finding f;
    f.c = **c;
    f.outcome = *o;
    if (o->evidence.ill_conditioned.empty()) {
      j.stable.push_back(absl::StrCat(o->evidence.mechanism, ": ",
                                      o->evidence.detail, "\n",
                                      CaseToString(**c)));
    } else {
      ++j.ill_conditioned;
      EXPECT_EQ(ConfidenceOf(f).confidence, Confidence::kLow);
      j.example = o->evidence.ill_conditioned;
    }
  }
  return j;
}

const OpSpec& Unstable(const std::string& name) {
  for (const PlantedOp& p : PlantedUnstableOps()) {
    if (p.spec.op == "planted_unstable::" + name) return p.spec;
  }
  ADD_FAILURE() << name;
  return PlantedUnstableOps().front().spec;
}

TEST(IllConditionedTest, StepKernelsDisagreeingAtTheStepAreLowConfidence) {
  const Judged j = Judge(Unstable("step_at_zero"), 300);
  EXPECT_GE(j.layout_bugs, 1);
  EXPECT_EQ(j.ill_conditioned, j.layout_bugs)
      << ::testing::PrintToString(j.stable);
  EXPECT_THAT(j.example, ::testing::HasSubstr("one unit in the last place"));
}

TEST(IllConditionedTest, WrongByAWholeUnitStaysHigh) {
  for (const ClassOp& op : PlantedClassOps()) {
    if (op.spec.op != "planted_class::skewed_neg") continue;
    const Judged j = Judge(op.spec, 100);
    EXPECT_GE(j.layout_bugs, 1);
    EXPECT_EQ(j.ill_conditioned, 0);
    EXPECT_EQ(j.baseline_failures, 0);
  }
}

TEST(UnwrittenBaselineTest, AResultTheBaselineNeverWroteIsABaselineFailure) {
  const Judged j = Judge(Unstable("tail_garbage"), 100);
  EXPECT_GE(j.baseline_failures, 1);
  EXPECT_EQ(j.layout_bugs, 0);
  EXPECT_THAT(j.example, ::testing::HasSubstr("fresh memory holds"));
}

TEST(SpecialValuesTest, KernelsDifferingOnlyAtNaNAreLowConfidence) {
  const Judged j = Judge(Unstable("nan_to_zero_contiguous"), 400);
  EXPECT_GE(j.layout_bugs, 1);
  EXPECT_EQ(j.ill_conditioned, j.layout_bugs)
      << ::testing::PrintToString(j.stable);
  EXPECT_THAT(j.example,
              ::testing::HasSubstr("NaN the inputs were drawn with"));
}

TEST(OverrunBaselineTest, AWritePastAnArgumentsEndIsABaselineFailure) {
  const Judged j = Judge(Unstable("write_past_end"), 100);
  EXPECT_GE(j.baseline_failures, 1);
  EXPECT_EQ(j.layout_bugs, 0);
  EXPECT_THAT(j.example, ::testing::HasSubstr("writes past the end of self"));
}

}  // namespace
}  // namespace dpfuzz
