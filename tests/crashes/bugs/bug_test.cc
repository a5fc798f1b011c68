#include "crashes/bugs/bug.h"

#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/files.h"
#include "crashes/bugs/findings_store.h"
#include "generators/op_args.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oracles/compare.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

// The gapped tril.out case (a real outside_write bug), every tensor in
// `dtype`, blamed on `culprit`'s `feature`.
Finding Tril(DType dtype, Verdict verdict = Verdict::kOutsideWrite,
             const std::string& culprit = "out",
             const std::string& feature = "gapped") {
  Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");
  for (TensorSpec* spec : AllTensorSpecsOf(c)) spec->dtype = dtype;
  CaseOutcome outcome;
  outcome.verdict = verdict;
  outcome.evidence.detail = absl::StrCat(VerdictName(verdict), " in out");
  Finding f = MakeFinding(c, outcome);
  f.blame = Blame{culprit, feature};
  return f;
}

StoredFinding Stored(const Finding& f, int64_t hits = 1) {
  return StoredFinding{
      absl::StrFormat("findings/%016x", SignatureHash(f.signature)), f, hits};
}

TEST(BugTest, OnePlantedBugInManyDTypesIsOneBug) {
  std::vector<StoredFinding> findings;
  for (DType d : {DType::kFloat32, DType::kFloat64, DType::kInt64}) {
    findings.push_back(Stored(Tril(d), 2));
  }
  ASSERT_NE(findings[0].finding.signature, findings[1].finding.signature);
  const std::vector<Bug> bugs = GroupBugs(findings);
  ASSERT_EQ(bugs.size(), 1u);
  const Bug& bug = bugs[0];
  EXPECT_THAT(bug.dtypes, ElementsAre("f32", "f64", "i64"));
  EXPECT_EQ(bug.hits, 6);
  EXPECT_EQ(bug.findings.size(), 3u);
  EXPECT_EQ(bug.key, "aten::tril|out|out|gapped|wrong_values");
  EXPECT_EQ(bug.id, absl::StrFormat("tril-out-wrong_values-%08x",
                                    SignatureHash(bug.key) & 0xffffffffu));
  EXPECT_EQ(bug.op, "aten::tril");
  EXPECT_EQ(bug.variant, "out");
  EXPECT_EQ(bug.family, "wrong_values");
  EXPECT_EQ(bug.culprit, "out");
  EXPECT_EQ(bug.feature, "gapped");
  EXPECT_EQ(bug.severity, Severity::kMemory);
  EXPECT_EQ(bug.verdict, Verdict::kOutsideWrite);
  EXPECT_EQ(bug.confidence, Confidence::kHigh);
  EXPECT_EQ(bug.confidence_reason, "");
  EXPECT_EQ(bug.detail, "outside_write in out");
  EXPECT_EQ(bug.issue, "");
}

// `f` with its out sharing self's storage, as an aliased case has it.
Finding Aliased(Finding f) {
  f.c.aliases = {Alias{"out", "self"}};
  Finding aliased = MakeFinding(f.c, f.outcome);
  aliased.blame = f.blame;
  return aliased;
}

// A bug leads with its most ordinary finding: no shared memory (PyTorch
// leaves such calls undefined), no NaN or infinities, then the most
// severe, the plainest dtype (float32), the smallest case.
TEST(BugTest, TheMostOrdinaryFindingLeadsItsBug) {
  Finding small_aliased = Aliased(Tril(DType::kFloat32));
  Finding small_nan = Tril(DType::kFloat32);
  Finding half = Tril(DType::kFloat16);
  Finding plain = Tril(DType::kFloat32);
  for (Finding* f : {&small_aliased, &small_nan, &half, &plain}) {
    for (TensorSpec* spec : AllTensorSpecsOf(f->c)) spec->values.specials = 0;
  }
  AllTensorSpecsOf(small_nan.c)[0]->values.specials = kSpecialNaN;
  for (Finding* f : {&half, &plain}) {  // Larger than the odd ones.
    for (TensorSpec* spec : AllTensorSpecsOf(f->c)) spec->layout.sizes[0] += 1;
  }
  ASSERT_LT(CaseSize(small_aliased.c), CaseSize(plain.c));
  EXPECT_EQ(Oddity(plain.c), 0);
  EXPECT_EQ(Oddity(small_nan.c), 1);
  EXPECT_EQ(Oddity(small_aliased.c), 2);
  std::vector<StoredFinding> findings = {Stored(small_aliased), Stored(half),
                                         Stored(plain), Stored(small_nan)};
  findings[0].dir = "findings/a";
  findings[1].dir = "findings/b";
  findings[2].dir = "findings/c";
  findings[3].dir = "findings/d";
  std::vector<Bug> bugs = GroupBugs(findings);
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_THAT(bugs[0].findings, ElementsAre("findings/c", "findings/b",
                                            "findings/d", "findings/a"));
  // Among clean ones of one dtype, the smaller case leads.
  Finding small_plain = Tril(DType::kFloat32);
  for (TensorSpec* spec : AllTensorSpecsOf(small_plain.c)) {
    spec->values.specials = 0;
  }
  bugs = GroupBugs({findings[0], findings[2], Stored(small_plain)});
  EXPECT_NE(bugs[0].findings[0], "findings/a");
  EXPECT_NE(bugs[0].findings[0], "findings/c");
  // A reduced case leads a smaller one as found.
  StoredFinding reduced = findings[2];
  reduced.reduced = true;
  StoredFinding as_found = Stored(small_plain);
  as_found.dir = "findings/e";
  bugs = GroupBugs({as_found, reduced});
  EXPECT_THAT(bugs[0].findings, ElementsAre("findings/c", "findings/e"));
}

