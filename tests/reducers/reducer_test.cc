// The reducer over planted predicates: pure functions of the case stand
// for "the bug shows", so each test knows the exact minimal case.

#include "reducers/reducer.h"

#include <functional>

#include "crashes/bugs/findings_store.h"
#include "generators/case_json.h"
#include "generators/geometry.h"
#include "generators/layout_features.h"
#include "generators/view_chain.h"
#include "gtest/gtest.h"
#include "reducers/case_order.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

using Predicate = std::function<bool(const Case&)>;

bool AnyTensor(const Case& c, const std::function<bool(const TensorSpec&)>& f) {
  for (const TensorSpec* t : TensorSpecsOf(c)) {
    if (f(*t)) return true;
  }
  return false;
}

CaseRunner RunnerOf(Predicate p, Verdict verdict, int* calls = nullptr) {
  return [p, verdict,
          calls](const Case& c) -> absl::StatusOr<std::optional<Finding>> {
    if (calls != nullptr) ++*calls;
    if (!p(c)) return std::optional<Finding>();
    CaseOutcome o;
    o.verdict = verdict;
    return std::optional<Finding>(MakeFinding(c, o));
  };
}

Finding Original(const Case& c, Verdict verdict) {
  CaseOutcome o;
  o.verdict = verdict;
  return MakeFinding(c, o);
}

// The one tensor argument of a reduced case, checked to be the only one.
const TensorSpec& OnlyTensor(const Case& c) {
  const std::vector<const TensorSpec*> ts = TensorSpecsOf(c);
  EXPECT_EQ(ts.size(), 1u) << CaseToJson(c);
  static const TensorSpec kNone;
  return ts.empty() ? kNone : *ts[0];
}

void ExpectSimplestValues(const TensorSpec& t) {
  EXPECT_EQ(t.values.distribution, Distribution::kZeros);
  EXPECT_EQ(t.values.specials, 0u);
  EXPECT_EQ(t.values.seed, 0u);
}

// Needs one dim of size > 1 with stride 0: one tensor [2]@[0]+0, float32,
// zeros, nothing else.
TEST(ReducerTest, ZeroStrideReducesToOneExpandedDim) {
  Case start = LoadKnownCase("median-expanded-input-reads-outside-view");
  const Predicate p = [](const Case& c) {
    return AnyTensor(c, [](const TensorSpec& t) {
      for (size_t d = 0; d < t.layout.sizes.size(); ++d) {
        if (t.layout.sizes[d] > 1 && t.layout.strides[d] == 0) return true;
      }
      return false;
    });
  };
  ASSERT_TRUE(p(start));
  const ReduceResult r = Reduce(Original(start, Verdict::kMismatch),
                                RunnerOf(p, Verdict::kMismatch), {});
  EXPECT_FALSE(r.flaky);
  EXPECT_FALSE(r.budget_exhausted);
  EXPECT_TRUE(r.reduced.grad_outputs.empty());
  const TensorSpec& t = OnlyTensor(r.reduced);
  EXPECT_EQ(t.layout, (StridedLayout{{2}, {0}, 0}));
  EXPECT_EQ(t.dtype, DType::kFloat32);
  ExpectSimplestValues(t);
  EXPECT_EQ(r.reduced.args.size(), 1u);
  EXPECT_EQ(r.finding.c, r.reduced);
}

// Needs an integral tensor of at least 6 elements: int64 (the most common
// integral dtype), zeros, one contiguous dim of 6 ([6]@[0] would need less
// storage, but stride 0 costs more: Note [Natural triggers]).
TEST(ReducerTest, SizeBisectsToTheSmallestThatFails) {
  Case start = LoadKnownCase("tril-out-gapped-writes-outside-view");
  const Predicate p = [](const Case& c) {
    return AnyTensor(c, [](const TensorSpec& t) {
      return t.numel() >= 6 && t.dtype != DType::kFloat32 &&
             t.dtype != DType::kFloat64 && t.dtype != DType::kFloat16 &&
             t.dtype != DType::kBFloat16 && t.dtype != DType::kComplex64 &&
             t.dtype != DType::kComplex128;
    });
  };
  ASSERT_TRUE(p(start));
  const ReduceResult r = Reduce(Original(start, Verdict::kOutsideWrite),
                                RunnerOf(p, Verdict::kOutsideWrite), {});
  const TensorSpec& t = OnlyTensor(r.reduced);
  EXPECT_EQ(t.layout, (StridedLayout{{6}, {1}, 0}));
  EXPECT_EQ(t.dtype, DType::kInt64);
  ExpectSimplestValues(t);
}

