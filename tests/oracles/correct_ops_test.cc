// Trust: correct ops get no findings.
//
// Correct test ops that are hard to judge (tests/planted/correct_ops.cc)
// run for thousands of cases in every dtype they accept and must give no
// finding; the LibTorch ops whose half and bfloat16 accumulation gave
// false findings (sum, mm, matmul, bmm, instance_norm, batch_norm) must
// give none that float64 does not confirm; and the contract rules
// (generators/contract_rules.h) excuse exactly what they name.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "generators/contract_rules.h"
#include "generators/geometry.h"
#include "generators/op_args.h"
#include "generators/op_catalog.h"
#include "generators/op_registry.h"
#include "generators/rng.h"
#include "generators/schema_spec.h"
#include "oracles/case_builder.h"
#include "oracles/run_case.h"
#include "tests/planted/correct_specs.h"

namespace dpfuzz {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// `c` with every half and bfloat16 tensor (and dtype argument) in float64:
// the same logical values (Note [Exact values]; cases of ops judged with
// tolerances have no wide ones) without their rounding.
Case AsFloat64(Case c) {
  auto widen = [](TensorSpec& t) {
    if (t.dtype == DType::kFloat16 || t.dtype == DType::kBFloat16) {
      t.dtype = DType::kFloat64;  // Strides count elements: unchanged.
    }
  };
  for (Argument& arg : c.args) {
    if (auto* t = std::get_if<TensorSpec>(&arg.value)) widen(*t);
    if (auto* list = std::get_if<std::vector<TensorSpec>>(&arg.value)) {
      for (TensorSpec& t : *list) widen(t);
    }
    if (auto* s = std::get_if<std::string>(&arg.value)) {
      if (*s == "f16" || *s == "bf16") *s = "f64";
    }
  }
  for (TensorSpec& g : c.grad_outputs) widen(g);
  return c;
}

struct Tally {
  int cases = 0;
  int findings = 0;   // Those float64 does not confirm, when asked.
  int confirmed = 0;  // Findings float64 shows too: real layout bugs.
  std::map<Verdict, int> verdicts;
  std::string first_finding;
};

// Runs `cases` valid cases of `spec` in `dtype` from `seed`, variants
// drawn. `confirm`: a finding that the same case in float64 shows too is
// counted as confirmed, not as a finding.
Tally Fuzz(const OpSpec& spec, DType dtype, int cases, uint64_t seed,
           bool confirm = false, bool check_grad = true) {
  Tally tally;
  Rng rng(seed);
  const std::vector<Variant> variants = VariantsOf(spec);
  BuildOptions options;
  options.alias_one_in = 0;  // Aliased outputs are another question.
  options.check_grad = check_grad;
  for (int attempt = 0; tally.cases < cases && attempt < 8 * cases; ++attempt) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(spec, dtype, rng.Pick(variants), rng.Next(), options);
    EXPECT_TRUE(c.ok()) << c.status();
    if (!c.ok() || !c->has_value()) continue;
    absl::StatusOr<CaseOutcome> outcome = RunCase(spec, **c);
    EXPECT_TRUE(outcome.ok()) << outcome.status();
    if (!outcome.ok()) continue;
    ++tally.cases;
    ++tally.verdicts[outcome->verdict];
    if (!IsFinding(outcome->verdict)) continue;
    if (confirm) {
      absl::StatusOr<CaseOutcome> wide = RunCase(spec, AsFloat64(**c));
      if (wide.ok() && IsFinding(wide->verdict)) {
        ++tally.confirmed;
        continue;
      }
    }
    if (tally.findings++ == 0) {
      tally.first_finding = std::string(VerdictName(outcome->verdict)) + ": " +
                            outcome->evidence.where + ": " +
                            outcome->evidence.detail + "\n" + CaseToString(**c);
    }
  }
  return tally;
}

class CorrectOpsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { AddCorrectOpRules(); }
};