// `f` explained by a simulated mechanism of its out.
Finding Explained(Finding f, const std::string& mechanism) {
  f.outcome.evidence.mechanism = mechanism;
  f.outcome.evidence.mechanism_argument = "out";
  f.signature += "|" + mechanism;
  return f;
}

// Note [Explained siblings]: an unexplained bug of the same op, variant,
// culprit and family joins the one explained bug, after its own findings;
// with two explained bugs to choose from it stays apart.
TEST(BugTest, AnUnexplainedSiblingJoinsTheOneExplainedBug) {
  const Finding explained =
      Explained(Tril(DType::kFloat32), "writes_as_contiguous");
  const Finding sibling =
      Tril(DType::kFloat64, Verdict::kOutsideWrite, "out", "permuted");
  const Finding other_culprit =
      Tril(DType::kInt64, Verdict::kOutsideWrite, "self", "permuted");
  std::vector<StoredFinding> findings = {Stored(sibling), Stored(explained),
                                         Stored(other_culprit)};
  findings[0].dir = "findings/a";
  findings[1].dir = "findings/b";
  findings[2].dir = "findings/c";
  std::vector<Bug> bugs = GroupBugs(findings);
  ASSERT_EQ(bugs.size(), 2u);
  const Bug& joined = bugs[0].culprit == "out" ? bugs[0] : bugs[1];
  EXPECT_EQ(joined.id, BugId(explained));
  EXPECT_EQ(joined.mechanism.name, "writes_as_contiguous");
  EXPECT_THAT(joined.findings, ElementsAre("findings/b", "findings/a"));
  EXPECT_EQ(joined.dtypes, (std::set<std::string>{"f32", "f64"}));

  const Finding second = Explained(Tril(DType::kInt64), "leaves_unwritten");
  findings.push_back(Stored(second));
  findings.back().dir = "findings/d";
  bugs = GroupBugs(findings);
  EXPECT_EQ(bugs.size(), 4u);
}

// Time to bug: the earliest time any of its findings was first seen,
// among those a campaign stamped.
TEST(BugTest, ABugIsFirstSeenWithItsEarliestFinding) {
  std::vector<StoredFinding> findings;
  for (DType d : {DType::kFloat32, DType::kFloat64, DType::kInt64}) {
    findings.push_back(Stored(Tril(d)));
  }
  EXPECT_FALSE(GroupBugs(findings)[0].first_seen_seconds.has_value());
  findings[0].first_seen_seconds = 7.5;
  findings[2].first_seen_seconds = 2.25;
  const std::vector<Bug> bugs = GroupBugs(findings);
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_EQ(bugs[0].first_seen_seconds, 2.25);
}

TEST(BugTest, TwoCulpritsAreTwoBugs) {
  const std::vector<Bug> bugs =
      GroupBugs({Stored(Tril(DType::kFloat32)),
                 Stored(Tril(DType::kFloat64, Verdict::kOutsideWrite, "self",
                             "permuted"))});
  ASSERT_EQ(bugs.size(), 2u);
  EXPECT_NE(bugs[0].id, bugs[1].id);
  EXPECT_NE(bugs[0].culprit, bugs[1].culprit);
}

// One root cause shows as several verdicts of a family: the bug takes the
// most severe, and that finding represents it.
TEST(BugTest, ABugIsAsSevereAsItsMostSevereFinding) {
  const std::vector<Bug> bugs =
      GroupBugs({Stored(Tril(DType::kFloat32, Verdict::kMismatch)),
                 Stored(Tril(DType::kFloat64, Verdict::kOutsideWrite))});
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_EQ(bugs[0].severity, Severity::kMemory);
  EXPECT_EQ(bugs[0].verdict, Verdict::kOutsideWrite);
  EXPECT_THAT(bugs[0].dtypes, ElementsAre("f32", "f64"));
  EXPECT_EQ(bugs[0].findings[0],
            Stored(Tril(DType::kFloat64, Verdict::kOutsideWrite)).dir);
}