// Needs a length of at least 2: the int argument gallops down to 2 (0 and
// 1, all simplify_values tries, fail).
TEST(ReducerTest, IntArgumentsShrinkToTheSmallestThatFails) {
  Case start = LoadKnownCase("narrow_copy-out-gapped-writes-outside-view");
  for (Argument& a : start.args) {
    if (a.name == "length") a.value = int64_t{13};
  }
  const Predicate p = [](const Case& c) {
    for (const Argument& a : c.args) {
      const auto* v = std::get_if<int64_t>(&a.value);
      if (a.name == "length" && v != nullptr) return *v >= 2;
    }
    return false;
  };
  const ReduceResult r = Reduce(Original(start, Verdict::kOutsideWrite),
                                RunnerOf(p, Verdict::kOutsideWrite), {});
  for (const Argument& a : r.reduced.args) {
    if (a.name == "length") {
      EXPECT_EQ(std::get<int64_t>(a.value), 2);
    }
  }
}

// Needs two tensors, the first of at least 4 elements. A backward op
// trusts its caller for the relation of its arguments' sizes: both shrink
// to 4 elements together, since they had the same sizes in the original;
// the second alone would shrink to one element. A public op checks its
// inputs, so there the second shrinks alone.
TEST(ReducerTest, TensorsOfTheSameSizesKeepThemWhereTheOpTrustsItsCaller) {
  TensorSpec grad;
  grad.layout = StridedLayout{{3, 3}, {1, 3}, 0};
  Case start;
  start.op = "aten::tanh_backward";
  start.args = {{"grad_output", grad}, {"output", grad}};
  const Predicate p = [](const Case& c) {
    const std::vector<const TensorSpec*> ts = TensorSpecsOf(c);
    return ts.size() == 2 && ts[0]->numel() >= 4;
  };
  const ReduceResult r = Reduce(Original(start, Verdict::kMismatch),
                                RunnerOf(p, Verdict::kMismatch), {});
  const std::vector<const TensorSpec*> ts = TensorSpecsOf(r.reduced);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts[0]->numel(), 4);
  EXPECT_EQ(ts[0]->layout.sizes, ts[1]->layout.sizes);

  start.op = "aten::add";
  start.overload = "Tensor";
  start.args = {{"self", grad}, {"other", grad}};
  const ReduceResult free = Reduce(Original(start, Verdict::kMismatch),
                                   RunnerOf(p, Verdict::kMismatch), {});
  const std::vector<const TensorSpec*> inputs = TensorSpecsOf(free.reduced);
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0]->numel(), 4);
  EXPECT_EQ(inputs[1]->numel(), 1) << CaseToJson(free.reduced);
}

// Needs an out one longer than self in its last dim, as a padding's is:
// both shrink by the same steps, to self [1, 1] and out [1, 2]; neither
// shrinks alone, nor do they shrink as tensors of one size.
TEST(ReducerTest, AnOutLongerByAFixedAmountShrinksWithItsInput) {
  Case start = LoadKnownCase("tril-out-gapped-writes-outside-view");
  std::vector<TensorSpec*> ts = AllTensorSpecsOf(start);
  ASSERT_EQ(ts.size(), 2u);
  ts[0]->layout = StridedLayout{{3, 4}, {4, 1}, 0};
  ts[1]->layout = StridedLayout{{3, 5}, {1, 3}, 0};
  const Predicate p = [](const Case& c) {
    const std::vector<const TensorSpec*> ts = TensorSpecsOf(c);
    if (ts.size() != 2 || ts[0]->dim() != 2 || ts[1]->dim() != 2) {
      return false;
    }
    const Dims& in = ts[0]->layout.sizes;
    const Dims& out = ts[1]->layout.sizes;
    return in[0] == out[0] && in[1] + 1 == out[1] && in[1] >= 1 &&
           ts[1]->layout.strides[0] == 1 && out[0] > 0;
  };
  ASSERT_TRUE(p(start));
  const ReduceResult r = Reduce(Original(start, Verdict::kOutsideWrite),
                                RunnerOf(p, Verdict::kOutsideWrite), {});
  const std::vector<const TensorSpec*> reduced = TensorSpecsOf(r.reduced);
  ASSERT_EQ(reduced.size(), 2u);
  EXPECT_EQ(reduced[0]->layout.sizes, (Dims{1, 1}));
  EXPECT_EQ(reduced[1]->layout.sizes, (Dims{1, 2}));
}

