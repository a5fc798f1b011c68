// View chains: applied by LibTorch itself, each chain gives its layout
// (sizes, strides of dims of size > 1, storage offset, and the very storage
// elements); chains are refused only for layouts that no chain gives.

#include "generators/view_chain.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "generators/layout_generator.h"

namespace dpfuzz {
namespace {

// The chain run by ATen over a buffer holding 0, 1, 2, ...: each element
// of the result is its own storage index.
at::Tensor Build(const ViewChain& chain) {
  at::Tensor x = at::arange(chain.buffer_size, at::kLong);
  if (chain.lead > 0 || chain.buffer_size != ComputeNumel(chain.base_sizes)) {
    x = x.narrow(0, chain.lead, ComputeNumel(chain.base_sizes));
  }
  x = x.view(chain.base_sizes);
  if (chain.base_format == MemoryFormat::kChannelsLast) {
    x = x.contiguous(at::MemoryFormat::ChannelsLast);
  } else if (chain.base_format == MemoryFormat::kChannelsLast3d) {
    x = x.contiguous(at::MemoryFormat::ChannelsLast3d);
  }
  for (const ViewStep& s : chain.steps) {
    const Dims& a = s.args;
    switch (s.kind) {
      case ViewKind::kSlice:
        x = x.slice(a[0], a[1], a[2], a[3]);
        break;
      case ViewKind::kTranspose:
        x = x.transpose(a[0], a[1]);
        break;
      case ViewKind::kPermute:
        x = x.permute(a);
        break;
      case ViewKind::kUnfold:
        x = x.unfold(a[0], a[1], a[2]);
        break;
      case ViewKind::kExpand:
        x = x.expand(a);
        break;
      default:
        ADD_FAILURE() << "unexpected step " << ViewStepToString(s);
    }
  }
  return x;
}

// Empty when ATen's result is the layout (and, if `exact`, all strides).
std::string Mismatch(const ViewChain& chain, const StridedLayout& want) {
  const at::Tensor x = Build(chain);
  const StridedLayout got{x.sizes().vec(), x.strides().vec(),
                          x.storage_offset()};
  std::string why;
  if (got.sizes != want.sizes || got.storage_offset != want.storage_offset) {
    why = "sizes or offset";
  }
  for (int64_t d = 0; why.empty() && d < want.dim(); ++d) {
    if (got.strides[d] != want.strides[d] &&
        (want.sizes[d] > 1 || chain.exact)) {
      why = "stride of dim " + std::to_string(d);
    }
  }
  // With a channels_last base the buffer is copied: indices are its own.
  if (why.empty() && chain.base_format == MemoryFormat::kContiguous &&
      x.numel() > 0) {
    const at::Tensor indices = x.contiguous().view(-1);
    const std::vector<int64_t> expected = ComputeStorageIndices(want);
    for (int64_t i = 0; i < indices.numel(); ++i) {
      if (indices[i].item<int64_t>() != expected[i]) {
        why = "element " + std::to_string(i) + " reads another storage index";
        break;
      }
    }
  }
  if (why.empty() && x.numel() > 0 &&
      chain.buffer_size < ComputeStorageExtent(want)) {
    why = "buffer smaller than the layout's extent";
  }
  if (!why.empty()) {
    why += ": got " + LayoutToString(got) + " from base " +
           DimsToString(chain.base_sizes) + " lead " +
           std::to_string(chain.lead) + ViewStepsPython(chain, 0, SIZE_MAX);
  }
  return why;
}

// The dims that an expand cannot make overlap through their strides.
bool OverlapsWithoutZeroStrides(const StridedLayout& l) {
  StridedLayout rest;
  for (int64_t d = 0; d < l.dim(); ++d) {
    if (l.sizes[d] > 1 && l.strides[d] > 0) {
      rest.sizes.push_back(l.sizes[d]);
      rest.strides.push_back(l.strides[d]);
    }
  }
  return ComputeExactOverlap(rest.sizes, rest.strides) == MemOverlap::kYes;
}

int Count(const std::string& text, const std::string& word) {
  int n = 0;
  for (size_t at = text.find(word); at != std::string::npos;
       at = text.find(word, at + 1)) {
    ++n;
  }
  return n;
}

struct Tally {
  int chains = 0;
  int exact = 0;
  int refused = 0;
  std::map<ViewKind, int> kinds;
};

Tally CheckGenerated(const LayoutOptions& layout_options,
                     const ViewChainOptions& options, uint64_t seed,
                     int count) {
  Tally tally;
  Rng rng(seed);
  for (int i = 0; i < count; ++i) {
    const GeneratedLayout g = GenerateLayout(
        GenerateSizes(rng), DType::kFloat32, layout_options, rng);
    const std::optional<ViewChain> chain = ComputeViewChain(g.layout, options);
    if (!chain) {
      ++tally.refused;
      // Only where chains of these ops cannot: elements sharing storage
      // in a way no unfold gives, the interleaved strides of diagonals, and
      // windows of windows (unfold of an unfold's window dim).
      EXPECT_TRUE(OverlapsWithoutZeroStrides(g.layout) ||
                  Count(g.description, "diagonal") > 0 ||
                  Count(g.description, "unfold") > 1)
          << "refused " << g.layout << " (" << g.description << ")";
      continue;
    }
    ++tally.chains;
    tally.exact += chain->exact;
    for (const ViewStep& s : chain->steps) ++tally.kinds[s.kind];
    EXPECT_EQ(Mismatch(*chain, g.layout), "")
        << g.layout << " (" << g.description << ")";
    if (options.tail_margin > 0 && g.layout.sizes.size() > 0) {
      EXPECT_GE(chain->buffer_size,
                ComputeStorageExtent(g.layout) + options.tail_margin)
          << g.layout;
    }
    EXPECT_LE(chain->copy_at, chain->steps.size());
    for (size_t k = 0; k < chain->copy_at; ++k) {
      EXPECT_TRUE(chain->steps[k].kind == ViewKind::kSlice) << g.layout;
    }
  }
  return tally;
}

TEST(ViewChainTest, ExamplesSpellTheWayPeopleWriteThem) {
  struct Example {
    StridedLayout layout;
    Dims base;
    int64_t lead;
    std::string python;
  };
  const Example examples[] = {
      {{{3, 4}, {1, 3}, 0}, {4, 3}, 0, ".t()"},
      {{{2, 3}, {8, 2}, 1}, {2, 8}, 0, "[:, 1:6:2]"},
      {{{2, 3}, {12, 1}, 14}, {3, 12}, 0, "[1:, 2:5]"},
      {{{2, 2}, {1, 1}, 0}, {3}, 0, ".unfold(0, 2, 1)"},
      {{{4, 3}, {0, 1}, 0}, {1, 3}, 0, ".expand(4, 3)"},
      {{{2, 2}, {3, 1}, 2}, {2, 3}, 2, "[:, :2]"},
      {{{2, 3, 4}, {1, 8, 2}, 0}, {3, 4, 2}, 0, ".permute(2, 0, 1)"},
      {{{2, 3, 4, 5}, {60, 1, 15, 3}, 0}, {2, 3, 4, 5}, 0, ""},
      {{{2, 3, 2, 2}, {24, 1, 12, 6}, 0}, {2, 6, 2, 2}, 0, "[:, :3]"},
      {{{1, 1}, {2, 12}, 5}, {1, 12}, 0, "[:, 5:6:2].t()"},
      {{{3}, {2}, 0}, {5}, 0, "[::2]"},
      {{{}, {}, 3}, {}, 3, ""},
  };
  for (const Example& e : examples) {
    const std::optional<ViewChain> chain = ComputeViewChain(e.layout);
    ASSERT_TRUE(chain.has_value()) << e.layout;
    EXPECT_EQ(chain->base_sizes, e.base) << e.layout;
    EXPECT_EQ(chain->lead, e.lead) << e.layout;
    EXPECT_EQ(ViewStepsPython(*chain, 0, SIZE_MAX), e.python) << e.layout;
    EXPECT_EQ(Mismatch(*chain, e.layout), "") << e.layout;
    EXPECT_TRUE(chain->exact) << e.layout;
  }
  const std::optional<ViewChain> cl =
      ComputeViewChain({{2, 3, 4, 5}, {60, 1, 15, 3}, 0});
  EXPECT_EQ(cl->base_format, MemoryFormat::kChannelsLast);
  // Windows are unfolded after the values are written.
  const std::optional<ViewChain> windows =
      ComputeViewChain({{2, 2}, {1, 1}, 0});
  EXPECT_EQ(windows->copy_at, 0u);
}

TEST(ViewChainTest, RefusesOnlyWhatNoChainGives) {
  // Elements shared along strides that are no multiple of each other (no
  // unfold gives them); strides that nest in no dense shape (i * 2 + j * 3
  // never repeats, but no base dim holds three elements two apart with
  // another dim three apart).
  for (const StridedLayout& l :
       {StridedLayout{{4, 3}, {2, 3}, 0}, StridedLayout{{3, 3}, {2, 3}, 0}}) {
    EXPECT_FALSE(ComputeViewChain(l).has_value()) << l;
  }
  // A stride-0 size-1 dim: a chain, but not an exact one.
  const std::optional<ViewChain> chain = ComputeViewChain({{1, 1}, {0, 2}, 2});
  ASSERT_TRUE(chain.has_value());
  EXPECT_FALSE(chain->exact);
  EXPECT_EQ(Mismatch(*chain, {{1, 1}, {0, 2}, 2}), "");
}

// The strides of size-1 dims are left to the view ops: one answer
// whatever they were, the other dims' kept, and a chain that gives it
// exactly.
TEST(ViewChainTest, NaturalStridesAreOneExactAnswer) {
  const std::optional<Dims> natural = NaturalStrides({{1, 2}, {0, 2}, 0});
  ASSERT_TRUE(natural.has_value());
  EXPECT_EQ(*natural, (Dims{3, 2}));  // Base [1, 3], [:, ::2].
  for (const int64_t odd : {1, 3, 100}) {
    EXPECT_EQ(NaturalStrides({{1, 2}, {odd, 2}, 0}), natural) << odd;
  }
  const StridedLayout l{{1, 2, 1}, {4, 2, 0}, 1};
  ASSERT_TRUE(NaturalStrides(l).has_value());
  const StridedLayout made{l.sizes, *NaturalStrides(l), l.storage_offset};
  EXPECT_EQ(made.strides[1], 2);
  EXPECT_TRUE(ComputeViewChain(made)->exact) << made;
  EXPECT_FALSE(NaturalStrides({{4, 3}, {2, 3}, 0}).has_value());
  // A contiguous layout's own strides are natural.
  for (const StridedLayout& dense : {StridedLayout{{1, 3}, {3, 1}, 0},
                                     StridedLayout{{2, 1, 3}, {3, 3, 1}, 0}}) {
    EXPECT_EQ(NaturalStrides(dense), dense.strides) << dense;
  }
}

// Every layout the generator makes without aliasing gets a chain, but for
// a few made through diagonals or windows of windows.
TEST(ViewChainTest, EveryLayoutWithoutAliasingGetsAChain) {
  LayoutOptions no_alias;
  no_alias.allow_overlap = false;
  Tally tally = CheckGenerated(no_alias, {}, 11, 3000);
  EXPECT_LT(tally.refused, tally.chains / 100);
  // Inexact: stride 0 (or a stride that does not nest) on size-0/1 dims.
  EXPECT_GT(tally.exact, tally.chains * 3 / 4);
  for (ViewKind kind :
       {ViewKind::kSlice, ViewKind::kTranspose, ViewKind::kPermute}) {
    EXPECT_GT(tally.kinds[kind], 0) << ViewStepToString({kind, {}});
  }
}

// With expanded and overlapping layouts too, and a margin after the view.
TEST(ViewChainTest, AliasingLayoutsUseExpandAndUnfold) {
  ViewChainOptions options;
  options.tail_margin = 4;
  Tally tally = CheckGenerated({}, options, 12, 3000);
  EXPECT_GT(tally.kinds[ViewKind::kExpand], 0);
  EXPECT_GT(tally.kinds[ViewKind::kUnfold], 0);
  EXPECT_LT(tally.refused, tally.chains / 20);
  ViewChainOptions flat = options;
  flat.flat_buffer = true;
  CheckGenerated({}, flat, 13, 1000);
}

}  // namespace
}  // namespace dpfuzz
