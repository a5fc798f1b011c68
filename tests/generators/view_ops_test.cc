#include "generators/view_ops.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "generators/aten_bridge.h"
#include "generators/geometry.h"
#include "generators/layout_generator.h"
#include "generators/rng.h"

namespace dpfuzz {
namespace {

TEST(ViewOpsTest, Examples) {
  const StridedLayout m{{2, 3}, {3, 1}, 0};
  EXPECT_EQ(*Transpose(m, 0, 1), (StridedLayout{{3, 2}, {1, 3}, 0}));
  EXPECT_EQ(*Unfold({{5}, {1}, 0}, 0, 2, 2),
            (StridedLayout{{2, 2}, {2, 1}, 0}));
  EXPECT_EQ(ViewAsReal({{3}, {1}, 1}), (StridedLayout{{3, 2}, {2, 1}, 2}));
  EXPECT_EQ(*Diagonal(m, 1, 0, 1), (StridedLayout{{2}, {4}, 1}));
  EXPECT_EQ(*Expand({{3, 1}, {1, 1}, 0}, {2, 3, 4}),
            (StridedLayout{{2, 3, 4}, {0, 1, 0}, 0}));
  EXPECT_EQ(*Slice(m, 1, 1, 3, 2), (StridedLayout{{2, 1}, {3, 2}, 1}));
}

TEST(ViewOpsTest, RejectsWhatATenRejects) {
  const StridedLayout m{{2, 3}, {3, 1}, 0};
  EXPECT_FALSE(Transpose(m, 0, 2).ok());
  EXPECT_FALSE(Narrow(m, 1, 2, 2).ok());
  EXPECT_FALSE(Select(m, 0, 2).ok());
  EXPECT_FALSE(Unfold(m, 1, 4, 1).ok());
  EXPECT_FALSE(Diagonal(m, 0, 1, 1).ok());
  EXPECT_FALSE(Expand(m, {4, 3}).ok());
  EXPECT_FALSE(Permute(m, {0, 0}).ok());
  EXPECT_FALSE(Slice(m, 0, 0, 2, 0).ok());
}

// A random step that ATen accepts for `in`, or nothing for a 0-dim layout.
std::optional<ViewStep> RandomStep(const StridedLayout& in, Rng& rng) {
  const int64_t rank = in.dim();
  if (rank == 0) return std::nullopt;
  const int64_t d = rng.Uniform(0, rank - 1);
  const int64_t size = in.sizes[d];
  switch (rng.Uniform(0, 7)) {
    case 0:
      return ViewStep{ViewKind::kTranspose, {d, rng.Uniform(0, rank - 1)}};
    case 1: {
      Dims order(rank);
      for (int64_t i = 0; i < rank; ++i) order[i] = (i + d) % rank;
      return ViewStep{ViewKind::kPermute, order};
    }
    case 2: {
      const int64_t start = rng.Uniform(0, size);
      return ViewStep{ViewKind::kNarrow,
                      {d, start, rng.Uniform(0, size - start)}};
    }
    case 3:
      if (size == 0) return std::nullopt;
      return ViewStep{ViewKind::kSelect, {d, rng.Uniform(0, size - 1)}};
    case 4:
      return ViewStep{ViewKind::kSlice,
                      {d, rng.Uniform(0, size), rng.Uniform(0, size + 1),
                       rng.Uniform(1, 3)}};
    case 5:
      return ViewStep{ViewKind::kUnfold,
                      {d, rng.Uniform(0, size), rng.Uniform(1, 3)}};
    case 6:
      if (rank < 2) return std::nullopt;
      return ViewStep{ViewKind::kDiagonal,
                      {rng.Uniform(-3, 3), d, (d + 1) % rank}};
    default: {
      Dims target = in.sizes;
      for (int64_t& s : target) {
        if (s == 1 && rng.OneIn(2)) s = rng.Uniform(0, 3);
      }
      if (rng.OneIn(2)) target.insert(target.begin(), rng.Uniform(1, 3));
      return ViewStep{ViewKind::kExpand, target};
    }
  }
}

at::Tensor ApplyInATen(const at::Tensor& t, const ViewStep& step) {
  const Dims& a = step.args;
  switch (step.kind) {
    case ViewKind::kTranspose:
      return t.transpose(a[0], a[1]);
    case ViewKind::kPermute:
      return t.permute(a);
    case ViewKind::kNarrow:
      return t.narrow(a[0], a[1], a[2]);
    case ViewKind::kSelect:
      return t.select(a[0], a[1]);
    case ViewKind::kSlice:
      return t.slice(a[0], a[1], a[2], a[3]);
    case ViewKind::kUnfold:
      return t.unfold(a[0], a[1], a[2]);
    case ViewKind::kDiagonal:
      return t.diagonal(a[0], a[1], a[2]);
    case ViewKind::kExpand:
      return t.expand(a);
    case ViewKind::kViewAsReal:
      return at::view_as_real(t);
  }
  return t;
}

// Each view op's geometry equals what ATen's view op produces, chained over
// generated (non-contiguous, offset, expanded) starting layouts.
TEST(ViewOpsTest, AgreesWithATenViewOps) {
  Rng rng(5);
  int compared = 0;
  for (int i = 0; i < 4000; ++i) {
    StridedLayout layout =
        GenerateLayout(GenerateSizes(rng, 4, 4), DType::kFloat32, {}, rng)
            .layout;
    at::Tensor t =
        at::empty({ComputeStorageExtent(layout) + 1})
            .as_strided(layout.sizes, layout.strides, layout.storage_offset);
    for (int k = 0; k < 3; ++k) {
      const std::optional<ViewStep> step = RandomStep(layout, rng);
      if (!step) break;
      SCOPED_TRACE(LayoutToString(layout) + " " + ViewStepToString(*step));
      absl::StatusOr<StridedLayout> ours = ApplyViewStep(layout, *step);
      at::Tensor theirs;
      try {
        theirs = ApplyInATen(t, *step);
      } catch (const c10::Error&) {
        EXPECT_FALSE(ours.ok()) << "ATen rejected, dpfuzz accepted";
        break;
      }
      ASSERT_TRUE(ours.ok()) << ours.status();
      ASSERT_EQ(*ours, LayoutOf(theirs));
      layout = *ours;
      t = theirs;
      ++compared;
    }
  }
  EXPECT_GE(compared, 5000);
}

TEST(ViewOpsTest, ViewAsRealAgreesWithATen) {
  at::Tensor c =
      at::empty({40}, at::kComplexFloat).as_strided({3, 2}, {1, 6}, 5);
  EXPECT_EQ(ViewAsReal(LayoutOf(c)), LayoutOf(at::view_as_real(c)));
}

}  // namespace
}  // namespace dpfuzz