// Needs `dim` to name a dim of size 2 or more of both tensors: from
// [3, 4] tensors and dim 1, dropping dim 0 renumbers `dim` to 0, so the
// case reduces to rank 1 ([2] tensors, dim 0) instead of stopping at
// [1, 2] with dim 1.
TEST(ReducerTest, DroppingADimRenumbersTheDimArguments) {
  Case start = LoadKnownCase("narrow_copy-out-gapped-writes-outside-view");
  for (TensorSpec* t : AllTensorSpecsOf(start)) {
    t->layout = StridedLayout{{3, 4}, {4, 1}, 0};
  }
  for (Argument& a : start.args) {
    if (a.name == "dim") a.value = int64_t{1};
  }
  const Predicate p = [](const Case& c) {
    const int64_t* dim = nullptr;
    for (const Argument& a : c.args) {
      if (a.name == "dim") dim = std::get_if<int64_t>(&a.value);
    }
    const std::vector<const TensorSpec*> ts = TensorSpecsOf(c);
    return dim != nullptr && ts.size() == 2 &&
           std::all_of(ts.begin(), ts.end(), [dim](const TensorSpec* t) {
             return *dim >= 0 && *dim < t->dim() && t->layout.sizes[*dim] >= 2;
           });
  };
  ASSERT_TRUE(p(start));
  const ReduceResult r = Reduce(Original(start, Verdict::kOutsideWrite),
                                RunnerOf(p, Verdict::kOutsideWrite), {});
  for (const TensorSpec* t : TensorSpecsOf(r.reduced)) {
    EXPECT_EQ(t->layout.sizes, (Dims{2})) << CaseToJson(r.reduced);
  }
  EXPECT_EQ(std::get<int64_t>(FindArgument(r.reduced, "dim")->value), 0);
}

// Needs a [1, 2] tensor with a gap of 1 between its two elements: the
// stride of the size-1 dim, which addresses nothing, ends as view ops give
// it (so that an issue.md builds it by slicing, not as_strided), whatever
// it started at (seeds gave [1, 2]@[100, 2] and [1, 2]@[0, 2]).
TEST(ReducerTest, TheStrideOfASizeOneDimEndsAsViewOpsGiveIt) {
  Case start = LoadKnownCase("median-expanded-input-reads-outside-view");
  const Predicate p = [](const Case& c) {
    const std::vector<const TensorSpec*> ts = TensorSpecsOf(c);
    return !ts.empty() && ts[0]->layout.sizes == Dims{1, 2} &&
           ts[0]->layout.strides[1] == 2;
  };
  std::vector<StridedLayout> reduced;
  for (const int64_t stride : {100, 7, 0}) {
    std::get<TensorSpec>(start.args[0].value).layout =
        StridedLayout{{1, 2}, {stride, 2}, 0};
    ASSERT_TRUE(p(start));
    const ReduceResult r = Reduce(Original(start, Verdict::kMismatch),
                                  RunnerOf(p, Verdict::kMismatch), {});
    reduced.push_back(TensorSpecsOf(r.reduced)[0]->layout);
    const std::optional<ViewChain> chain = ComputeViewChain(reduced.back());
    ASSERT_TRUE(chain.has_value()) << CaseToJson(r.reduced);
    EXPECT_TRUE(chain->exact) << CaseToJson(r.reduced);
  }
  EXPECT_EQ(reduced[0], reduced[1]);
  EXPECT_EQ(reduced[0], reduced[2]);
}

