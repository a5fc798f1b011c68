// The generic path end to end in process: ops found by name and pattern,
// cases drawn from their schemas, nondeterminism found and not reported.

#include <map>
#include <set>

#include "generators/op_args.h"
#include "generators/op_catalog.h"
#include "generators/op_registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "oracles/case_builder.h"
#include "oracles/run_case.h"

namespace dpfuzz {
namespace {

using ::testing::HasSubstr;

// The verdicts of the valid cases among `seeds` draws of `spec`.
std::map<Verdict, int> Verdicts(const OpSpec& spec, int seeds,
                                Variant variant = Variant::kFunctional) {
  std::map<Verdict, int> verdicts;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(seeds); ++seed) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(spec, DType::kFloat32, variant, seed);
    EXPECT_TRUE(c.ok()) << c.status();
    if (!c.ok() || !c->has_value()) continue;
    absl::StatusOr<CaseOutcome> o = RunCase(spec, **c);
    EXPECT_TRUE(o.ok()) << o.status();
    if (o.ok()) ++verdicts[o->verdict];
  }
  return verdicts;
}

TEST(GenericOpsTest, NamesAndPatternsResolve) {
  // "add": the curated spec, and generic specs for the other overloads.
  absl::StatusOr<std::vector<const OpSpec*>> add =
      ResolveOps("add", Device::kCpu);
  ASSERT_TRUE(add.ok()) << add.status();
  std::set<std::string> families;
  for (const OpSpec* s : *add) families.insert(s->family);
  EXPECT_TRUE(families.count("generic"));
  EXPECT_THAT(*add, ::testing::Contains(FindCuratedOp("add")));  // Wins.
  EXPECT_THAT(*add, ::testing::Contains(FindOp("aten::add.Scalar")));
  // A full name is that overload: aten::mean is not the curated mean.dim.
  ASSERT_NE(FindOp("aten::mean"), nullptr);
  EXPECT_EQ(FindOp("aten::mean")->family, "generic");
  EXPECT_EQ(FindOp("aten::mean")->overload, "");
  EXPECT_EQ(FindOp("aten::mean.dim"), FindCuratedOp("mean"));
  EXPECT_EQ(FindOp("add"), FindCuratedOp("add"));  // No aten::add overload.
  // One generic overload by its full name.
  absl::StatusOr<std::vector<const OpSpec*>> hardtanh =
      ResolveOps("aten::hardtanh", Device::kCpu);
  ASSERT_TRUE(hardtanh.ok());
  ASSERT_EQ(hardtanh->size(), 1u);
  EXPECT_EQ((*hardtanh)[0]->family, "generic");
  // A glob: backward ops are ops too.
  absl::StatusOr<std::vector<const OpSpec*>> backward =
      ResolveOps("aten::*_backward", Device::kCpu);
  ASSERT_TRUE(backward.ok());
  EXPECT_GT(backward->size(), 20u);
  EXPECT_THAT(
      std::string(
          ResolveOps("aten::as_strided", Device::kCpu).status().message()),
      HasSubstr(kResultIsLayout));
  EXPECT_EQ(ResolveOps("no_such_op", Device::kCpu).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(GenericOpsTest, SeedsOnlyOpsAreNeverDrawnFromTheirSchema) {
  // _linalg_check_errors(Tensor info, str api_name, *, bool is_matrix):
  // its str only recorded seeds give.
  const OpSpec* spec = FindOp("aten::_linalg_check_errors");
  ASSERT_NE(spec, nullptr);
  EXPECT_THAT(spec->seeds_only, HasSubstr("argument api_name of type str"));
  absl::StatusOr<std::optional<Case>> c =
      BuildCase(*spec, DType::kInt32, Variant::kFunctional, 1);
  EXPECT_EQ(c.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("recorded seeds"));
  // With the arguments a seed gives, the op is fuzzed as any other.
  OpSpec seeded = *spec;
  seeded.seeds_only.clear();
  seeded.make_args = [](Rng&, DType) {
    ValueRecipe zeros;  // No error to report.
    zeros.distribution = Distribution::kExplicit;
    zeros.data = {0, 0, 0};
    return std::vector<Argument>{
        Arg("info", Contiguous({3}, DType::kInt32, zeros)),
        Arg("api_name", std::string("linalg.inv")), Arg("is_matrix", false)};
  };
  c = BuildCase(seeded, DType::kInt32, Variant::kFunctional, 1);
  ASSERT_TRUE(c.ok()) << c.status();
  ASSERT_TRUE(c->has_value());
  absl::StatusOr<CaseOutcome> o = RunCase(seeded, **c);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->verdict, Verdict::kAgree);
}

TEST(GenericOpsTest, CorrectOpsAgree) {
  const OpSpec* hardswish = FindOp("aten::hardswish");
  ASSERT_NE(hardswish, nullptr);
  const std::map<Verdict, int> v = Verdicts(*hardswish, 100);
  EXPECT_GT(v.count(Verdict::kAgree) ? v.at(Verdict::kAgree) : 0, 20);
  EXPECT_EQ(v.count(Verdict::kMismatch), 0u);
}

// planted::counter_add (tests/planted) adds its call count: only running
// the baseline twice shows it is nondeterministic.
TEST(GenericOpsTest, NondeterminismIsFoundAndNotReported) {
  const OpSpec* counter = FindOp("planted::counter_add");
  ASSERT_NE(counter, nullptr);
  ASSERT_EQ(counter->family, "generic");
  const std::map<Verdict, int> checked = Verdicts(*counter, 60);
  EXPECT_EQ(checked.count(Verdict::kMismatch), 0u);
  EXPECT_GT(checked.count(Verdict::kAgree) ? checked.at(Verdict::kAgree) : 0,
            10);
  // Without the check, and compared exactly (a float64 reference run,
  // being a later call, would give slack), valid cases are mismatches.
  OpSpec unchecked = *counter;
  unchecked.rules &= ~kRuleCheckDeterminism;
  unchecked.comparison = Comparison::kExact;
  const std::map<Verdict, int> v = Verdicts(unchecked, 60);
  EXPECT_GT(v.count(Verdict::kMismatch) ? v.at(Verdict::kMismatch) : 0, 10);
}

TEST(GenericOpsTest, RandomOpsCompareShapesOnly) {
  for (const char* name : {"aten::rand_like", "aten::bernoulli.p"}) {
    const OpSpec* spec = FindOp(name);
    ASSERT_NE(spec, nullptr) << name;
    const std::map<Verdict, int> v = Verdicts(*spec, 60);
    EXPECT_EQ(v.count(Verdict::kMismatch), 0u) << name;
    EXPECT_EQ(v.count(Verdict::kGradMismatch), 0u) << name;
    EXPECT_GT(v.count(Verdict::kAgree) ? v.at(Verdict::kAgree) : 0, 5) << name;
  }
}

// Results and gradients without strided memory are compared by value:
// sparse and compressed results (to_sparse*, and sparse gradients of
// embedding_backward), and the ZeroTensor gradient of sgn on real inputs,
// which has no memory behind it.
TEST(GenericOpsTest, ResultsWithoutStridedMemoryAreCompared) {
  for (const char* name :
       {"aten::to_sparse", "aten::to_sparse_csr", "aten::sgn"}) {
    const OpSpec* spec = FindOp(name);
    ASSERT_NE(spec, nullptr) << name;
    const std::map<Verdict, int> v = Verdicts(*spec, 60);
    EXPECT_EQ(v.count(Verdict::kMismatch), 0u) << name;
    EXPECT_EQ(v.count(Verdict::kGradMismatch), 0u) << name;
    EXPECT_GT(v.count(Verdict::kAgree) ? v.at(Verdict::kAgree) : 0, 10) << name;
  }
  // Drawn blind, 2.x's unchecked compressed constructor builds tensors that
  // cannot be densified: the call's failure (both sides reject), never an
  // error of dpfuzz's own (Verdicts expects every RunCase to succeed).
  // A nested result of dense arguments is compared component by component.
  for (const char* name : {"aten::sparse_csr_tensor.crow_col_value_size",
                           "aten::_nested_tensor_from_tensor_list"}) {
    const OpSpec* spec = FindOp(name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_EQ(Verdicts(*spec, 60).count(Verdict::kMismatch), 0u) << name;
  }
}

// A result dpfuzz reads resolved that cannot be resolved (_neg_view of a
// bool tensor: there is no negation of bool) is the call's failure on
// both sides, not an error of dpfuzz's own.
TEST(GenericOpsTest, UnresolvableNegativeViewsAreTheCallsFailure) {
  const OpSpec* spec = FindOp("aten::_neg_view");
  ASSERT_NE(spec, nullptr);
  Rng rng(2);
  TensorSpec self = Values({3, 3}, DType::kBool, rng);
  self.layout.strides = {0, 0};
  Case c;
  c.op = spec->op;
  c.variant = Variant::kFunctional;
  c.args = {Arg("self", self)};
  absl::StatusOr<CaseOutcome> o = RunCase(*spec, c);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->verdict, Verdict::kBothRejected) << o->evidence.detail;
  c.args = {Arg("self", Values({3, 3}, DType::kFloat32, rng))};
  o = RunCase(*spec, c);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->verdict, Verdict::kAgree) << o->evidence.detail;
}