TEST_P(CorrectOpsTest, NoFindingInEveryDtype) {
  const OpSpec* spec = CorrectOp(GetParam());
  ASSERT_NE(spec, nullptr);
  for (DType dtype : spec->dtypes) {
    const Tally tally = Fuzz(*spec, dtype, 3000, 16);
    EXPECT_EQ(tally.cases, 3000) << spec->op << " " << DTypeName(dtype);
    EXPECT_EQ(tally.findings, 0)
        << spec->op << " " << DTypeName(dtype) << ": " << tally.first_finding;
  }
}

INSTANTIATE_TEST_SUITE_P(Correct, CorrectOpsTest,
                         ::testing::Values("widen_cumsum", "order_sum", "noisy",
                                           "running_update", "grad_mode_path",
                                           "unsteady_grad"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

// The generic spec of a random op (no nondeterministic tag, no random
// name): its two baseline runs differ, so only shapes are judged.
TEST(CorrectOpsTest, GenericNoisyOpIsFoundNondeterministic) {
  const OpSpec* generic = FindOp("correct::noisy");
  ASSERT_NE(generic, nullptr);
  EXPECT_EQ(generic->family, "generic");
  const Tally tally = Fuzz(*generic, DType::kFloat32, 500, 17);
  EXPECT_EQ(tally.findings, 0) << tally.first_finding;
}

// An op that reads past the end of an argument that does not fit the
// others (correct::unchecked_scale, drawn blind by its generic spec): such
// findings are baseline failures that say so, never layout bugs (Note
// [Baselines that read outside]).
TEST(CorrectOpsTest, BaselineReadingPastAnArgumentIsABaselineFailure) {
  const OpSpec* spec = FindOp("correct::unchecked_scale");
  ASSERT_NE(spec, nullptr);
  Rng rng(23);
  BuildOptions options;
  options.alias_one_in = 0;
  options.check_grad = false;
  int cases = 0, reads_past = 0, layout_bugs = 0;
  std::string first;
  for (int attempt = 0; cases < 400 && attempt < 4000; ++attempt) {
    absl::StatusOr<std::optional<Case>> c = BuildCase(
        *spec, DType::kFloat32, Variant::kFunctional, rng.Next(), options);
    ASSERT_TRUE(c.ok()) << c.status();
    if (!c->has_value()) continue;
    absl::StatusOr<CaseOutcome> outcome = RunCase(*spec, **c);
    ASSERT_TRUE(outcome.ok()) << outcome.status();
    ++cases;
    if (!IsFinding(outcome->verdict)) continue;
    if (outcome->kind == FindingKind::kBaselineFailure) {
      EXPECT_THAT(outcome->evidence.detail, HasSubstr("reads past"));
      ++reads_past;
    } else if (layout_bugs++ == 0) {
      first = absl::StrCat(VerdictName(outcome->verdict), ": ",
                           outcome->evidence.detail, "\n", CaseToString(**c));
    }
  }
  EXPECT_EQ(cases, 400);
  EXPECT_GT(reads_past, 0);
  EXPECT_EQ(layout_bugs, 0) << first;
}

// The contract rule excuses the update, not a wrong one: the control
// writes a strided running_mean as if it were contiguous.
TEST(CorrectOpsTest, WrongUpdateOfAMutatedArgumentIsStillFound) {
  AddCorrectOpRules();
  Tally tally = Fuzz(FlatRunningUpdateSpec(), DType::kFloat32, 500, 18);
  EXPECT_GT(tally.findings, 0);
  EXPECT_EQ(tally.verdicts[Verdict::kInputModified], 0);
}

// LibTorch's own accumulating ops in half and bfloat16: a finding must
// show in float64 as well (a layout bug), never only in the low precision
// (rounding or overflow in one summation order).
class LowPrecisionOpsTest : public ::testing::TestWithParam<std::string> {};

// True when the contract rules name an argument `spec`'s op mutates.
bool MutatesByDesign(const OpSpec& spec) {
  for (const MutatedArgument& rule : MutatedArgumentRules()) {
    if (rule.op == spec.op) return true;
  }
  return false;
}

TEST_P(LowPrecisionOpsTest, NoFindingFloat64DoesNotConfirm) {
  const OpSpec* spec = FindCuratedOp(GetParam());
  ASSERT_NE(spec, nullptr) << GetParam();
  int dtypes = 0;
  for (DType dtype : {DType::kFloat16, DType::kBFloat16}) {
    if (std::find(spec->dtypes.begin(), spec->dtypes.end(), dtype) ==
        spec->dtypes.end()) {
      continue;
    }
    ++dtypes;
    Tally tally = Fuzz(*spec, dtype, 800, 19, /*confirm=*/true);
    EXPECT_EQ(tally.cases, 800) << GetParam() << " " << DTypeName(dtype);
    EXPECT_EQ(tally.findings, 0)
        << GetParam() << " " << DTypeName(dtype) << ": " << tally.first_finding;
    // Float64 confirms these too, but for ops that update running
    // statistics by design they are the contract rules' business. (Other
    // ops may have real rejection bugs: matmul.out into a transposed out
    // raises on LibTorch 2.11.)
    if (MutatesByDesign(*spec)) {
      EXPECT_EQ(tally.verdicts[Verdict::kInputModified], 0) << GetParam();
      EXPECT_EQ(tally.verdicts[Verdict::kRejectionMismatch], 0) << GetParam();
    }
  }
  EXPECT_GT(dtypes, 0) << GetParam() << " takes neither half nor bfloat16";
}

INSTANTIATE_TEST_SUITE_P(LibTorch, LowPrecisionOpsTest,
                         ::testing::Values("aten::sum.dim_IntList", "aten::mm",
                                           "aten::matmul", "aten::bmm",
                                           "aten::instance_norm",
                                           "aten::batch_norm"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(6);
                           return name.substr(0, name.find('.'));
                         });

// A float16 sum whose terms reach the range: one order overflows, the
// other does not; and a bfloat16 sum of 768 ones that LibTorch 1.13 gets
// as 936 when the tensor is gapped (it accumulates in bfloat16 there).
TEST(LowPrecisionOpsTest, KnownRoundingCasesAgree) {
  const OpSpec* sum = FindOp("aten::sum");
  ASSERT_NE(sum, nullptr);
  Case c;
  c.op = "aten::sum";
  c.variant = Variant::kOut;
  TensorSpec self;
  self.dtype = DType::kBFloat16;
  self.layout = {{4, 4, 4, 4, 3}, {9, 132, 561, 2640, 1}, 529};
  self.values.distribution = Distribution::kOnes;
  TensorSpec out;
  out.dtype = DType::kBFloat16;
  out.layout = {{}, {}, 6};
  c.args = {Argument{"self", self}, Argument{"dtype", std::string("bf16")},
            Argument{"out", out}};
  absl::StatusOr<CaseOutcome> outcome = RunCase(*sum, c);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->verdict, Verdict::kAgree) << outcome->evidence.detail;
}

// A case seeded with PyTorch's samples (real-valued data, alpha=-3.14, as
// a campaign's seeds give) holds no exact values: add's vectorized loop
// fuses alpha * other + self and its loop over a broadcast `other` does
// not, one ulp apart ("expected -16.2891, got -16.2891" in 4 of 10
// elements, as a 20-s campaign reported). It is judged with tolerances,
// and agrees; its layouts are still judged (HoldsExactValues).
TEST(LowPrecisionOpsTest, SeededValuesAreComparedWithTolerances) {
  const OpSpec* add = FindOp("aten::add.Tensor");
  ASSERT_NE(add, nullptr);
  Case c;
  c.op = "aten::add";
  c.overload = "Tensor";
  c.variant = Variant::kFunctional;
  TensorSpec other = Explicit({2, 5}, {0x1.6502bp+2}, DType::kFloat32);
  other.layout = {{2, 5}, {0, 0}, 0};
  c.args = {Arg("self", Explicit({5},
                                 {-0x1.0284d4p+3, -0x1.75bfb2p+1, -0x1.34cf6p+1,
                                  0x1.3a0dc4p+0, 0x1.1c77ecp+3},
                                 DType::kFloat32)),
            Arg("other", other), Arg("alpha", FloatArg{-3.14})};
  ASSERT_FALSE(HoldsExactValues(c));
  absl::StatusOr<CaseOutcome> outcome = RunCase(*add, c);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->verdict, Verdict::kAgree) << outcome->evidence.detail;
}

