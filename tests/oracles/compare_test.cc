#include "oracles/compare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "oracles/rules.h"

namespace dpfuzz {
namespace {

using ::testing::HasSubstr;

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

at::Tensor F(std::vector<double> v, at::ScalarType t = at::kFloat) {
  return at::tensor(v, at::kDouble).to(t);
}

TEST(CompareTest, ExactTreatsNansAndSignedZerosAsEqual) {
  EXPECT_FALSE(CompareValues(F({1, kNan, 0.0, kInf}), F({1, kNan, -0.0, kInf}),
                             Comparison::kExact));
  std::optional<Difference> d =
      CompareValues(F({1, 2, 3}), F({1, 2.5, 3}), Comparison::kExact);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, Verdict::kMismatch);
  EXPECT_EQ(d->index, "[1]");
  EXPECT_EQ(d->count, 1);
  EXPECT_EQ(d->max_error, 0.5);
}

TEST(CompareTest, ReportsNanIntroducedAndThePoison) {
  at::Tensor actual = F({1, 2});
  // The float poison: a quiet NaN with a 0xA5 payload.
  const uint32_t poison = 0x7FE5A5A5u;
  std::memcpy(static_cast<float*>(actual.data_ptr()) + 1, &poison, 4);
  std::optional<Difference> d =
      CompareValues(F({1, 2}), actual, Comparison::kExact);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, Verdict::kNanIntroduced);
  EXPECT_THAT(d->detail, HasSubstr("(the poison of a gap)"));
}

TEST(CompareTest, IntegersAndBoolsAreExact) {
  EXPECT_TRUE(CompareValues(at::tensor({1, 2}), at::tensor({1, 3}),
                            Comparison::kTolerance));
  EXPECT_FALSE(CompareValues(at::ones({2}, at::kBool), at::ones({2}, at::kBool),
                             Comparison::kExact));
  EXPECT_TRUE(CompareValues(at::ones({2}, at::kBool), at::zeros({2}, at::kBool),
                            Comparison::kExact));
  std::optional<Difference> d = CompareValues(
      at::tensor({int64_t{-5}}), at::tensor({int64_t{7}}), Comparison::kExact);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->expected, "-5");
  EXPECT_EQ(d->actual, "7");
}

TEST(CompareTest, ToleranceUsesAssertCloseDefaultsThenTheReference) {
  // float32: rtol 1.3e-6, atol 1e-5.
  EXPECT_FALSE(CompareValues(F({100}), F({100.0001}), Comparison::kTolerance));
  EXPECT_TRUE(CompareValues(F({100}), F({100.01}), Comparison::kTolerance));
  // float16 sums: baseline exact, variant 2.5 ulp off; within four
  // roundings of the float64 reference.
  const at::Tensor ref = F({-183}, at::kDouble);
  EXPECT_TRUE(CompareValues(F({-183}, at::kHalf), F({-182.375}, at::kHalf),
                            Comparison::kTolerance));
  EXPECT_FALSE(CompareValues(F({-183}, at::kHalf), F({-182.375}, at::kHalf),
                             Comparison::kTolerance, ref));
  // As far off as twice the baseline is fine; further is not.
  const at::Tensor ref2 = F({10}, at::kDouble);
  EXPECT_FALSE(CompareValues(F({10.5}), F({9}), Comparison::kTolerance, ref2));
  EXPECT_TRUE(CompareValues(F({10.5}), F({8.5}), Comparison::kTolerance, ref2));
}

TEST(CompareTest, NonFiniteResultsAreComparedByNanness) {
  EXPECT_FALSE(CompareValues(F({kInf}), F({kNan}), Comparison::kTolerance));
  std::optional<Difference> d =
      CompareValues(F({kInf}), F({1}), Comparison::kTolerance);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, Verdict::kMismatch);
  EXPECT_EQ(CompareValues(F({1}), F({kNan}), Comparison::kTolerance)->verdict,
            Verdict::kNanIntroduced);
}