// The runner gives the grad_output the size of a result that follows no
// input's size (half of self's elements, as masked_select's by a mask that
// selects every other one), as the worker does (FitGradOutputs); the bug
// needs a column-major self of at least 2 x 2. The grad_output follows
// self down: [2] for self [2, 2].
TEST(ReducerTest, AGradOutputKeepsTheSizeOfItsResult) {
  TensorSpec self;
  self.requires_grad = true;
  self.layout = StridedLayout{{12, 4}, {1, 12}, 0};
  TensorSpec grad;
  grad.layout = StridedLayout{{24}, {1}, 0};
  Case start;
  start.op = "aten::masked_select";
  start.args = {{"self", self}};
  start.grad_outputs = {grad};
  const CaseRunner run =
      [](const Case& c) -> absl::StatusOr<std::optional<Finding>> {
    if (c.grad_outputs.empty() || TensorSpecsOf(c).size() != 1) {
      return std::optional<Finding>();
    }
    Case fitted = c;
    const StridedLayout& l = TensorSpecsOf(c)[0]->layout;
    fitted.grad_outputs[0].layout =
        StridedLayout{{ComputeNumel(l.sizes) / 2}, {1}, 0};
    if (l.sizes.size() != 2 || l.sizes[0] < 2 || l.sizes[1] < 2 ||
        l.strides[0] != 1) {
      return std::optional<Finding>();
    }
    CaseOutcome o;
    o.verdict = Verdict::kGradMismatch;
    return std::optional<Finding>(MakeFinding(fitted, o));
  };
  const ReduceResult r =
      Reduce(Original(start, Verdict::kGradMismatch), run, {});
  EXPECT_EQ(TensorSpecsOf(r.reduced)[0]->layout,
            (StridedLayout{{2, 2}, {1, 2}, 0}));
  ASSERT_EQ(r.reduced.grad_outputs.size(), 1u);
  EXPECT_EQ(r.reduced.grad_outputs[0].layout, (StridedLayout{{2}, {1}, 0}));
  EXPECT_EQ(r.finding.c, r.reduced);
}

// Any dtype shows the bug: self goes to float32, the simplest, but the
// bool mask beside it stays a bool mask (int64 would come first by the
// order).
TEST(ReducerTest, ABoolMaskStaysBool) {
  TensorSpec self;
  self.dtype = DType::kFloat64;
  self.layout = StridedLayout{{2}, {1}, 0};
  TensorSpec mask = self;
  mask.dtype = DType::kBool;
  Case start;
  start.op = "aten::masked_fill";
  start.args = {{"self", self}, {"mask", mask}};
  const Predicate p = [](const Case& c) {
    return TensorSpecsOf(c).size() == 2;
  };
  const ReduceResult r = Reduce(Original(start, Verdict::kMismatch),
                                RunnerOf(p, Verdict::kMismatch), {});
  const std::vector<const TensorSpec*> ts = TensorSpecsOf(r.reduced);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts[0]->dtype, DType::kFloat32);
  EXPECT_EQ(ts[1]->dtype, DType::kBool);
  // Where every tensor is bool, they are data: float32 too.
  std::get<TensorSpec>(start.args[0].value).dtype = DType::kBool;
  const ReduceResult data = Reduce(Original(start, Verdict::kMismatch),
                                   RunnerOf(p, Verdict::kMismatch), {});
  for (const TensorSpec* t : TensorSpecsOf(data.reduced)) {
    EXPECT_EQ(t->dtype, DType::kFloat32);
  }
}

// masked_scatter's relation: the source needs as many elements as the
// mask, broadcast to self, has True ones. With a drawn mask (small
// integers: here one True) the source could shrink to the True count; an
// all-True mask, the simplest that shows the bug, needs a source as long
// as self, so values are simplified before sizes take that room away, and
// the mask then shrinks to a 0-dim True. Ones that became so still become
// zeros where the bug allows.
TEST(ReducerTest, AValueChangeIsTriedBeforeSizesTakeItsRoomAway) {
  TensorSpec self;
  self.layout = StridedLayout{{4}, {1}, 0};
  self.values.distribution = Distribution::kOnes;
  TensorSpec mask = self;
  mask.dtype = DType::kBool;
  mask.values.distribution = Distribution::kSmallInt;
  TensorSpec source = self;  // Of its own size: tied to neither.
  source.layout = StridedLayout{{5}, {1}, 0};
  source.values.distribution = Distribution::kArange;
  Case start;
  start.op = "aten::masked_scatter";
  start.args = {{"self", self}, {"mask", mask}, {"source", source}};
  const Predicate p = [](const Case& c) {
    const std::vector<const TensorSpec*> ts = TensorSpecsOf(c);
    if (ts.size() != 3) return false;
    const int64_t n = ts[0]->numel();
    const Distribution d = ts[1]->values.distribution;
    const int64_t trues = d == Distribution::kOnes       ? n
                          : d == Distribution::kSmallInt ? 1
                                                         : 0;
    return ts[0]->numel() >= 2 && trues >= 1 && ts[2]->numel() >= trues;
  };
  const ReduceResult r = Reduce(Original(start, Verdict::kMismatch),
                                RunnerOf(p, Verdict::kMismatch), {});
  const std::vector<const TensorSpec*> ts = TensorSpecsOf(r.reduced);
  ASSERT_EQ(ts.size(), 3u) << CaseToJson(r.reduced);
  EXPECT_EQ(ts[1]->values.distribution, Distribution::kOnes)
      << CaseToJson(r.reduced);
  EXPECT_EQ(ts[1]->layout.sizes, Dims{});
  EXPECT_EQ(ts[2]->numel(), 2);
  ExpectSimplestValues(*ts[0]);
}

