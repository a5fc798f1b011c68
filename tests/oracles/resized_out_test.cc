// Note [Out= tensors the baseline resizes]: an out= finding whose
// contiguous baseline call resizes an out= of the functional call's size
// is a baseline failure. linalg_matrix_rank's `tol` of shape [2, 1] for
// one 1x1 matrix does not broadcast to its singular values; the out=
// path resizes out to [] and back to [2, 1], which restrides a gapped out.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "generators/case_json.h"
#include "generators/op_registry.h"
#include "oracles/run_case.h"

namespace dpfuzz {
namespace {

std::string TensorJson(const std::string& name, const std::string& sizes,
                       const std::string& strides) {
  return absl::StrFormat(
      R"({"name": "%s", "tensor": {"device": "cpu", "dtype": "f32",
          "requires_grad": false, "sizes": %s, "storage_offset": 0,
          "strides": %s, "values": {"distribution": "zeros", "seed": 0,
          "specials": []}}})",
      name, sizes, strides);
}

CaseOutcome MatrixRankOut(const std::string& tol_sizes,
                          const std::string& out_sizes,
                          const std::string& out_strides) {
  const std::string text = absl::StrCat(
      R"({"format": "dpfuzz-case", "version": 1,
          "op": "aten::linalg_matrix_rank", "overload": "tol_tensor",
          "variant": "out", "seed": 0, "args": [)",
      TensorJson("input", "[1, 1]", "[1, 1]"), ", ",
      TensorJson("tol", tol_sizes, "[1, 1]"), ", ",
      TensorJson("out", out_sizes, out_strides), "]}");
  absl::StatusOr<Case> c = CaseFromJson(text);
  EXPECT_TRUE(c.ok()) << c.status();
  const OpSpec* spec = FindOpFor(*c);
  EXPECT_NE(spec, nullptr);
  if (!c.ok() || spec == nullptr) return CaseOutcome{};
  absl::StatusOr<CaseOutcome> o = RunCase(*spec, *c);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *o : CaseOutcome{};
}

TEST(ResizedOutTest, AnOutTheBaselineResizesIsABaselineFailure) {
  const CaseOutcome o = MatrixRankOut("[2, 1]", "[2, 1]", "[2, 1]");
  ASSERT_TRUE(IsFinding(o.verdict)) << VerdictName(o.verdict);
  EXPECT_EQ(o.kind, FindingKind::kBaselineFailure) << o.evidence.detail;
  EXPECT_THAT(o.evidence.detail,
              ::testing::HasSubstr("was resized since it had shape [2, 1]"));
}

// A tol that broadcasts: the gapped out is written where its view says.
TEST(ResizedOutTest, AFittingOutIsNoFinding) {
  const CaseOutcome o = MatrixRankOut("[1, 1]", "[1]", "[2]");
  EXPECT_EQ(o.verdict, Verdict::kAgree) << o.evidence.detail;
}

}  // namespace
}  // namespace dpfuzz
