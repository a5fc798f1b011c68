// Generalize over a planted predicate: "the bug shows" in floating dtypes
// only; the op's other dtypes are quiet, and the summary says so.

#include "reducers/generalize.h"

#include <functional>

#include "generators/op_registry.h"
#include "gtest/gtest.h"

namespace dpfuzz {
namespace {

Finding AbsFinding(DType dtype) {
  Case c;
  c.op = "aten::abs";
  TensorSpec self;
  self.dtype = dtype;
  self.layout = StridedLayout{{2, 3}, {1, 2}, 0};
  c.args = {{"self", self}};
  CaseOutcome o;
  o.verdict = Verdict::kMismatch;
  Finding f = MakeFinding(c, o);
  f.blame = {"self", "permuted"};
  return f;
}

TEST(GeneralizeTest, NamesTheDTypesTheBugShowsIn) {
  const OpSpec* spec = FindOpFor(AbsFinding(DType::kFloat32).c);
  ASSERT_NE(spec, nullptr);
  int calls = 0;
  const CaseRunner floating_only =
      [&calls](const Case& c) -> absl::StatusOr<std::optional<Finding>> {
    ++calls;
    const DType d = std::get<TensorSpec>(c.args[0].value).dtype;
    if (!IsFloating(d)) return std::optional<Finding>();
    CaseOutcome o;
    o.verdict = Verdict::kNanIntroduced;  // Same family: wrong values.
    return std::optional<Finding>(MakeFinding(c, o));
  };
  const Generality g =
      Generalize(AbsFinding(DType::kFloat32), floating_only, 100);
  EXPECT_EQ(calls, static_cast<int>(spec->dtypes.size()) - 1);
  for (DType d : spec->dtypes) {
    EXPECT_EQ(g.shown.count(d), IsFloating(d) ? 1u : 0u) << DTypeName(d);
    EXPECT_EQ(g.quiet.count(d), IsFloating(d) ? 0u : 1u) << DTypeName(d);
  }
  EXPECT_FALSE(GeneralitySummary(g).empty());

  calls = 0;
  const Generality capped =
      Generalize(AbsFinding(DType::kFloat32), floating_only, 2);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(capped.shown.size() + capped.quiet.size(), 3u);
}

TEST(GeneralizeTest, SummaryReadsAsWhereItShows) {
  EXPECT_EQ(GeneralitySummary({{DType::kFloat32}, {}}), "");
  EXPECT_EQ(GeneralitySummary({{DType::kFloat32, DType::kFloat64}, {}}),
            "all 2 dtypes tried");
  EXPECT_EQ(GeneralitySummary(
                {{DType::kFloat32, DType::kFloat64}, {DType::kFloat16}}),
            "all 3 dtypes tried but f16");
  EXPECT_EQ(
      GeneralitySummary({{DType::kFloat32}, {DType::kFloat16, DType::kInt64}}),
      "only f32");
}

}  // namespace
}  // namespace dpfuzz
