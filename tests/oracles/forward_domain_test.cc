// Note [The forward decides a backward's domain]: a backward op's layout
// bug stays one on arguments its forward accepts; a case with a scale its
// forward rejects or a grad_output of another shape than the forward's
// result is rejected before the backward is called
// (planted_unstable::scaled_backward).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "generators/case_json.h"
#include "oracles/run_case.h"

namespace dpfuzz {
namespace {

std::string TensorJson(const std::string& name, const std::string& sizes,
                       const std::string& strides, uint64_t seed) {
  return absl::StrFormat(
      R"({"name": "%s", "tensor": {"device": "cpu", "dtype": "f32",
          "requires_grad": false, "sizes": %s, "storage_offset": 0,
          "strides": %s, "values": {"distribution": "small_int",
          "seed": %d, "specials": []}}})",
      name, sizes, strides, seed);
}

// scaled_backward with a transposed grad_output [3, 2], a self of `self`
// sizes (contiguous) and `scale`.
CaseOutcome RunScaledBackward(const std::string& self,
                              const std::string& self_strides, double scale) {
  const std::string text = absl::StrCat(
      R"({"format": "dpfuzz-case", "version": 1,
          "op": "planted_unstable::scaled_backward", "overload": "",
          "variant": "functional", "seed": 0, "args": [)",
      TensorJson("grad_output", "[3, 2]", "[1, 3]", 1), ", ",
      TensorJson("self", self, self_strides, 2), ", ",
      absl::StrFormat(R"({"name": "scale", "float": %f})", scale), "]}");
  absl::StatusOr<Case> c = CaseFromJson(text);
  EXPECT_TRUE(c.ok()) << c.status();
  OpSpec spec;
  spec.op = "planted_unstable::scaled_backward";
  spec.dtypes = {DType::kFloat32};
  spec.rules = kRuleCheckDeterminism;
  absl::StatusOr<CaseOutcome> o = RunCase(spec, *c);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *o : CaseOutcome{};
}

TEST(ForwardDomainTest, ArgumentsTheForwardAcceptsKeepALayoutBug) {
  const CaseOutcome o = RunScaledBackward("[3, 2]", "[2, 1]", 2.0);
  EXPECT_EQ(o.verdict, Verdict::kMismatch);
  EXPECT_EQ(o.kind, FindingKind::kLayoutBug) << o.evidence.detail;
}

TEST(ForwardDomainTest, ArgumentsTheForwardRejectsAreNoCase) {
  const CaseOutcome o = RunScaledBackward("[3, 2]", "[2, 1]", -1.0);
  EXPECT_EQ(o.verdict, Verdict::kBothRejected);
  EXPECT_THAT(o.evidence.detail,
              ::testing::HasSubstr("the forward op planted_unstable::scaled "
                                   "rejects these arguments: scaled: scale "
                                   "must be positive"));
}

TEST(ForwardDomainTest, AGradOutputOfAnotherShapeIsNoCase) {
  const CaseOutcome o = RunScaledBackward("[2]", "[1]", 2.0);
  EXPECT_EQ(o.verdict, Verdict::kBothRejected);
  EXPECT_THAT(o.evidence.detail,
              ::testing::HasSubstr("grad_output is [3, 2] where the forward "
                                   "op planted_unstable::scaled returns [2]"));
}

}  // namespace
}  // namespace dpfuzz