// Note [Accumulation error]: an infinity against a number is an overflow
// one order of summation took and the other avoided, possible only when
// the sum of |terms| reaches the dtype's range.
TEST(CompareTest, InfAgainstFiniteIsUnstableOnlyWhereSumsReachTheRange) {
  const at::Tensor baseline = F({1, -41376}, at::kHalf);
  const at::Tensor variant = F({1, -kInf}, at::kHalf);
  const at::Tensor ref = F({1, -41376}, at::kDouble);
  // The partial sums of element 1 can reach 70000 > 65504: agree.
  EXPECT_FALSE(CompareValues(baseline, variant, Comparison::kTolerance, ref,
                             F({1, 70000}, at::kDouble)));
  // Either side may be the one that overflowed.
  EXPECT_FALSE(CompareValues(variant, baseline, Comparison::kTolerance, ref,
                             F({1, 70000}, at::kDouble)));
  // Its terms sum to 41376 in magnitude: no order overflows, a finding.
  std::optional<Difference> d =
      CompareValues(baseline, variant, Comparison::kTolerance, ref,
                    F({1, 41376}, at::kDouble));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, Verdict::kMismatch);
  EXPECT_EQ(d->index, "[1]");
  // Without a magnitude, as before: a finding.
  EXPECT_TRUE(CompareValues(baseline, variant, Comparison::kTolerance, ref));
  // bfloat16's range is float32's: 70000 is far from it.
  EXPECT_TRUE(CompareValues(F({-41376}, at::kBFloat16),
                            F({-kInf}, at::kBFloat16), Comparison::kTolerance,
                            F({-41376}, at::kDouble), F({70000}, at::kDouble)));
  // An infinite input (an infinite magnitude) explains no rounding of
  // finite values...
  EXPECT_TRUE(CompareValues(F({5}, at::kHalf), F({6}, at::kHalf),
                            Comparison::kTolerance, F({5}, at::kDouble),
                            F({kInf}, at::kDouble)));
  // ...but whether a kernel multiplies it by a zero it could skip decides
  // between NaN (or inf) and a number.
  EXPECT_FALSE(CompareValues(F({5}, at::kHalf), F({kInf}, at::kHalf),
                             Comparison::kTolerance, F({kNan}, at::kDouble),
                             F({kInf}, at::kDouble)));
  EXPECT_FALSE(CompareValues(F({-7}, at::kHalf), F({kNan}, at::kHalf),
                             Comparison::kTolerance, F({kNan}, at::kDouble),
                             F({kNan}, at::kDouble)));
  // Exact comparisons know no accumulation.
  EXPECT_TRUE(CompareValues(baseline, variant, Comparison::kExact, ref,
                            F({1, 70000}, at::kDouble)));
}

TEST(CompareTest, NanAfterAnOverflowIsUnstableButThePoisonIsNot) {
  // inf - inf after one order overflowed: a computed NaN.
  EXPECT_FALSE(CompareValues(F({-41376}, at::kHalf), F({kNan}, at::kHalf),
                             Comparison::kTolerance, F({-41376}, at::kDouble),
                             F({70000}, at::kDouble)));
  EXPECT_EQ(CompareValues(F({-41376}, at::kHalf), F({kNan}, at::kHalf),
                          Comparison::kTolerance, F({-41376}, at::kDouble),
                          F({1000}, at::kDouble))
                ->verdict,
            Verdict::kNanIntroduced);
  // The poison of a gap stays nan_introduced whatever the magnitude.
  at::Tensor poisoned = F({0}, at::kHalf);
  const uint16_t poison = 0x7EA5u;
  std::memcpy(poisoned.data_ptr(), &poison, 2);
  for (double magnitude : {70000.0, kInf}) {
    EXPECT_EQ(
        CompareValues(F({-41376}, at::kHalf), poisoned, Comparison::kTolerance,
                      F({-41376}, at::kDouble), F({magnitude}, at::kDouble))
            ->verdict,
        Verdict::kNanIntroduced);
  }
}

TEST(CompareTest, AccumulationBoundScalesWithTheMagnitude) {
  // bfloat16 (eps 2^-7): the baseline exact, the variant 9% off.
  const at::Tensor baseline = F({1}, at::kBFloat16);
  const at::Tensor variant = F({0.90625}, at::kBFloat16);
  const at::Tensor ref = F({1}, at::kDouble);
  // Terms summing to 32 in magnitude: 8 * eps * 32 = 2 covers it.
  EXPECT_FALSE(CompareValues(baseline, variant, Comparison::kTolerance, ref,
                             F({32}, at::kDouble)));
  // Terms summing to 1: 8 * eps = 0.0625 does not.
  std::optional<Difference> d = CompareValues(
      baseline, variant, Comparison::kTolerance, ref, F({1}, at::kDouble));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->verdict, Verdict::kMismatch);
  EXPECT_TRUE(CompareValues(baseline, variant, Comparison::kTolerance, ref));
  // The bound is the dtype's: the same values in float32 are far apart.
  EXPECT_TRUE(CompareValues(F({1}), F({0.90625}), Comparison::kTolerance, ref,
                            F({32}, at::kDouble)));
  // A bfloat16 matmul that once looked like a bug: 0.375 (exact) against
  // 0.34375.
  const at::Tensor mm_ref = F({0.375}, at::kDouble);
  EXPECT_TRUE(CompareValues(F({0.375}, at::kBFloat16),
                            F({0.34375}, at::kBFloat16), Comparison::kTolerance,
                            mm_ref));
  EXPECT_FALSE(
      CompareValues(F({0.375}, at::kBFloat16), F({0.34375}, at::kBFloat16),
                    Comparison::kTolerance, mm_ref, F({2.5}, at::kDouble)));
  EXPECT_EQ(Epsilon(at::kHalf), 1.0 / 1024);
  EXPECT_EQ(Epsilon(at::kBFloat16), 1.0 / 128);
  EXPECT_EQ(Epsilon(at::kInt), 0);
}