// masked_fill's bug needs a transposed self of 2 x 2, whatever the mask
// holds. A seed's mask of self's sizes with explicit values leaves self's
// sizes for a 0-dim True or False (masked_fill checks its inputs), its
// values simplified like drawn ones.
TEST(ReducerTest, ASeedsMaskShrinksAndSimplifiesLikeADrawnOne) {
  TensorSpec self;
  self.layout = StridedLayout{{2, 2}, {1, 2}, 0};
  TensorSpec mask;
  mask.dtype = DType::kBool;
  mask.layout = StridedLayout{{2, 2}, {2, 1}, 0};
  mask.values.distribution = Distribution::kExplicit;
  mask.values.data = {1, 0, 0, 1};
  Case start;
  start.op = "aten::masked_fill";
  start.args = {{"self", self}, {"mask", mask}};
  const Predicate p = [](const Case& c) {
    const std::vector<const TensorSpec*> ts = TensorSpecsOf(c);
    return ts.size() == 2 && ts[0]->layout.sizes == Dims{2, 2} &&
           ts[0]->layout.strides == Dims{1, 2};
  };
  const ReduceResult r = Reduce(Original(start, Verdict::kMismatch),
                                RunnerOf(p, Verdict::kMismatch), {});
  const std::vector<const TensorSpec*> ts = TensorSpecsOf(r.reduced);
  ASSERT_EQ(ts.size(), 2u);
  EXPECT_EQ(ts[1]->dtype, DType::kBool);
  EXPECT_EQ(ts[1]->layout.sizes, Dims{}) << CaseToJson(r.reduced);
  EXPECT_EQ(ts[1]->values.distribution, Distribution::kZeros);
}

// Needs a gapped tensor of rank 3 whose last dim has 2 elements (a
// kernel's width, say), from [1, 2, 2] with its gap between rows:
// shrinking the rows to one takes the gap away unless it moves into the
// last dim: [1, 1, 2], every other element.
TEST(ReducerTest, AShrinkKeepsTheGapsAFindingNeeds) {
  TensorSpec out;
  out.layout = StridedLayout{{1, 2, 2}, {6, 3, 1}, 0};
  Case start;
  start.op = "aten::neg";
  start.variant = Variant::kOut;
  start.args = {{"out", out}};
  const Predicate p = [](const Case& c) {
    const std::vector<const TensorSpec*> ts = TensorSpecsOf(c);
    return ts.size() == 1 && ts[0]->layout.sizes.size() == 3 &&
           ts[0]->layout.sizes[2] == 2 &&
           (ComputeLayoutFeatures(ts[0]->layout) & kFeatureGapped);
  };
  ASSERT_TRUE(p(start));
  const ReduceResult r = Reduce(Original(start, Verdict::kOutsideWrite),
                                RunnerOf(p, Verdict::kOutsideWrite), {});
  const StridedLayout& l = OnlyTensor(r.reduced).layout;
  EXPECT_EQ(l.sizes, (Dims{1, 1, 2})) << CaseToJson(r.reduced);
  EXPECT_EQ(l.strides[2], 2) << CaseToJson(r.reduced);
}