TEST(BugTest, DismissedFindingsAndBaselineFailuresAreNotBugs) {
  Finding flaky = Tril(DType::kFloat32);
  flaky.dismissal = Dismissal::kFlaky;
  Finding overlap = Tril(DType::kFloat16);
  overlap.dismissal = Dismissal::kOverlap;
  Finding baseline = Tril(DType::kFloat64, Verdict::kCrash);
  baseline.outcome.kind = FindingKind::kBaselineFailure;
  EXPECT_TRUE(
      GroupBugs({Stored(flaky), Stored(overlap), Stored(baseline)}).empty());
}

// Dtypes fold, unless the blame says the dtype alone is the bug.
TEST(BugTest, DTypeSpecificFindingsAreBugsOfTheirOwn) {
  const std::vector<Bug> bugs = GroupBugs(
      {Stored(Tril(DType::kUInt8, Verdict::kInternalAssert, "self", "dtype")),
       Stored(Tril(DType::kInt8, Verdict::kInternalAssert, "self", "dtype"))});
  ASSERT_EQ(bugs.size(), 2u);
  EXPECT_EQ(bugs[0].key, "aten::tril|out|self|dtype|internal_assert|i8");
}

TEST(BugTest, BugsRankByConfidenceThenSeverityThenHits) {
  Finding aliased = Tril(DType::kFloat32, Verdict::kMismatch, "self", "x");
  aliased.c.aliases = {Alias{"out", "self"}};
  const std::vector<Bug> bugs = GroupBugs({
      Stored(Tril(DType::kFloat32, Verdict::kLayoutContract), 100),
      Stored(aliased, 50),
      Stored(Tril(DType::kFloat32, Verdict::kMismatch, "self", "y"), 1),
      Stored(Tril(DType::kFloat32, Verdict::kMismatch, "self", "z"), 7),
      Stored(Tril(DType::kFloat32, Verdict::kRejectionMismatch), 9),
      Stored(Tril(DType::kFloat32, Verdict::kTimeout), 1),
      Stored(Tril(DType::kFloat32, Verdict::kCrash), 1),
  });
  std::vector<std::string> order;
  for (const Bug& b : bugs) {
    order.push_back(absl::StrCat(VerdictName(b.verdict), ":", b.feature, ":",
                                 ConfidenceName(b.confidence)));
  }
  EXPECT_THAT(
      order,
      ElementsAre("crash:gapped:high", "mismatch:z:high", "mismatch:y:high",
                  "timeout:gapped:high", "rejection_mismatch:gapped:high",
                  "layout_contract:gapped:high", "mismatch:x:low"));
}

TEST(BugTest, ArgumentsSharingMemoryWithAnOutputAreLowConfidence) {
  Finding f;
  f.c = LoadKnownCase("masked_select-out-aliasing-mask-heap-corruption");
  f.outcome.verdict = Verdict::kCrash;
  const ConfidenceJudgement j = ConfidenceOf(f);
  EXPECT_EQ(j.confidence, Confidence::kLow);
  EXPECT_THAT(j.reason, HasSubstr("out shares memory with mask"));
  // The bug is kept, marked and its reason given.
  const std::vector<Bug> bugs = GroupBugs({Stored(f)});
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_EQ(bugs[0].confidence, Confidence::kLow);
  EXPECT_EQ(bugs[0].confidence_reason, j.reason);
}

TEST(BugTest, WritingAnExpandedTensorIsLowConfidenceReadingOneIsNot) {
  Finding written = Tril(DType::kFloat32);
  Finding read = written;
  for (Argument& a : written.c.args) {
    if (a.name == "out") std::get<TensorSpec>(a.value).layout.strides[0] = 0;
  }
  for (Argument& a : read.c.args) {
    if (a.name == "self") std::get<TensorSpec>(a.value).layout.strides[0] = 0;
  }
  const ConfidenceJudgement j = ConfidenceOf(written);
  EXPECT_EQ(j.confidence, Confidence::kLow);
  EXPECT_THAT(j.reason, HasSubstr("out is written and zero_stride"));
  EXPECT_EQ(ConfidenceOf(read).confidence, Confidence::kHigh);
  EXPECT_EQ(ConfidenceOf(Tril(DType::kFloat32)).confidence, Confidence::kHigh);
}

