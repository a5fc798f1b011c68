// Results LibTorch leaves unspecified, on real ops, are no layout bugs:
// an out= the contiguous baseline resizes where its functional call
// resizes too (Note [Out= tensors the baseline resizes]; one only the out=
// kernel resizes, as scratch, is a bug), the results of a factorization whose
// info says it failed (Note [Failed factorizations]), the gradient of a sparse
// result, which would flow through the to_dense that reads it (CheckBackward),
// and an output that reaches past its storage, which is never read
// (oracles/output_promises.h).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/version.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "generators/case_json.h"
#include "generators/op_registry.h"
#include "oracles/call_phase.h"
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

CaseOutcome RunJson(const std::string& case_json) {
  absl::StatusOr<Case> c = CaseFromJson(case_json);
  EXPECT_TRUE(c.ok()) << c.status();
  const OpSpec* spec = c.ok() ? FindOpFor(*c) : nullptr;
  EXPECT_NE(spec, nullptr);
  if (spec == nullptr) return CaseOutcome{};
  absl::StatusOr<CaseOutcome> o = RunCase(*spec, *c);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *o : CaseOutcome{};
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
  return RunJson(text);
}

TEST(UnspecifiedResultsTest, AnOutTheBaselineResizesIsABaselineFailure) {
  const CaseOutcome o = MatrixRankOut("[2, 1]", "[2, 1]", "[2, 1]");
  ASSERT_TRUE(IsFinding(o.verdict)) << VerdictName(o.verdict);
  EXPECT_EQ(o.kind, FindingKind::kBaselineFailure) << o.evidence.detail;
  EXPECT_THAT(o.evidence.detail,
              ::testing::HasSubstr("was resized since it had shape [2, 1]"));
}

// A tol that broadcasts: the gapped out is written where its view says.
// huber_loss's out= kernel writes the unreduced loss into a 0-dim out
// (resizing it, with the warning) and past its end; its functional call
// resizes nothing: a bug of the kernel, not of the arguments.
TEST(UnspecifiedResultsTest, AnOutUsedAsScratchIsALayoutBug) {
  const CaseOutcome o = RunJson(absl::StrCat(
      R"({"format": "dpfuzz-case", "version": 1, "op": "aten::huber_loss",
          "overload": "", "variant": "out", "seed": 0, "args": [)",
      TensorJson("self", "[2]", "[0]"), ", ", TensorJson("target", "[]", "[]"),
      ", ", TensorJson("out", "[]", "[]"), "]}"));
  ASSERT_TRUE(IsFinding(o.verdict)) << VerdictName(o.verdict);
  EXPECT_EQ(o.kind, FindingKind::kLayoutBug)
      << VerdictName(o.verdict) << ": " << o.evidence.detail;
}

TEST(UnspecifiedResultsTest, AFittingOutIsNoFinding) {
  const CaseOutcome o = MatrixRankOut("[1, 1]", "[1]", "[2]");
  EXPECT_EQ(o.verdict, Verdict::kAgree) << o.evidence.detail;
}

// linalg_solve_ex on a matrix expanded from one column (rank one): on
// LibTorch 1.13.1 the contiguous A and the expanded one factor A and its
// transpose, and report info 2 and 3 with NaN and infinities in other
// places. The baseline's info says the solve failed: no finding.
TEST(UnspecifiedResultsTest, AFailedFactorizationIsJudgedOnShapesOnly) {
  const CaseOutcome o = RunJson(
      R"json({"args": [{"name": "A", "tensor": {"device": "cpu", "dtype": "f64", "requires_grad": true, "sizes": [5, 5], "storage_offset": 23, "strides": [24, 0], "values": {"data": [-0.5237496495246887, -0.13075041770935059, 0.23051482439041138, 0.8982194066047668, 0.6538782715797424, -0.706691563129425, -0.7261688709259033, -0.2065720558166504, 0.037141505628824234, 0.11989924311637878, -0.28096073865890503, 0.32115405797958374, -0.28851860761642456, -0.5979390144348145, 0.6745384335517883, 0.13326424360275269, -0.35716861486434937, -1.0061194896697998, 0.22511173784732819, 0.38625502586364746, -0.15603211522102356, 0.29410895705223083, -0.4072991907596588, 0.3785538673400879, -0.8594318628311157], "distribution": "explicit", "seed": 0, "specials": []}}}, {"name": "B", "tensor": {"device": "cpu", "dtype": "f64", "requires_grad": false, "sizes": [5, 3], "storage_offset": 2, "strides": [1, 5], "values": {"data": [6.0966339111328125, -0.477294921875, -5.692005157470703, 6.232088088989258, -0.3655424118041992, -1.303131103515625, 4.7064409255981445, -0.6024456024169922, -2.322087287902832, 7.790964126586914, 0.5687141418457031, 3.7767410278320312, 4.588279724121094, -8.657974243164062, 0.043972015380859375], "distribution": "explicit", "seed": 0, "specials": []}}}], "format": "dpfuzz-case", "grad_outputs": [{"device": "cpu", "dtype": "f64", "requires_grad": false, "sizes": [5, 3], "storage_offset": 6, "strides": [3, 1], "values": {"distribution": "small_int", "seed": 4239239981741995137, "specials": ["-inf", "int_max"]}}], "op": "aten::linalg_solve_ex", "overload": "", "seed": 12909643320597542811, "variant": "functional", "version": 1})json");
  EXPECT_FALSE(IsFinding(o.verdict))
      << VerdictName(o.verdict) << ": " << o.evidence.detail;
}