// Needs a storage offset of at least 3: a 0-dim tensor at offset 3.
TEST(ReducerTest, OffsetKeepsItsMinimumAndRankGoesToZero) {
  Case start = LoadKnownCase("tril-out-gapped-writes-outside-view");
  const Predicate p = [](const Case& c) {
    return AnyTensor(
        c, [](const TensorSpec& t) { return t.layout.storage_offset >= 3; });
  };
  ASSERT_TRUE(p(start));
  const ReduceResult r = Reduce(Original(start, Verdict::kOutsideWrite),
                                RunnerOf(p, Verdict::kOutsideWrite), {});
  const TensorSpec& t = OnlyTensor(r.reduced);
  EXPECT_EQ(t.layout, (StridedLayout{{}, {}, 3}));
}

// The same reduction twice gives the same case: the order is total.
TEST(ReducerTest, ReductionIsDeterministic) {
  Case start = LoadKnownCase("masked_select-backward-transposed");
  const Predicate p = [](const Case& c) {
    return TensorSpecsOf(c).size() >= 2;
  };
  const ReduceResult a = Reduce(Original(start, Verdict::kMismatch),
                                RunnerOf(p, Verdict::kMismatch), {});
  const ReduceResult b = Reduce(Original(start, Verdict::kMismatch),
                                RunnerOf(p, Verdict::kMismatch), {});
  EXPECT_EQ(a.reduced, b.reduced);
  EXPECT_EQ(a.calls, b.calls);
  EXPECT_EQ(TensorSpecsOf(a.reduced).size(), 2u);
  EXPECT_TRUE(SimplerThan(a.reduced, start));
}

TEST(ReducerTest, AFindingThatDoesNotReproduceIsFlakyAndKept) {
  const Case start = LoadKnownCase("tril-out-gapped-writes-outside-view");
  int calls = 0;
  const ReduceResult r = Reduce(
      Original(start, Verdict::kMismatch),
      RunnerOf([](const Case&) { return false; }, Verdict::kMismatch, &calls),
      {});
  EXPECT_TRUE(r.flaky);
  EXPECT_EQ(r.reduced, start);
  EXPECT_EQ(calls, 1);
}

TEST(ReducerTest, TheCallBudgetIsKept) {
  const Case start = LoadKnownCase("tril-out-gapped-writes-outside-view");
  int calls = 0;
  ReduceOptions options;
  options.max_calls = 5;
  const Predicate p = [](const Case& c) {
    return AnyTensor(c, [](const TensorSpec& t) { return t.numel() >= 6; });
  };
  const ReduceResult r =
      Reduce(Original(start, Verdict::kMismatch),
             RunnerOf(p, Verdict::kMismatch, &calls), options);
  EXPECT_TRUE(r.budget_exhausted);
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(r.calls, 5);
  EXPECT_TRUE(SimplerThan(r.reduced, start));
}

// A budget that the original's rerun spends leaves the reduction undone,
// and says so: a campaign then queues the finding to go on from it.
TEST(ReducerTest, ABudgetSpentBeforeAnyCandidateIsExhausted) {
  const Case start = LoadKnownCase("tril-out-gapped-writes-outside-view");
  ReduceOptions options;
  options.max_calls = 1;
  const ReduceResult r = Reduce(
      Original(start, Verdict::kMismatch),
      RunnerOf([](const Case&) { return true; }, Verdict::kMismatch), options);
  EXPECT_FALSE(r.flaky);
  EXPECT_TRUE(r.budget_exhausted);
  EXPECT_EQ(r.reduced, start);
}

// Another verdict met on the way is reported, not followed; a result that
// fails verification gives way to the original.
TEST(ReducerTest, OtherFindingsAreReportedAndVerificationIsRequired) {
  const Case start = LoadKnownCase("tril-out-gapped-writes-outside-view");
  const CaseRunner run =
      [](const Case& c) -> absl::StatusOr<std::optional<Finding>> {
    CaseOutcome o;
    // Small cases show "another bug"; large ones the one reduced.
    o.verdict = CaseSize(c) >= 20 ? Verdict::kMismatch : Verdict::kCrash;
    return std::optional<Finding>(MakeFinding(c, o));
  };
  int others = 0;
  ReduceOptions options;
  options.on_other_finding = [&others](const Finding& f) {
    EXPECT_EQ(f.outcome.verdict, Verdict::kCrash);
    ++others;
  };
  options.verify = [](const Case&) -> absl::StatusOr<std::optional<Finding>> {
    return std::optional<Finding>();
  };
  const ReduceResult r =
      Reduce(Original(start, Verdict::kMismatch), run, options);
  EXPECT_GT(others, 0);
  EXPECT_FALSE(r.verified);
  EXPECT_EQ(r.reduced, start);
}