// Note [Sparse invariants]: a COO tensor whose index 5 lies past its size
// 3 is rejected on every layout (values transposed here), as a user's
// checked call is, not built and read out of bounds. 1.13 always checks;
// 2.x only when asked, which RunCase does.
TEST(SparseInvariantsTest, IndicesOutOfRangeAreRejectedOnEveryLayout) {
  const OpSpec* spec = FindOp("aten::sparse_coo_tensor.indices_size");
  ASSERT_NE(spec, nullptr);
  Case c;
  c.op = "aten::sparse_coo_tensor";
  c.overload = "indices_size";
  TensorSpec indices;
  indices.dtype = DType::kInt64;
  indices.layout = {{1, 2}, {2, 1}, 0};
  indices.values.distribution = Distribution::kExplicit;
  indices.values.data = {0, 5};
  TensorSpec values;
  values.dtype = DType::kFloat32;
  values.layout = {{2, 2}, {1, 2}, 0};
  values.values.distribution = Distribution::kOnes;
  c.args = {Argument{"indices", indices}, Argument{"values", values},
            Argument{"size", Dims{3, 2}}};
  absl::StatusOr<CaseOutcome> outcome = RunCase(*spec, c);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->verdict, Verdict::kBothRejected)
      << VerdictName(outcome->verdict) << ": " << outcome->evidence.detail;
}