// A factory reads no tensor; its out= form writes a strided out tensor,
// against the functional form's result.
TEST(GenericOpsTest, FactoriesAreFuzzedThroughTheirOutForm) {
  for (const char* name : {"aten::ones", "aten::eye.m", "aten::linspace",
                           "aten::arange.start_step"}) {
    const OpSpec* spec = FindOp(name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_THAT(VariantsOf(*spec), ::testing::ElementsAre(Variant::kOut));
    const std::map<Verdict, int> v = Verdicts(*spec, 60, Variant::kOut);
    EXPECT_EQ(v.count(Verdict::kMismatch), 0u) << name;
    EXPECT_GT(v.count(Verdict::kAgree) ? v.at(Verdict::kAgree) : 0, 10) << name;
  }
}

// bool[3] output_mask: the gradients a backward op computes; an unset flag
// leaves that result undefined in the baseline and the variant alike.
TEST(GenericOpsTest, OutputMasksLeaveResultsUndefined) {
  const OpSpec* spec = FindOp("aten::native_layer_norm_backward");
  ASSERT_NE(spec, nullptr);
  Rng rng(7);
  for (const Dims& mask : {Dims{1, 0, 1}, Dims{0, 1, 0}, Dims{1, 1, 1}}) {
    Case c;
    c.op = spec->op;
    c.variant = Variant::kFunctional;
    c.args = {
        Arg("grad_out", Values({2, 3}, DType::kFloat32, rng)),
        Arg("input", Values({2, 3}, DType::kFloat32, rng)),
        Arg("normalized_shape", Dims{3}),
        Arg("mean", Values({2, 1}, DType::kFloat32, rng)),
        Arg("rstd", Values({2, 1}, DType::kFloat32, rng)),
        Arg("weight", Values({3}, DType::kFloat32, rng)),
        Arg("bias", Values({3}, DType::kFloat32, rng)),
        Arg("output_mask", mask),
    };
    absl::StatusOr<CaseOutcome> o = RunCase(*spec, c);
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_EQ(o->verdict, Verdict::kAgree) << o->evidence.detail;
  }
}

// An out= of the wrong size is resized in place (contiguous from its
// offset, in its own storage when that is large enough): writing there is
// no outside_write. A 0-dim out at offset 1 becomes [3] over storage 1..3.
TEST(GenericOpsTest, ResizedOutMayWriteWhereItNowLies) {
  const OpSpec* spec = FindOp("aten::hardtanh");
  ASSERT_NE(spec, nullptr);
  ASSERT_EQ(spec->out_overload, "out");
  Rng rng(5);
  Case c;
  c.op = spec->op;
  c.variant = Variant::kOut;
  TensorSpec out = Values({}, DType::kFloat32, rng);
  out.layout.storage_offset = 1;
  c.args = {Arg("self", Values({3}, DType::kFloat32, rng)), Arg("out", out)};
  absl::StatusOr<CaseOutcome> o = RunCase(*spec, c);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->verdict, Verdict::kAgree) << o->evidence.detail;
}

// Note [Gradients of overlapping leaves]: stft views its input through its
// strides, and as_strided's backward splits each memory location's
// gradient evenly among an expanded leaf's elements. Per element, those
// gradients differ from a contiguous copy's; per location they agree.
TEST(GenericOpsTest, ExpandedLeavesHaveGradientsPerMemoryLocation) {
  const OpSpec* spec = FindOp("aten::stft");
  ASSERT_NE(spec, nullptr);
  Rng rng(3);
  TensorSpec self = Values({16}, DType::kFloat32, rng);
  self.layout.strides = {0};
  self.requires_grad = true;
  Case c;
  c.op = spec->op;
  c.variant = Variant::kFunctional;
  c.args = {Arg("self", self), Arg("n_fft", int64_t{7}),
            Arg("return_complex", true)};
  c.grad_outputs = {Values({4, 10}, DType::kComplex64, rng)};
  absl::StatusOr<CaseOutcome> o = RunCase(*spec, c);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->verdict, Verdict::kAgree) << o->evidence.detail;
}

}  // namespace
}  // namespace dpfuzz