// A NaN baseline where the layouts differ, on inputs drawn with inf and
// NaN, is how non-finite values propagate, not a layout bug; a finite
// baseline, or no special values, stays high.
TEST(BugTest, NonFiniteBaselinesOnSpecialValuesAreLowConfidence) {
  Finding f = Tril(DType::kFloat32, Verdict::kMismatch);
  f.outcome.evidence.expected = "nan";
  f.outcome.evidence.actual = "inf";
  for (TensorSpec* t : AllTensorSpecsOf(f.c)) t->values.specials = 0;
  EXPECT_EQ(ConfidenceOf(f).confidence, Confidence::kHigh);  // No specials.
  for (Argument& a : f.c.args) {
    if (a.name == "self") {
      std::get<TensorSpec>(a.value).values.specials = kSpecialNaN;
    }
  }
  const ConfidenceJudgement j = ConfidenceOf(f);
  EXPECT_EQ(j.confidence, Confidence::kLow);
  EXPECT_THAT(j.reason, HasSubstr("baseline's value where they differ is nan"));
  f.outcome.evidence.expected = "-5";
  EXPECT_EQ(ConfidenceOf(f).confidence, Confidence::kHigh);
}

// An op that says which layouts it takes has told the user; an internal
// view that cannot take the layout is the op's own failure.
TEST(BugTest, RejectionsStatingALayoutPreconditionAreLowConfidence) {
  Finding stated = Tril(DType::kFloat32, Verdict::kRejectionMismatch);
  stated.outcome.evidence.error =
      "saved_v must be contiguous\nException raised from ...";
  const ConfidenceJudgement j = ConfidenceOf(stated);
  EXPECT_EQ(j.confidence, Confidence::kLow);
  EXPECT_THAT(j.reason, HasSubstr("\"saved_v must be contiguous\""));
  for (const char* error : {
           "Unsupported memory format. Supports only ChannelsLast, Contiguous",
           "expected values to be a strided and contiguous tensor",
           "Tensor must have a storage_offset divisible by 2",
           "for now to_padded_tensor only supports contiguous nested tensor",
           "cat(): only contiguous nested tensors are supported",
           "NestedTensor does not support reductions when the input is "
           "noncontiguous for now.",
           "sum is not supported for this layout for now",
           "mul requires strides to match when given NestedTensors",
           "masked_fill requires offsets to match when given NestedTensors",
           // A bare TORCH_CHECK on the layout (native_group_norm's).
           "Expected X.is_contiguous(memory_format) to be true, but got "
           "false.  (Could this error message be improved?  If so, please "
           "report an enhancement request to PyTorch.)",
           "Expected grad_output.stride(-1) == 1 to be true, but got false.",
       }) {
    stated.outcome.evidence.error = error;
    EXPECT_EQ(ConfidenceOf(stated).confidence, Confidence::kLow) << error;
  }
  // Wherever it is worded: an internal assert may state one.
  Finding asserted = Tril(DType::kFloat32, Verdict::kInternalAssert);
  asserted.outcome.evidence.error =
      "self.is_contiguous() INTERNAL ASSERT FAILED at \"as_strided_scatter."
      "cpp\":42, please report a bug to PyTorch. as_strided_scatter is "
      "currently only supported for contiguous inputs";
  EXPECT_EQ(ConfidenceOf(asserted).confidence, Confidence::kLow);
  // Its bare condition on the layout, as TORCH_INTERNAL_ASSERT words it.
  asserted.outcome.evidence.error =
      "infos.is_contiguous() INTERNAL ASSERT FAILED at "
      "\"BatchLinearAlgebra.cpp\":1611, please report a bug to PyTorch.";
  EXPECT_EQ(ConfidenceOf(asserted).confidence, Confidence::kLow);
  asserted.outcome.evidence.error =
      "t.dim() == 1 INTERNAL ASSERT FAILED at \"x.cpp\":3";
  EXPECT_THAT(ConfidenceOf(asserted).reason, HasSubstr("rank"));
  // A bare check on something else states no layout precondition.
  stated.outcome.evidence.error =
      "Expected input.size(1) == 4 to be true, but got false.";
  EXPECT_EQ(ConfidenceOf(stated).confidence, Confidence::kHigh);

  Finding internal = stated;
  internal.outcome.evidence.error =
      "view size is not compatible with input tensor's size and stride (at "
      "least one dimension spans across two contiguous subspaces). Use "
      ".reshape(...) instead.";
  EXPECT_EQ(ConfidenceOf(internal).confidence, Confidence::kHigh);
  // Only rejections: the same words in a wrong answer's evidence count
  // for nothing.
  Finding wrong = Tril(DType::kFloat32, Verdict::kMismatch);
  wrong.outcome.evidence.error = "saved_v must be contiguous";
  EXPECT_EQ(ConfidenceOf(wrong).confidence, Confidence::kHigh);
}