// Running statistics are written by design: never drawn overlapping, and
// their update is no input_modified (it was for instance_norm), for
// curated specs and generic ones alike.
class RunningStatisticsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RunningStatisticsTest, AreWrittenByDesign) {
  // "generic:" names the spec drawn from the schema.
  std::optional<OpSpec> generic;
  const OpSpec* spec = nullptr;
  if (absl::StartsWith(GetParam(), "generic:")) {
    absl::StatusOr<OpSpec> made =
        GenericOpSpec({GetParam().substr(8), /*overload=*/""});
    ASSERT_TRUE(made.ok()) << made.status();
    spec = &generic.emplace(*std::move(made));
  } else {
    spec = FindCuratedOp(GetParam());
  }
  ASSERT_NE(spec, nullptr);
  Rng rng(20);
  int with_stats = 0;
  // Generic draws are rarely valid: up to 5000 tries for 10 cases that
  // carry running statistics (100 for curated specs).
  const int wanted = generic.has_value() ? 10 : 100;
  for (int i = 0; i < 5000 && with_stats < wanted; ++i) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(*spec, DType::kFloat32, Variant::kFunctional, rng.Next());
    ASSERT_TRUE(c.ok()) << c.status();
    if (!c->has_value()) continue;
    const std::vector<std::string> mutated = MutatedByDesign(**c);
    for (const std::string& name : mutated) {
      const auto& t = std::get<TensorSpec>(FindArgument(**c, name)->value);
      EXPECT_EQ(ComputeExactOverlap(t.layout.sizes, t.layout.strides),
                MemOverlap::kNo)
          << name << " " << LayoutToString(t.layout);
    }
    if (mutated.empty()) continue;
    ++with_stats;
    absl::StatusOr<CaseOutcome> outcome = RunCase(*spec, **c);
    ASSERT_TRUE(outcome.ok()) << outcome.status();
    EXPECT_NE(outcome->verdict, Verdict::kInputModified)
        << outcome->evidence.detail << "\n"
        << CaseToString(**c);
    EXPECT_NE(outcome->verdict, Verdict::kRejectionMismatch)
        << outcome->evidence.error << "\n"
        << CaseToString(**c);
  }
  EXPECT_EQ(with_stats, wanted) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Norms, RunningStatisticsTest,
                         ::testing::Values("aten::instance_norm",
                                           "aten::batch_norm",
                                           "generic:aten::instance_norm"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           const bool generic =
                               absl::StartsWith(info.param, "generic:");
                           return (generic ? "generic_" : "") +
                                  info.param.substr(generic ? 14 : 6);
                         });