// to_sparse returns a sparse tensor, read densified: a transposed
// grad_output makes to_dense's backward raise, which is not to_sparse's.
TEST(UnspecifiedResultsTest, ASparseResultGetsNoGradientCheck) {
  const CaseOutcome o = RunJson(R"json({"format": "dpfuzz-case", "version": 1,
      "op": "aten::to_sparse", "overload": "sparse_dim",
      "variant": "functional", "seed": 0, "args": [
        {"name": "self", "tensor": {"device": "cpu", "dtype": "f32",
         "requires_grad": true, "sizes": [2, 2, 1], "storage_offset": 0,
         "strides": [2, 1, 1], "values": {"distribution": "ones",
         "seed": 0, "specials": []}}},
        {"name": "sparse_dim", "int": 2}],
      "grad_outputs": [{"device": "cpu", "dtype": "f32",
        "requires_grad": false, "sizes": [2, 2, 1], "storage_offset": 0,
        "strides": [1, 2, 1], "values": {"distribution": "zeros", "seed": 0,
        "specials": []}}]})json");
  EXPECT_FALSE(IsFinding(o.verdict))
      << VerdictName(o.verdict) << ": " << o.evidence.detail;
}

// A case whose op returns a sparse result marks its call phase densified,
// which the supervisor reads when the worker dies (the to_dense may be
// where it died); a dense op's does not.
TEST(UnspecifiedResultsTest, ASparseResultMarksTheCallPhase) {
  // The op on a transposed 2x2 tensor of ones.
  const auto densified = [](const std::string& op) {
    ResetCallPhase();
    RunJson(absl::StrCat(
        R"json({"format": "dpfuzz-case", "version": 1, "op": ")json", op,
        R"json(", "overload": "", "variant": "functional", "seed": 0,
        "args": [{"name": "self", "tensor": {"device": "cpu", "dtype": "f32",
        "requires_grad": false, "sizes": [2, 2], "storage_offset": 0,
        "strides": [1, 2], "values": {"distribution": "ones", "seed": 0,
        "specials": []}}}]})json"));
    return CurrentCallPhase().densified;
  };
  EXPECT_TRUE(densified("aten::to_sparse"));
  EXPECT_FALSE(densified("aten::neg"));
}

// 1.13's set_ from an empty source at an offset keeps sizes [2, 1, 3] over
// a storage of 0 bytes; reading it killed the worker in dpfuzz's own code.
// The output is not read: the baseline's own failure is said. 2.x raises.
TEST(UnspecifiedResultsTest, AnOutputPastItsStorageIsNotRead) {
  const std::string text = absl::StrCat(
      R"({"format": "dpfuzz-case", "version": 1, "op": "aten::set_",
          "overload": "source_Tensor_storage_offset", "variant": "inplace",
          "seed": 0, "args": [)",
      TensorJson("self", "[2, 1, 3]", "[3, 3, 1]"), ", ",
      TensorJson("source", "[2, 3, 0]", "[3, 1, 1]"),
      R"(, {"int": 1, "name": "storage_offset"},
          {"ints": [2, 1, 3], "name": "size"}]})");
  const CaseOutcome o = RunJson(text);
#if TORCH_VERSION_MAJOR < 2
  EXPECT_EQ(o.verdict, Verdict::kLayoutContract) << VerdictName(o.verdict);
  EXPECT_EQ(o.kind, FindingKind::kBaselineFailure);
  EXPECT_EQ(o.evidence.where, "baseline output 0");
  EXPECT_THAT(o.evidence.detail,
              ::testing::HasSubstr("reaches element 6 of a storage of 0"));
#else
  EXPECT_EQ(o.verdict, Verdict::kBothRejected) << o.evidence.detail;
#endif
}

}  // namespace
}  // namespace dpfuzz