// Where an op's order of arithmetic is its own (compared with a
// tolerance), inf - inf or 0 * inf is NaN in one order and a number in
// another; an op compared exactly (tril) stays high on the same values.
TEST(BugTest, NonFiniteInputsOfAnOpOfFreeOrderAreLowConfidence) {
  TensorSpec a;
  a.layout = StridedLayout{{2, 2}, {1, 2}, 0};
  Case c;
  c.op = "aten::mm";
  c.args = {{"self", a}, {"mat2", a}};
  CaseOutcome outcome;
  outcome.verdict = Verdict::kNanIntroduced;
  outcome.evidence.expected = "0";
  outcome.evidence.actual = "nan";
  Finding f = MakeFinding(c, outcome);
  f.blame = Blame{"self", "permuted"};
  EXPECT_EQ(ConfidenceOf(f).confidence, Confidence::kHigh);  // Finite.
  std::get<TensorSpec>(f.c.args[1].value).values.specials = kSpecialNegInf;
  const ConfidenceJudgement j = ConfidenceOf(f);
  EXPECT_EQ(j.confidence, Confidence::kLow);
  EXPECT_THAT(j.reason, HasSubstr("on inputs that hold NaN or infinities"));
  // The NaN of a gap's poison is a read outside a view, whatever else
  // the inputs hold; so is a difference between numbers.
  Finding poison = f;
  poison.outcome.evidence.detail = absl::StrCat("got nan", kPoisonNote);
  EXPECT_EQ(ConfidenceOf(poison).confidence, Confidence::kHigh);
  Finding numbers = f;
  numbers.outcome.evidence.actual = "2";
  EXPECT_EQ(ConfidenceOf(numbers).confidence, Confidence::kHigh);
  // An unreduced case holds what it was drawn with, needed or not.
  EXPECT_EQ(ConfidenceOf(f, /*reduced=*/false).confidence, Confidence::kHigh);
  // An integral tensor holds no infinity, whatever its recipe asks.
  for (Argument& arg : f.c.args) {
    std::get<TensorSpec>(arg.value).dtype = DType::kInt64;
  }
  EXPECT_EQ(ConfidenceOf(f).confidence, Confidence::kHigh);

  Finding exact = Tril(DType::kFloat32, Verdict::kNanIntroduced);
  for (TensorSpec* t : AllTensorSpecsOf(exact.c)) {
    t->values.specials = kSpecialPosInf;
  }
  EXPECT_EQ(ConfidenceOf(exact).confidence, Confidence::kHigh);
}

// A strided argument the op's documentation says it assumes contiguous
// (the _embedding_bag ops' indices and offsets) is outside its contract;
// a strided weight, which it takes, is not.
TEST(BugTest, ArgumentsAssumedContiguousByContractAreLowConfidence) {
  Finding f = Tril(DType::kFloat32, Verdict::kMismatch, "indices", "permuted");
  f.c.op = "aten::_embedding_bag";
  f.c.variant = Variant::kFunctional;
  for (TensorSpec* t : AllTensorSpecsOf(f.c)) t->values.specials = 0;
  const ConfidenceJudgement j = ConfidenceOf(f);
  EXPECT_EQ(j.confidence, Confidence::kLow);
  EXPECT_THAT(j.reason, HasSubstr("NOTE [ embedding_bag Native Functions ]"));
  f.blame.culprit = "weight";
  EXPECT_EQ(ConfidenceOf(f).confidence, Confidence::kHigh)
      << ConfidenceOf(f).reason;
  f.blame.culprit = "weight,offsets";
  EXPECT_EQ(ConfidenceOf(f).confidence, Confidence::kLow);
}

// Both calls get tensors of the same sizes, so a rank checked by one of
// them only is an argument outside the op's domain (batch norm's weight of
// rank 3), whichever call checks it; other rejections stay high.
TEST(BugTest, RankChecksOfOneCallAreLowConfidence) {
  for (const Verdict v :
       {Verdict::kRejectionMismatch, Verdict::kInternalAssert}) {
    Finding f = Tril(DType::kFloat32, v);
    for (const char* error : {
             "t.defined() && t.dim() == 1 INTERNAL ASSERT FAILED at "
             "\"aten/src/ATen/native/Normalization.cpp\":160",
             "expected 3-D `query`, got 2-D tensor",
             "Expected input.dim() == 4 to be true, but got false.",
             "weight must be a 1D tensor",
             "TensorAccessor expected 1 dims but tensor has 2",
         }) {
      f.outcome.evidence.error = error;
      const ConfidenceJudgement j = ConfidenceOf(f);
      EXPECT_EQ(j.confidence, Confidence::kLow) << error;
      EXPECT_THAT(j.reason, HasSubstr("checks a tensor's rank")) << error;
    }
    for (const char* error : {
             "view size is not compatible with input tensor's size and stride",
             "narrow(): length must be non-negative.",
             "The size of tensor a (3) must match the size of tensor b (6) at "
             "non-singleton dimension 1",
             "max_pool3d_with_indices(): index out of range",
         }) {
      f.outcome.evidence.error = error;
      EXPECT_EQ(ConfidenceOf(f).confidence, Confidence::kHigh) << error;
    }
  }
}