TEST(CompareTest, ShapeAndDtypeDifferences) {
  EXPECT_THAT(CompareValues(F({1, 2}), F({1}), Comparison::kExact)->detail,
              HasSubstr("shape [1] where the baseline has [2]"));
  EXPECT_THAT(
      CompareValues(F({1}), F({1}, at::kDouble), Comparison::kExact)->detail,
      HasSubstr("dtype Double where the baseline has Float"));
}

TEST(CompareTest, StridedTensorsAreReadLogically) {
  at::Tensor base = at::arange(6, at::kFloat).reshape({2, 3});
  at::Tensor transposed =
      base.t().contiguous().t();  // Same values, strides (1, 2).
  EXPECT_FALSE(CompareValues(base, transposed, Comparison::kExact));
  EXPECT_EQ(MultiIndex(4, {2, 3}), "[1, 1]");
}

// complex32 (chalf) is two halves: read as such, not as doubles past the
// element (which made equal results differ, a false finding).
TEST(CompareTest, ComplexHalfIsReadAsTwoHalves) {
  auto chalf = [](const std::vector<float>& parts) {
    at::Tensor t =
        at::empty({static_cast<int64_t>(parts.size() / 2)}, at::kComplexHalf);
    auto* p = static_cast<c10::Half*>(t.data_ptr());
    for (size_t i = 0; i < parts.size(); ++i) p[i] = c10::Half(parts[i]);
    return t;
  };
  const at::Tensor a = chalf({1.5, -2, 0.25, 3, -1, 0});
  EXPECT_FALSE(
      CompareValues(a, chalf({1.5, -2, 0.25, 3, -1, 0}), Comparison::kExact)
          .has_value());
  const std::optional<Difference> d =
      CompareValues(a, chalf({1.5, -2, 0.25, 3, -1, 0.5}), Comparison::kExact);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->index, "[2]");
  EXPECT_EQ(d->expected, "(-1, 0)");
  EXPECT_EQ(d->actual, "(-1, 0.5)");
}

// A conjugate or negative view keeps its bit on the tensor, its memory
// unchanged: it is compared by the values it reads as.
TEST(CompareTest, ConjugateAndNegativeViewsAreReadByValue) {
  const at::Tensor z =
      at::full({2}, c10::complex<double>(1.0, 2.0), at::kComplexDouble);
  const at::Tensor conj = z.conj();
  ASSERT_TRUE(conj.is_conj());
  EXPECT_FALSE(
      CompareValues(conj.resolve_conj(), conj, Comparison::kExact).has_value());
  EXPECT_TRUE(CompareValues(z, conj, Comparison::kExact).has_value());
  const at::Tensor neg = at::_neg_view(conj.resolve_conj());
  ASSERT_TRUE(neg.is_neg());
  EXPECT_FALSE(
      CompareValues(neg.resolve_neg(), neg, Comparison::kExact).has_value());
}

// Indices of tied values are judged by the values they select, along the
// dim the op reduced: the case's, else its schema's default (topk's -1),
// never the flattened input.
TEST(CompareTest, TiedIndicesAreJudgedAlongTheSchemasDefaultDim) {
  OpSpec spec;
  spec.rules = kRuleTiedIndices;
  Case c;
  c.op = "aten::topk";  // dim left out: -1.
  const at::Tensor self = F({1, 2, 5, 5}).view({2, 2});
  const at::Tensor expected = at::tensor({1, 0}, at::kLong).view({2, 1});
  const at::Tensor tied = at::tensor({1, 1}, at::kLong).view({2, 1});
  const at::Tensor other = at::tensor({0, 1}, at::kLong).view({2, 1});
  EXPECT_FALSE(CompareOutput(spec, c, self, expected, tied, at::Tensor(),
                             at::Tensor(), 1)
                   .has_value());
  EXPECT_TRUE(CompareOutput(spec, c, self, expected, other, at::Tensor(),
                            at::Tensor(), 1)
                  .has_value());
}

}  // namespace
}  // namespace dpfuzz
