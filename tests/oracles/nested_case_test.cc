// The nested oracles end to end in-process: a nested kernel that reads the
// buffer as if its components were dense (planted_nested::buffer_relu) is
// found as a wrong value, a correct one (planted_nested::good_relu) never
// gives a finding, and LibTorch's own nested ops run through the same
// path (cases built and judged, no dpfuzz error), curated and
// schema-driven; nested results' own promises are checked.

#include "oracles/nested_case.h"

#include <ATen/NestedTensorImpl.h>
#include <gtest/gtest.h>
#include <torch/version.h>

#include <algorithm>

#include "generators/case_json.h"
#include "generators/op_catalog.h"
#include "generators/op_registry.h"
#include "generators/rng.h"
#include "generators/schema_spec.h"
#include "oracles/case_builder.h"
#include "oracles/nested_promises.h"
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

// Outcomes of up to `cases` cases of `spec` from seed 1, each with nested
// arguments, or with none (`nested_args` false: a constructor of nested
// tensors).
std::vector<CaseOutcome> Outcomes(const OpSpec& spec, int cases,
                                  bool nested_args = true) {
  std::vector<CaseOutcome> outcomes;
  Rng rng(1);
  for (int i = 0; i < cases; ++i) {
    absl::StatusOr<std::optional<Case>> c = BuildCase(
        spec, rng.Pick(spec.dtypes), Variant::kFunctional, rng.Next());
    EXPECT_TRUE(c.ok()) << c.status();
    if (!c.ok() || !c->has_value()) continue;
    const std::vector<const TensorSpec*> args = TensorSpecsOf(**c);
    EXPECT_EQ(std::any_of(args.begin(), args.end(),
                          [](const TensorSpec* t) { return t->is_nested(); }),
              nested_args);
    absl::StatusOr<CaseOutcome> o = RunCase(spec, **c);
    EXPECT_TRUE(o.ok()) << o.status() << "\n" << CaseToString(**c);
    if (o.ok()) outcomes.push_back(*std::move(o));
  }
  return outcomes;
}

std::map<Verdict, int> Verdicts(const OpSpec& spec, int cases,
                                bool nested_args = true) {
  std::map<Verdict, int> verdicts;
  for (const CaseOutcome& o : Outcomes(spec, cases, nested_args)) {
    ++verdicts[o.verdict];
  }
  return verdicts;
}

TEST(NestedCaseTest, BufferReadAsDenseIsFound) {
  std::map<Verdict, int> v = Verdicts(Spec("buffer_relu"), 200);
  EXPECT_GT(v[Verdict::kMismatch] + v[Verdict::kNanIntroduced], 0);
  EXPECT_GT(v[Verdict::kAgree], 0);  // Contiguous draws are right.
}

// buffer_relu's wrong values are what relu gives on the buffer read as
// packed contiguous components: the simulation names that, on self.
TEST(NestedCaseTest, BufferReadAsDenseIsExplained) {
  int wrong = 0;
  for (const CaseOutcome& o : Outcomes(Spec("buffer_relu"), 200)) {
    if (o.verdict != Verdict::kMismatch &&
        o.verdict != Verdict::kNanIntroduced) {
      continue;
    }
    ++wrong;
    EXPECT_EQ(o.evidence.mechanism, "reads_components_as_contiguous")
        << o.evidence.detail;
    EXPECT_EQ(o.evidence.mechanism_argument, "self");
  }
  EXPECT_GT(wrong, 0);
}