TEST(BugTest, RejectionsForWantOfADerivativeOrOfAnInverseAreLowConfidence) {
  for (const Verdict v :
       {Verdict::kRejectionMismatch, Verdict::kInternalAssert}) {
    Finding f = Tril(DType::kFloat16, v);
    f.outcome.evidence.error =
        "the derivative for 'aten::quantize_per_tensor_dynamic' is not "
        "implemented.";
    const ConfidenceJudgement j = ConfidenceOf(f);
    EXPECT_EQ(j.confidence, Confidence::kLow);
    EXPECT_THAT(j.reason, HasSubstr("has no derivative"));
    f.outcome.evidence.error =
        "linalg.inv: The diagonal element 3 is zero, the inversion could not "
        "be completed because the input matrix is singular.";
    EXPECT_THAT(ConfidenceOf(f).reason, HasSubstr("input is singular"));
    // Another missing kernel says nothing of derivatives.
    f.outcome.evidence.error = "\"addmm_impl_cpu_\" not implemented for 'Half'";
    EXPECT_EQ(ConfidenceOf(f).confidence, Confidence::kHigh);
  }
}

// CPU against CUDA: a difference in the op's first result is high
// confidence, one only in a later output low (Note [Device differences by
// design] in oracles/run_case.cc).
TEST(BugTest, DeviceMismatchesOnlyInLaterOutputsAreLowConfidence) {
  Finding out = Tril(DType::kFloat32, Verdict::kDeviceMismatch);
  out.outcome.evidence.where = "out on cuda";
  EXPECT_EQ(ConfidenceOf(out).confidence, Confidence::kHigh);
  Finding functional = out;
  functional.c.variant = Variant::kFunctional;
  functional.outcome.evidence.where = "output 0 on cuda";
  EXPECT_EQ(ConfidenceOf(functional).confidence, Confidence::kHigh);
  functional.outcome.evidence.where = "output 1 on cuda";
  const ConfidenceJudgement j = ConfidenceOf(functional);
  EXPECT_EQ(j.confidence, Confidence::kLow);
  EXPECT_THAT(j.reason, HasSubstr("differ in output 1 on cuda, not in the "
                                  "op's first result"));
  // Only device mismatches: a layout variant's difference in a later
  // output is as much a bug as in the first.
  Finding layout = functional;
  layout.outcome.verdict = Verdict::kMismatch;
  EXPECT_EQ(ConfidenceOf(layout).confidence, Confidence::kHigh);
}

// put/index_put with accumulate=False leave repeated positions undefined:
// a wrong answer there is kept at low confidence; with distinct indices,
// or accumulating, it is high.
TEST(BugTest, RepeatedIndicesWithoutAccumulateAreLowConfidence) {
  auto put = [](Distribution index_values, bool accumulate) {
    ValueRecipe ones;
    ones.distribution = Distribution::kOnes;
    ValueRecipe index;
    index.distribution = index_values;
    index.high = 3;
    Case c;
    c.op = "aten::put";
    c.args.push_back(Arg("self", Contiguous({4}, DType::kFloat32, ones)));
    c.args.push_back(Arg("index", Contiguous({3}, DType::kInt64, index)));
    c.args.push_back(Arg("source", Contiguous({3}, DType::kFloat32, ones)));
    c.args.push_back(Arg("accumulate", accumulate));
    CaseOutcome outcome;
    outcome.verdict = Verdict::kMismatch;
    return MakeFinding(c, outcome);
  };
  const ConfidenceJudgement repeated =
      ConfidenceOf(put(Distribution::kZeros, false));
  EXPECT_EQ(repeated.confidence, Confidence::kLow);
  EXPECT_THAT(repeated.reason, HasSubstr("index repeats a position"));
  EXPECT_EQ(ConfidenceOf(put(Distribution::kUniqueIndices, false)).confidence,
            Confidence::kHigh);
  EXPECT_EQ(ConfidenceOf(put(Distribution::kZeros, true)).confidence,
            Confidence::kHigh);
  // Left out, accumulate is the schema's default: False.
  Finding defaulted = put(Distribution::kZeros, false);
  defaulted.c.args.pop_back();
  EXPECT_EQ(ConfidenceOf(defaulted).confidence, Confidence::kLow);
}

