// Blame over planted predicates: pure functions of the case stand for "the
// bug shows", each needing one argument's layout feature; FindBlame must
// name exactly that argument and feature.

#include "reducers/blame.h"

#include <functional>
#include <string>

#include "generators/geometry.h"
#include "generators/layout_features.h"
#include "gtest/gtest.h"

namespace dpfuzz {
namespace {

using Predicate = std::function<bool(const Case&)>;

CaseRunner RunnerOf(Predicate p, int* calls) {
  return [p, calls](const Case& c) -> absl::StatusOr<std::optional<Finding>> {
    ++*calls;
    if (!p(c)) return std::optional<Finding>();
    CaseOutcome o;
    o.verdict = Verdict::kMismatch;
    return std::optional<Finding>(MakeFinding(c, o));
  };
}

TensorSpec Spec(Dims sizes, Dims strides, int64_t offset) {
  TensorSpec t;
  t.layout = StridedLayout{std::move(sizes), std::move(strides), offset};
  return t;
}

// self (given), mask (transposed 2x3: a red herring the predicates below
// never need) and out (contiguous).
Case ThreeArguments(const TensorSpec& self) {
  Case c;
  c.op = "aten::planted";
  c.variant = Variant::kOut;
  c.args = {{"self", self},
            {"mask", Spec({2, 3}, {1, 2}, 0)},
            {"out", Spec({2, 3}, {3, 1}, 0)}};
  return c;
}

const TensorSpec& Arg(const Case& c, const std::string& name) {
  return std::get<TensorSpec>(FindArgument(c, name)->value);
}

bool SelfHas(const Case& c, uint32_t feature) {
  return (ComputeLayoutFeatures(Arg(c, "self").layout) & feature) != 0;
}

Blame BlameOf(const Case& c, const Predicate& p) {
  int calls = 0;
  CaseOutcome o;
  o.verdict = Verdict::kMismatch;
  const BlameResult r = FindBlame(MakeFinding(c, o), RunnerOf(p, &calls), 24);
  EXPECT_FALSE(r.budget_exhausted);
  EXPECT_EQ(r.calls, calls);
  return r.blame;
}

struct Planted {
  const char* name;
  TensorSpec self;
  Predicate shows;
  const char* feature;
};

class BlameTest : public testing::TestWithParam<Planted> {};

TEST_P(BlameTest, NamesTheArgumentAndTheFeatureTheBugNeeds) {
  const Planted& p = GetParam();
  const Case c = ThreeArguments(p.self);
  ASSERT_TRUE(p.shows(c));
  const Blame b = BlameOf(c, p.shows);
  EXPECT_EQ(b.culprit, "self");
  EXPECT_EQ(b.feature, p.feature);
}

// Each self layout has several features; only one is needed.
INSTANTIATE_TEST_SUITE_P(
    Planted, BlameTest,
    testing::Values(
        Planted{"offset", Spec({2, 3}, {1, 4}, 5),
                [](const Case& c) { return SelfHas(c, kFeatureOffset); },
                "offset"},
        Planted{"gapped", Spec({2, 3}, {1, 4}, 5),
                [](const Case& c) { return SelfHas(c, kFeatureGapped); },
                "gapped"},
        Planted{"permuted", Spec({2, 3}, {1, 4}, 5),
                [](const Case& c) { return SelfHas(c, kFeaturePermuted); },
                "permuted"},
        Planted{"zero_stride", Spec({2, 3}, {0, 1}, 1),
                [](const Case& c) { return SelfHas(c, kFeatureZeroStride); },
                "zero_stride"},
        Planted{"odd_unit_stride", Spec({1, 3}, {7, 1}, 0),
                [](const Case& c) { return SelfHas(c, kFeatureOddUnitStride); },
                "odd_unit_stride"},
        Planted{"channels_last", Spec({2, 3, 2, 2}, {12, 1, 6, 3}, 0),
                [](const Case& c) { return SelfHas(c, kFeatureChannelsLast); },
                "channels_last"}),
    [](const testing::TestParamInfo<Planted>& info) {
      return std::string(info.param.name);
    });

TEST(BlameTest, SharingMemoryIsBlamedOnTheWrittenArgument) {
  Case c = ThreeArguments(Spec({2, 3}, {3, 1}, 0));
  c.aliases = {{"out", "self"}};
  const Blame b = BlameOf(c, [](const Case& x) { return !x.aliases.empty(); });
  EXPECT_EQ(b.culprit, "out");
  EXPECT_EQ(b.feature, "aliasing");
}

TEST(BlameTest, TwoArgumentsBothNeededAreBothCulprits) {
  const Case c = ThreeArguments(Spec({2, 3}, {1, 2}, 0));
  const Blame b = BlameOf(c, [](const Case& x) {
    return (ComputeLayoutFeatures(Arg(x, "self").layout) & kFeaturePermuted) &&
           (ComputeLayoutFeatures(Arg(x, "mask").layout) & kFeaturePermuted);
  });
  EXPECT_EQ(b.culprit, "self,mask");
  EXPECT_EQ(b.feature, "permuted");
}

TEST(BlameTest, ABugWithoutLayoutHasNoCulprit) {
  const Case c = ThreeArguments(Spec({2, 3}, {1, 2}, 0));
  const Blame b = BlameOf(c, [](const Case&) { return true; });
  EXPECT_EQ(b.culprit, "");
  EXPECT_EQ(b.feature, "no_layout");
}

// Note [Reductions that keep the layout]: the bug shows with a transposed
// out, and also, with any layout, when the window is 0 (arguments that do
// not fit). A reduction to window 0 and a plain out is another bug: the
// finding is kept as found, blamed on out. One that keeps out transposed
// is kept.
TEST(BlameTest, AReductionThatLosesTheLayoutIsDropped) {
  const auto shows = [](const Case& c) {
    const Argument* window = FindArgument(c, "window");
    return std::get<int64_t>(window->value) == 0 ||
           (ComputeLayoutFeatures(Arg(c, "out").layout) & kFeaturePermuted);
  };
  CaseOutcome o;
  o.verdict = Verdict::kMismatch;
  Case found = ThreeArguments(Spec({2, 3}, {3, 1}, 0));
  std::get<TensorSpec>(found.args[2].value).layout =
      StridedLayout{{2, 3}, {1, 2}, 0};
  found.args.push_back({"window", int64_t{2}});
  Case lost = ThreeArguments(Spec({2, 3}, {3, 1}, 0));
  lost.args.push_back({"window", int64_t{0}});
  std::get<TensorSpec>(lost.args[1].value).layout =
      StridedLayout{{2, 3}, {3, 1}, 0};
  int calls = 0;
  const Finding kept = BlamedReduction(
      MakeFinding(found, o), MakeFinding(lost, o), RunnerOf(shows, &calls), 24);
  EXPECT_EQ(kept.c, found);
  EXPECT_EQ(kept.blame.culprit, "out");
  EXPECT_EQ(kept.blame.feature, "permuted");

  Case smaller = found;
  std::get<TensorSpec>(smaller.args[1].value).layout =
      StridedLayout{{2, 3}, {3, 1}, 0};
  const Finding reduced =
      BlamedReduction(MakeFinding(found, o), MakeFinding(smaller, o),
                      RunnerOf(shows, &calls), 24);
  EXPECT_EQ(reduced.c, smaller);
  EXPECT_EQ(reduced.blame.culprit, "out");
}

TEST(BlameTest, WithoutBlamedMakesTheCulpritPlain) {
  Case c = ThreeArguments(Spec({2, 3}, {1, 4}, 5));
  const Case plain = WithoutBlamed(c, Blame{"self", "gapped"});
  EXPECT_EQ(Arg(plain, "self").layout, (StridedLayout{{2, 3}, {3, 1}, 0}));
  EXPECT_EQ(Arg(plain, "mask").layout, Arg(c, "mask").layout);
  c.aliases = {{"out", "self"}};
  EXPECT_TRUE(WithoutBlamed(c, Blame{"out", "aliasing"}).aliases.empty());
  EXPECT_EQ(WithoutBlamed(c, Blame{"", "no_layout"}), c);
}

}  // namespace
}  // namespace dpfuzz