// A grad_output of other sizes than its result (here [1, 2, 2] for a
// [1, 1, 1] component) is refused by Python's autograd but not checked by
// the C++ engine for nested tensors: no finding, whatever the backward
// does with it.
TEST(NestedCaseTest, GradOutputsOfOtherSizesGiveNoFinding) {
  absl::StatusOr<Case> c = CaseFromJson(R"({
    "format": "dpfuzz-case", "version": 1, "op": "aten::mul",
    "overload": "Scalar", "variant": "functional", "seed": 1,
    "args": [
      {"name": "self", "tensor": {"dtype": "f32", "device": "cpu",
        "requires_grad": true,
        "components": [{"sizes": [1, 1, 1], "strides": [1, 1, 1],
                        "storage_offset": 0}],
        "values": {"distribution": "zeros", "seed": 0, "specials": []}}},
      {"name": "other", "float": -1.25}],
    "grad_outputs": [
      {"dtype": "f32", "device": "cpu", "requires_grad": false,
       "components": [{"sizes": [1, 2, 2], "strides": [4, 1, 2],
                       "storage_offset": 0}],
       "values": {"distribution": "arange", "seed": 0, "specials": []}}]
  })");
  ASSERT_TRUE(c.ok()) << c.status();
  const OpSpec* spec = FindOpFor(*c);
  ASSERT_NE(spec, nullptr);
  absl::StatusOr<CaseOutcome> o = RunCase(*spec, *c);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_FALSE(IsFinding(o->verdict))
      << VerdictName(o->verdict) << ": " << o->evidence.detail;
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
    Verdicts(spec, 20, spec.nested_reference != NestedReference::kFromPadded);
  }
  EXPECT_GE(specs, 10);
}

// LibTorch's own differentiable nested ops (softmax, linear) get strided
// nested grad_outputs, and their gradients and values agree on every
// layout they take (1.13's nested linear states that it takes only
// contiguous inputs: a rejection, not a wrong value).
TEST(NestedCaseTest, GradientsOfLibTorchNestedOpsAgree) {
  for (const char* name : {"nested:aten::softmax.int", "nested:aten::linear"}) {
    SCOPED_TRACE(name);
    const OpSpec* spec = FindOp(name);
    ASSERT_NE(spec, nullptr);
    int with_grads = 0;
    Rng rng(4);
    for (int i = 0; i < 60; ++i) {
      absl::StatusOr<std::optional<Case>> c =
          BuildCase(*spec, DType::kFloat64, Variant::kFunctional, rng.Next());
      ASSERT_TRUE(c.ok()) << c.status();
      if (!c->has_value() || (*c)->grad_outputs.empty()) continue;
      ++with_grads;
      EXPECT_TRUE((*c)->grad_outputs.front().is_nested());
      absl::StatusOr<CaseOutcome> o = RunCase(*spec, **c);
      ASSERT_TRUE(o.ok()) << o.status();
      for (Verdict wrong : {Verdict::kGradMismatch, Verdict::kMismatch,
                            Verdict::kNanIntroduced}) {
        EXPECT_NE(o->verdict, wrong) << o->evidence.detail << "\n"
                                     << CaseToString(**c);
      }
    }
    EXPECT_GT(with_grads, 10);
  }
}

// The way back from padded tensors: LibTorch's constructors of nested
// tensors from dense ones are judged by their nested specs (strided dense
// arguments, component by component, and the corners of the padded
// argument); their contiguous results are the padded rows' corners. (The
// layout of _nested_from_padded's size tensor is another matter: 1.13
// reads it as if contiguous, a known finding.)
TEST(NestedCaseTest, ConstructorsFromPaddedAgreeWithTheirRows) {
  for (const char* name : {"nested:aten::_nested_from_padded",
                           "nested:aten::_nested_tensor_from_mask"}) {
    SCOPED_TRACE(name);
    const OpSpec* spec = FindOp(name);
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(spec->nested_reference, NestedReference::kFromPadded);
    BuildOptions forward;
    forward.check_grad = false;
    int agree = 0;
    Rng rng(2);
    for (int i = 0; i < 100; ++i) {
      absl::StatusOr<std::optional<Case>> c = BuildCase(
          *spec, DType::kFloat32, Variant::kFunctional, rng.Next(), forward);
      ASSERT_TRUE(c.ok()) << c.status();
      if (!c->has_value()) continue;
      EXPECT_FALSE(HasNestedTensor(**c));
      absl::StatusOr<CaseOutcome> o = RunCase(*spec, **c);
      ASSERT_TRUE(o.ok()) << o.status();
      agree += o->verdict == Verdict::kAgree;
      EXPECT_EQ(o->evidence.detail.find("is not the corner of row"),
                std::string::npos)
          << o->evidence.detail << "\n"
          << CaseToString(**c);
    }
    EXPECT_GT(agree, 30);
  }
}