// as_strided_scatter writes `src` through the view its `size` and `stride`
// describe: where that view overlaps itself, which write lands is
// undefined; a view without overlap is high.
TEST(BugTest, WritesThroughADescribedOverlappingViewAreLowConfidence) {
  auto scatter = [](const Dims& stride) {
    Case c;
    c.op = "aten::as_strided_scatter";
    c.args.push_back(Arg("self", Contiguous({5}, DType::kFloat32, {})));
    c.args.push_back(Arg("src", Contiguous({2, 2}, DType::kFloat32, {})));
    c.args.push_back(Arg("size", Dims{2, 2}));
    c.args.push_back(Arg("stride", stride));
    CaseOutcome outcome;
    outcome.verdict = Verdict::kMismatch;
    return ConfidenceOf(MakeFinding(c, outcome));
  };
  const ConfidenceJudgement overlapping = scatter({1, 1});
  EXPECT_EQ(overlapping.confidence, Confidence::kLow);
  EXPECT_THAT(overlapping.reason,
              HasSubstr("`size` and `stride` describe is overlapping"));
  EXPECT_EQ(scatter({0, 1}).confidence, Confidence::kLow);
  EXPECT_EQ(scatter({2, 1}).confidence, Confidence::kHigh);
}

// Note [Findings that need no layout] in crashes/bugs/confidence.cc: a
// functional or in-place finding that shows with every argument plain is
// the baseline's own call misbehaving, and a death so is a crash whatever
// the layout; an out= one that does not die, or one with a nested
// argument, stays a bug.
TEST(BugTest, FindingsThatNeedNoLayoutAreLowConfidenceButOutEquals) {
  // Low, for `reason`, until blame names a layout the finding needs.
  const auto low_until_blamed = [](Verdict verdict, Variant v,
                                   const char* reason) {
    Finding f = Tril(DType::kFloat32, verdict, "", "no_layout");
    f.c.variant = v;
    const ConfidenceJudgement j = ConfidenceOf(f);
    EXPECT_EQ(j.confidence, Confidence::kLow) << VariantName(v);
    EXPECT_THAT(j.reason, HasSubstr(reason));
    f.blame = Blame{"self", "permuted"};
    EXPECT_EQ(ConfidenceOf(f).confidence, Confidence::kHigh);
  };
  for (const Variant v : {Variant::kFunctional, Variant::kInplace}) {
    low_until_blamed(Verdict::kMismatch, v,
                     "every argument contiguous and unshared");
  }
  const Finding out =
      Tril(DType::kFloat32, Verdict::kLayoutContract, "", "no_layout");
  ASSERT_EQ(out.c.variant, Variant::kOut);
  EXPECT_EQ(ConfidenceOf(out).confidence, Confidence::kHigh);
  for (const Variant v : {Variant::kFunctional, Variant::kOut}) {
    low_until_blamed(Verdict::kCrash, v, "a crash whatever the layout");
  }
  // Blame leaves a nested argument's components where they lie.
  Finding nested = Tril(DType::kFloat32, Verdict::kMismatch, "", "no_layout");
  nested.c.variant = Variant::kFunctional;
  TensorSpec* self = AllTensorSpecsOf(nested.c).front();
  self->components = {self->layout};
  EXPECT_EQ(ConfidenceOf(nested).confidence, Confidence::kHigh);
}

// A bug is high confidence when any of its findings is.
TEST(BugTest, OneWellDefinedFindingMakesTheBugHighConfidence) {
  Finding aliased = Tril(DType::kFloat64);
  aliased.c.aliases = {Alias{"out", "self"}};
  const std::vector<Bug> bugs =
      GroupBugs({Stored(aliased), Stored(Tril(DType::kFloat32))});
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_EQ(bugs[0].confidence, Confidence::kHigh);
  EXPECT_EQ(bugs[0].confidence_reason, "");
}

// ... and that finding leads it, however plain the low-confidence one is:
// the report shows the evidence that makes the bug one.
TEST(BugTest, AHighConfidenceFindingLeadsItsBug) {
  Finding stated = Tril(DType::kFloat32, Verdict::kRejectionMismatch);
  stated.outcome.evidence.error = "NestedTensor must be contiguous";
  Finding other = Tril(DType::kFloat64, Verdict::kRejectionMismatch);
  other.outcome.evidence.error =
      "mm: mat1 and mat2 shapes cannot be multiplied";
  ASSERT_EQ(ConfidenceOf(stated).confidence, Confidence::kLow);
  const std::vector<Bug> bugs = GroupBugs({Stored(stated), Stored(other)});
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_EQ(bugs[0].confidence, Confidence::kHigh);
  EXPECT_EQ(bugs[0].findings.front(), Stored(other).dir);
}