TEST(ContractRulesTest, MutatedByDesignFollowsExactEntries) {
  TensorSpec stat;
  stat.dtype = DType::kFloat32;
  stat.layout = {{3}, {1}, 0};
  Case c;
  c.op = "aten::batch_norm";
  c.args = {Argument{"running_mean", stat},
            Argument{"running_var", std::monostate{}},
            Argument{"training", true}};
  EXPECT_THAT(MutatedByDesign(c), ElementsAre("running_mean"));
  c.args[2].value = false;  // Inference reads them.
  EXPECT_THAT(MutatedByDesign(c), IsEmpty());
  c.op = "aten::instance_norm";  // Always copies into them.
  EXPECT_THAT(MutatedByDesign(c), ElementsAre("running_mean"));
  c.op = "aten::batch_norm_elemt";  // Not a pattern: only what is named.
  c.args[2].value = true;
  EXPECT_THAT(MutatedByDesign(c), IsEmpty());
  // Training rrelu draws its slopes into noise (PyTorch's SchemaInfo).
  Case rrelu;
  rrelu.op = "aten::rrelu_with_noise";
  rrelu.args = {Argument{"self", stat}, Argument{"noise", stat},
                Argument{"training", true}};
  EXPECT_THAT(MutatedByDesign(rrelu), ElementsAre("noise"));
  rrelu.args[2].value = false;
  EXPECT_THAT(MutatedByDesign(rrelu), IsEmpty());
}

// _linalg_det returns the LU factors of A or of A^T, as A's layout makes
// cheaper: they are not compared, the determinant still is. Forward only:
// the rule is about outputs (the gradient of det at singular matrices
// drawn with a stride-0 row is another question, open in the notes).
TEST(ContractRulesTest, FactorsChosenByLayoutAreNotCompared) {
  EXPECT_TRUE(OutputChosenByLayout("aten::_linalg_det", 1));
  EXPECT_TRUE(OutputChosenByLayout("aten::_linalg_det", 2));
  EXPECT_FALSE(OutputChosenByLayout("aten::_linalg_det", 0));
  EXPECT_FALSE(OutputChosenByLayout("aten::linalg_lu_factor_ex", 0));
  const OpSpec* det = FindOp("aten::_linalg_det");
  ASSERT_NE(det, nullptr);
  const Tally t = Fuzz(*det, DType::kFloat64, 200, 5, /*confirm=*/false,
                       /*check_grad=*/false);
  EXPECT_GT(t.cases, 100);
  EXPECT_EQ(t.findings, 0) << t.first_finding;
}

TEST(ContractRulesTest, UnsafeOpsRunOnlyWhenNamed) {
  EXPECT_THAT(UnsafeByContract("aten::_sparse_coo_tensor_unsafe"),
              HasSubstr("unsafe by contract"));
  EXPECT_THAT(UnsafeByContract("aten::_test_serialization_subcmul"),
              HasSubstr("test-only"));
  EXPECT_EQ(UnsafeByContract("aten::_validate_sparse_coo_tensor_args"), "");
  EXPECT_EQ(UnsafeByContract("aten::add"), "");
  for (const char* pattern : {"all", "aten::_add_batch_*"}) {
    bool seen = false;
    for (const CatalogEntry& e : Catalog(pattern, Device::kCpu)) {
      if (e.name != "aten::_add_batch_dim") continue;
      seen = true;
      EXPECT_EQ(e.status, "excluded") << pattern;
      EXPECT_EQ(e.spec, nullptr) << pattern;
      EXPECT_THAT(e.reason, HasSubstr("functorch")) << pattern;
    }
    EXPECT_TRUE(seen) << pattern;
  }
  absl::StatusOr<std::vector<const OpSpec*>> named =
      ResolveOps("aten::_add_batch_dim", Device::kCpu);
  ASSERT_TRUE(named.ok()) << named.status();
  ASSERT_EQ(named->size(), 1u);
  EXPECT_EQ((*named)[0]->op, "aten::_add_batch_dim");
}

}  // namespace
}  // namespace dpfuzz