TEST(ReductionKeyTest, DTypesAndDevicesAndCrashKeysMayChange) {
  Finding f;
  f.signature = "aten::tril|out|mismatch|i8,i8|cpu|aliased";
  f.outcome.verdict = Verdict::kMismatch;
  EXPECT_EQ(ReductionKey(f), "aten::tril|out|mismatch|*|*|aliased");
  f.signature = "aten::tril|out|crash|i8,i8|cpu|aliased|SIGABRT:free()";
  f.outcome.verdict = Verdict::kCrash;
  EXPECT_EQ(ReductionKey(f), "aten::tril|out|crash");
  f.outcome.kind = FindingKind::kBaselineFailure;
  EXPECT_EQ(ReductionKey(f), "aten::tril|out|crash|baseline_failure");
}

// A layout bug whose smaller candidates make the contiguous baseline fail
// with the same verdict (an internal assert on the dtype where the bug's
// was on the layout) is not reduced into that baseline failure.
TEST(ReducerTest, ALayoutBugNeverReducesToABaselineFailure) {
  const Case start = LoadKnownCase("tril-out-gapped-writes-outside-view");
  const CaseRunner run =
      [start](const Case& c) -> absl::StatusOr<std::optional<Finding>> {
    CaseOutcome o;
    o.verdict = Verdict::kInternalAssert;
    if (!(c == start)) o.kind = FindingKind::kBaselineFailure;
    return std::optional<Finding>(MakeFinding(c, o));
  };
  ReduceOptions options;
  int others = 0;
  options.on_other_finding = [&others](const Finding& f) {
    EXPECT_EQ(f.outcome.kind, FindingKind::kBaselineFailure);
    ++others;
  };
  const ReduceResult r =
      Reduce(Original(start, Verdict::kInternalAssert), run, options);
  EXPECT_GT(others, 0);
  EXPECT_EQ(r.reduced, start);
  EXPECT_EQ(r.finding.outcome.kind, FindingKind::kLayoutBug);
}

// Needs a nested tensor with a component whose dims are not in order (a
// transposed component, what a nested kernel reading the buffer densely
// gets wrong): the minimal case is one component [2, 2] transposed, alone
// in its buffer, with the simplest values.
TEST(ReducerTest, NestedReducesToOneTransposedComponent) {
  Case start;
  start.op = "aten::relu";
  TensorSpec t;
  t.dtype = DType::kFloat64;
  t.values.seed = 9;
  t.values.distribution = Distribution::kDyadic;
  t.components = {{{3, 4}, {1, 3}, 20},
                  {{2, 4}, {4, 1}, 0},
                  {{0, 4}, {4, 1}, 12},
                  {{1, 4}, {1, 1}, 8}};
  start.args.push_back(Argument{"self", t});
  const Predicate p = [](const Case& c) {
    return AnyTensor(c, [](const TensorSpec& s) {
      for (const StridedLayout& l : s.components) {
        if (ComputeNumel(l.sizes) > 1 &&
            !ComputeIsContiguous(l.sizes, l.strides, MemoryFormat::kContiguous))
          return true;
      }
      return false;
    });
  };
  ASSERT_TRUE(p(start));
  const ReduceResult r = Reduce(Original(start, Verdict::kMismatch),
                                RunnerOf(p, Verdict::kMismatch), {});
  EXPECT_FALSE(r.budget_exhausted);
  const TensorSpec& reduced = OnlyTensor(r.reduced);
  ASSERT_EQ(reduced.components.size(), 1u) << CaseToJson(r.reduced);
  EXPECT_EQ(reduced.components[0], (StridedLayout{{2, 2}, {1, 2}, 0}))
      << CaseToJson(r.reduced);
  EXPECT_EQ(reduced.dtype, DType::kFloat32);
  ExpectSimplestValues(reduced);
}

}  // namespace
}  // namespace dpfuzz