TEST(BugTest, FamiliesAndSeverities) {
  const std::vector<std::tuple<Verdict, std::string, Severity>> want = {
      {Verdict::kMismatch, "wrong_values", Severity::kWrongValues},
      {Verdict::kNanIntroduced, "wrong_values", Severity::kWrongValues},
      {Verdict::kOutsideWrite, "wrong_values", Severity::kMemory},
      {Verdict::kInputModified, "wrong_values", Severity::kMemory},
      {Verdict::kDeviceMismatch, "wrong_values", Severity::kWrongValues},
      {Verdict::kGradMismatch, "gradient", Severity::kWrongValues},
      {Verdict::kRejectionMismatch, "rejection", Severity::kRejection},
      {Verdict::kInternalAssert, "internal_assert", Severity::kAssertOrHang},
      {Verdict::kCrash, "crash", Severity::kMemory},
      {Verdict::kOom, "crash", Severity::kMemory},
      {Verdict::kTimeout, "hang", Severity::kAssertOrHang},
      {Verdict::kLayoutContract, "layout_contract", Severity::kContract},
      {Verdict::kLeak, "leak", Severity::kCost},
      {Verdict::kMemoryAmplification, "memory", Severity::kCost},
      {Verdict::kPerfCliff, "perf", Severity::kCost},
  };
  for (const auto& [verdict, family, severity] : want) {
    EXPECT_EQ(VerdictFamily(verdict), family) << verdict;
    EXPECT_EQ(SeverityOf(verdict), severity) << verdict;
  }
  EXPECT_EQ(SeverityName(Severity::kAssertOrHang), "assert_or_hang");
  EXPECT_EQ(SeverityName(Severity::kContract), "layout_contract");
  EXPECT_EQ(SeverityName(Severity::kCost), "cost");
  EXPECT_EQ(ConfidenceName(Confidence::kLow), "low");
}

TEST(BugTest, BugIdsAreShortStableFileNames) {
  Finding f = Tril(DType::kFloat32);
  f.c.op = "myns::odd/op name";
  EXPECT_THAT(BugId(f),
              MatchesRegex("odd_op_name-out-wrong_values-[0-9a-f]{8}"));
  EXPECT_EQ(BugId(f), BugId(f));
}

// The representative of a bug (its first finding, whose issue.md is the
// bug's) is the smallest of its most severe findings.
TEST(BugTest, ReadFindingsDirReadsFindingsAndSkipsTheRest) {
  const fs::path dir = fs::path(testing::TempDir()) /
                       absl::StrCat("dpfuzz_bug_read_", ::getpid());
  fs::remove_all(dir);
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(dir.string());
  ASSERT_TRUE(store.ok()) << store.status();
  // The representative: as plain a dtype and smaller.
  Finding small = Tril(DType::kFloat32);
  for (TensorSpec* spec : AllTensorSpecsOf(small.c)) spec->layout.sizes[0] = 1;
  absl::StatusOr<Recorded> big = store->Record(Tril(DType::kFloat64));
  ASSERT_TRUE(big.ok()) << big.status();
  ASSERT_TRUE(store->Record(Tril(DType::kFloat64)).ok());
  absl::StatusOr<Recorded> representative = store->Record(small);
  ASSERT_TRUE(representative.ok()) << representative.status();
  for (const std::string& d : {big->path, representative->path}) {
    ASSERT_TRUE(
        WriteFileAtomically(d + "/issue.md", "# issue\n", "issue").ok());
  }
  fs::create_directories(dir / "errors" / "e1");
  ASSERT_TRUE(WriteFileAtomically((dir / "errors/e1/error.json").string(), "{}",
                                  "error")
                  .ok());

  absl::StatusOr<std::vector<StoredFinding>> read =
      ReadFindingsDir(dir.string());
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 2u);
  int64_t hits = 0;
  for (const StoredFinding& s : *read) {
    hits += s.hits;
    EXPECT_EQ(s.finding.blame, (Blame{"out", "gapped"}));
    EXPECT_EQ(s.finding.outcome.verdict, Verdict::kOutsideWrite);
  }
  EXPECT_EQ(hits, 3);
  const std::vector<Bug> bugs = GroupBugs(*read);
  ASSERT_EQ(bugs.size(), 1u);
  EXPECT_THAT(bugs[0].findings, ElementsAre(representative->path, big->path));
  EXPECT_EQ(bugs[0].issue, representative->path + "/issue.md");
  EXPECT_EQ(bugs[0].hits, 3);
  // A campaign writes issue.md for the finding it checked first, which
  // need not be the representative: the bug's issue is still found.
  fs::remove(representative->path + "/issue.md");
  EXPECT_EQ(GroupBugs(*read)[0].issue, big->path + "/issue.md");

  EXPECT_FALSE(ReadFindingsDir((dir / "missing").string()).ok());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dpfuzz