// The schema-driven path: a library's op with a nested kernel
// (TORCH_LIBRARY_IMPL(planted_nested, NestedTensorCPU, m)) gets a generic
// nested spec from its schema alone, which finds the buffer read as dense
// and gives a correct kernel no finding.
OpSpec SchemaSpec(const std::string& name) {
  absl::StatusOr<OpSpec> spec =
      GenericNestedOpSpec(SplitOverload("planted_nested::" + name));
  EXPECT_TRUE(spec.ok()) << spec.status();
  return spec.ok() ? *spec : OpSpec{};
}

TEST(NestedCaseTest, SchemaPathFindsBufferReadAsDense) {
  std::map<Verdict, int> v = Verdicts(SchemaSpec("buffer_relu"), 200);
  EXPECT_GT(v[Verdict::kMismatch] + v[Verdict::kNanIntroduced], 0);
  EXPECT_GT(v[Verdict::kAgree], 0);
}

TEST(NestedCaseTest, SchemaPathGivesCorrectNestedOpNoFinding) {
  std::map<Verdict, int> v = Verdicts(SchemaSpec("good_relu"), 300);
  for (const auto& [verdict, count] : v) {
    EXPECT_FALSE(IsFinding(verdict))
        << count << " cases gave " << VerdictName(verdict);
  }
  EXPECT_GT(v[Verdict::kAgree], 100);
}

// A nested tensor over `buffer` with exactly these sizes, strides and
// offsets, made as a kernel makes its result (LibTorch's NestedTensorImpl
// constructor, which takes the offsets as an int[] in 1.13 and as a tensor
// in 2.x), with no check of where the components lie.
at::Tensor NestedTensorOf(const at::Tensor& buffer, const at::Tensor& sizes,
                          const at::Tensor& strides,
                          std::vector<int64_t> offsets) {
#if TORCH_VERSION_MAJOR < 2
  return at::detail::make_tensor<at::native::NestedTensorImpl>(
      buffer, sizes, strides, std::move(offsets));
#else
  return at::detail::make_tensor<at::native::NestedTensorImpl>(
      buffer, sizes, strides, at::tensor(offsets, at::kLong));
#endif
}

TEST(NestedPromisesTest, NestedTensorsOfLibTorchKeepThem) {
  const at::Tensor t = at::_nested_tensor_from_tensor_list(
      {at::ones({2, 3}), at::ones({1, 3}), at::ones({0, 3})});
  EXPECT_EQ(CheckNestedPromises(t), std::nullopt);
  EXPECT_EQ(CheckNestedPromises(t.transpose(1, 2)), std::nullopt);
  EXPECT_EQ(CheckNestedPromises(at::ones({2})), std::nullopt);  // Dense.
}

TEST(NestedPromisesTest, AComponentOutsideItsBufferIsNamed) {
  const at::Tensor sizes = at::tensor(std::vector<int64_t>{2, 2}).view({2, 1});
  const at::Tensor strides = at::ones({2, 1}, at::kLong);
  const at::Tensor buffer = at::arange(4, at::kFloat);
  EXPECT_EQ(CheckNestedPromises(NestedTensorOf(buffer, sizes, strides, {0, 2})),
            std::nullopt);
  std::optional<std::string> broken =
      CheckNestedPromises(NestedTensorOf(buffer, sizes, strides, {0, 3}));
  ASSERT_TRUE(broken.has_value());
  EXPECT_NE(broken->find("component 1 of the nested result (sizes [2], "
                         "strides [1], offset 3) reaches element 4 of a "
                         "buffer of 4"),
            std::string::npos)
      << *broken;
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
