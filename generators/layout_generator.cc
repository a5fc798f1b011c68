#include "generators/layout_generator.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "generators/geometry.h"

namespace dpfuzz {
namespace {

// [0, 1, ..., n - 1].
Dims IdentityOrder(int64_t n) {
  Dims order(n);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// A random permutation of [0, n).
Dims RandomPermutation(int64_t n, Rng& rng) {
  Dims order = IdentityOrder(n);
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(order[i], order[rng.Uniform(0, i)]);
  return order;
}

// Dims of `sizes` larger than one.
std::vector<int64_t> DimsLargerThanOne(const Dims& sizes) {
  std::vector<int64_t> dims;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] > 1) dims.push_back(static_cast<int64_t>(d));
  }
  return dims;
}

// The direct strategy: see the header.
GeneratedLayout GenerateDirect(const Dims& sizes, const LayoutOptions& options,
                               Rng& rng) {
  const int64_t rank = static_cast<int64_t>(sizes.size());
  std::string description;
  // 1. The physical order of the dense storage.
  enum { kRowMajor, kPermuted, kChannelsLast } order_kind = kRowMajor;
  const int64_t pick = rng.Uniform(0, 9);
  if ((rank == 4 || rank == 5) && pick < 4) {
    order_kind = kChannelsLast;
  } else if (rank >= 2 && pick < 7) {
    order_kind = kPermuted;
  }
  // 2. Steps and padding per dim: the storage dim is larger than the view.
  Dims step(rank, 1);
  Dims pad(rank, 0);
  if (rng.OneIn(3)) {
    for (int64_t d = 0; d < rank; ++d) {
      if (rng.OneIn(2)) step[d] = rng.Uniform(2, 3);
      if (rng.OneIn(3)) pad[d] = rng.Uniform(1, 2);
    }
  }
  Dims physical(rank);
  for (int64_t d = 0; d < rank; ++d) physical[d] = sizes[d] * step[d] + pad[d];
  Dims physical_strides;
  if (order_kind == kChannelsLast) {
    physical_strides = ComputeStridesFor(
        rank == 4 ? MemoryFormat::kChannelsLast : MemoryFormat::kChannelsLast3d,
        physical);
    absl::StrAppend(&description,
                    rank == 4 ? "channels_last" : "channels_last_3d");
  } else {
    const Dims order = order_kind == kPermuted ? RandomPermutation(rank, rng)
                                               : IdentityOrder(rank);
    // Dense strides with order[0] outermost and order[rank-1] innermost.
    physical_strides.assign(rank, 0);
    int64_t running = 1;
    for (int64_t i = rank - 1; i >= 0; --i) {
      physical_strides[order[i]] = running;
      running *= std::max<int64_t>(physical[order[i]], 1);
    }
    absl::StrAppend(&description, "dense order ", DimsToString(order));
  }
  StridedLayout layout{sizes, Dims(rank), 0};
  for (int64_t d = 0; d < rank; ++d) {
    layout.strides[d] = physical_strides[d] * step[d];
    if (pad[d] > 0) {
      layout.storage_offset += rng.Uniform(0, pad[d]) * physical_strides[d];
    }
  }
  if (physical != sizes) {
    absl::StrAppend(&description, ", storage ", DimsToString(physical),
                    " sliced with steps ", DimsToString(step));
  }
  // 3. An extra storage offset.
  if (rng.OneIn(3)) {
    const int64_t extra =
        rng.Uniform(1, std::max<int64_t>(options.max_offset, 1));
    layout.storage_offset += extra;
    absl::StrAppend(&description, ", offset +", extra);
  }
  // 4. Aliasing: one dim stepping inside another, and expanded dims.
  const std::vector<int64_t> big = DimsLargerThanOne(sizes);
  if (options.allow_overlap && big.size() >= 2 && rng.OneIn(6)) {
    // e: the innermost big dim, so that d's new stride stays small.
    const int64_t e =
        *std::min_element(big.begin(), big.end(), [&](int64_t a, int64_t b) {
          return layout.strides[a] < layout.strides[b];
        });
    int64_t d = rng.Pick(big);
    while (d == e) d = rng.Pick(big);
    // Element (d=1, e=0) coincides with (d=0, e=k): a guaranteed overlap.
    layout.strides[d] = layout.strides[e] * rng.Uniform(1, sizes[e] - 1);
    absl::StrAppend(&description, ", dim ", d, " overlapping dim ", e);
  }
  if (options.allow_overlap && !big.empty() && rng.OneIn(6)) {
    for (int64_t d : big) {
      if (rng.OneIn(2)) layout.strides[d] = 0;
    }
    absl::StrAppend(&description, ", expanded");
  }
  // 5. Strides of size-0 and size-1 dims are free in c10; kernels may not
  //    think so.
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] <= 1 && rng.OneIn(2)) {
      layout.strides[d] = rng.Uniform(0, 64);
      absl::StrAppend(&description, ", dim ", d, " stride ", layout.strides[d]);
    }
  }
  return GeneratedLayout{layout, {}, description};
}

// One planned step of a view chain: the op, and the sizes before it.
struct PlannedStep {
  ViewStep step;
  Dims before;
};

// Plans one view op, backwards: returns false when no op fits `after`.
bool PlanOneStep(const Dims& after, bool& complex_base, bool real_dtype,
                 const LayoutOptions& options, Rng& rng, PlannedStep& out) {
  const int64_t rank = static_cast<int64_t>(after.size());
  Dims before = after;
  for (int attempt = 0; attempt < 8; ++attempt) {
    before = after;
    switch (static_cast<ViewKind>(rng.Uniform(0, kNumViewKinds - 1))) {
      case ViewKind::kTranspose: {
        if (rank < 2) break;
        const int64_t a = rng.Uniform(0, rank - 1);
        int64_t b = rng.Uniform(0, rank - 1);
        if (a == b) b = (a + 1) % rank;
        std::swap(before[a], before[b]);
        out = {{ViewKind::kTranspose, {a, b}}, before};
        return true;
      }
      case ViewKind::kPermute: {
        if (rank < 2) break;
        const Dims order = RandomPermutation(rank, rng);
        for (int64_t i = 0; i < rank; ++i) before[order[i]] = after[i];
        out = {{ViewKind::kPermute, order}, before};
        return true;
      }
      case ViewKind::kNarrow: {
        if (rank < 1) break;
        const int64_t d = rng.Uniform(0, rank - 1);
        const int64_t start = rng.Uniform(0, 2);
        before[d] = after[d] + start + rng.Uniform(0, 2);
        out = {{ViewKind::kNarrow, {d, start, after[d]}}, before};
        return true;
      }
      case ViewKind::kSlice: {
        if (rank < 1) break;
        const int64_t d = rng.Uniform(0, rank - 1);
        const int64_t step = rng.Uniform(2, 3);
        const int64_t start = rng.Uniform(0, 1);
        const int64_t end =
            after[d] == 0 ? start : start + (after[d] - 1) * step + 1;
        before[d] = end + rng.Uniform(0, 1);
        out = {{ViewKind::kSlice, {d, start, end, step}}, before};
        return true;
      }
      case ViewKind::kSelect: {
        if (rank >= 6) break;
        const int64_t d = rng.Uniform(0, rank);
        const int64_t size = rng.Uniform(1, 3);
        before.insert(before.begin() + d, size);
        out = {{ViewKind::kSelect, {d, rng.Uniform(0, size - 1)}}, before};
        return true;
      }
      case ViewKind::kUnfold: {
        if (rank < 2 || after[rank - 1] < 1) break;
        const int64_t window = after[rank - 1];
        const int64_t d = rng.Uniform(0, rank - 2);
        if (after[d] < 1) break;
        const int64_t step = options.allow_overlap ? rng.Uniform(1, 3)
                                                   : window + rng.Uniform(0, 1);
        before.pop_back();
        before[d] = (after[d] - 1) * step + window + rng.Uniform(0, step - 1);
        out = {{ViewKind::kUnfold, {d, window, step}}, before};
        return true;
      }
      case ViewKind::kDiagonal: {
        if (rank < 1 || rank >= 6) break;
        const int64_t diag = after[rank - 1];
        const int64_t offset = diag == 0 ? 0 : rng.Uniform(-2, 2);
        before.pop_back();
        // Sizes of the two diagonal dims: min(size1, size2 - offset) = diag
        // for offset >= 0, min(size1 + offset, size2) = diag otherwise.
        const int64_t size1 = offset >= 0 ? diag : diag - offset;
        const int64_t size2 = offset >= 0 ? diag + offset : diag;
        int64_t p = rng.Uniform(0, rank - 1);
        int64_t q = rng.Uniform(0, rank);
        if (q <= p) std::swap(p, q), ++q;  // Positions p < q in `before`.
        const bool swap_roles = rng.OneIn(2);
        before.insert(before.begin() + p, swap_roles ? size2 : size1);
        before.insert(before.begin() + q, swap_roles ? size1 : size2);
        const Dims args = swap_roles ? Dims{offset, q, p} : Dims{offset, p, q};
        out = {{ViewKind::kDiagonal, args}, before};
        return true;
      }
      case ViewKind::kExpand: {
        const std::vector<int64_t> big = DimsLargerThanOne(after);
        if (!options.allow_overlap || big.empty()) break;
        for (int64_t d : big) {
          if (rng.OneIn(2)) before[d] = 1;
        }
        before[rng.Pick(big)] = 1;
        out = {{ViewKind::kExpand, after}, before};
        return true;
      }
      case ViewKind::kViewAsReal: {
        if (complex_base || !real_dtype || rank < 1 || after[rank - 1] != 2) {
          break;
        }
        before.pop_back();
        complex_base = true;
        out = {{ViewKind::kViewAsReal, {}}, before};
        return true;
      }
    }
  }
  return false;
}

GeneratedLayout GenerateViewChain(const Dims& sizes, DType dtype,
                                  const LayoutOptions& options, Rng& rng) {
  const int length = static_cast<int>(rng.Uniform(1, 4));
  const bool real_dtype = dtype == DType::kFloat32 || dtype == DType::kFloat64;
  bool complex_base = false;
  std::vector<PlannedStep> plan;
  Dims current = sizes;
  // Diagonals and windows grow the base quadratically; keep it small.
  const int64_t max_base = std::max<int64_t>(4096, 16 * ComputeNumel(sizes));
  for (int i = 0; i < length; ++i) {
    PlannedStep planned;
    const bool was_complex = complex_base;
    if (!PlanOneStep(current, complex_base, real_dtype, options, rng,
                     planned) ||
        ComputeNumel(planned.before) > max_base) {
      complex_base = was_complex;
      break;
    }
    current = planned.before;
    plan.push_back(planned);
  }
  StridedLayout layout{current, ComputeContiguousStrides(current), 0};
  if (rng.OneIn(3)) layout.storage_offset = rng.Uniform(1, options.max_offset);
  std::string description = absl::StrCat(complex_base ? "complex " : "",
                                         "contiguous ", LayoutToString(layout));
  GeneratedLayout out;
  for (auto it = plan.rbegin(); it != plan.rend(); ++it) {
    absl::StatusOr<StridedLayout> next = ApplyViewStep(layout, it->step);
    DPFUZZ_CHECK(next.ok());
    layout = *next;
    absl::StrAppend(&description, " -> ", ViewStepToString(it->step));
    out.steps.push_back(it->step);
  }
  DPFUZZ_CHECK(layout.sizes == sizes);
  out.layout = layout;
  out.description = description;
  return out;
}

}  // namespace

GeneratedLayout GenerateLayout(const Dims& sizes, DType dtype,
                               const LayoutOptions& options, Rng& rng) {
  if (options.allow_view_chains && rng.OneIn(4)) {
    return GenerateViewChain(sizes, dtype, options, rng);
  }
  return GenerateDirect(sizes, options, rng);
}

Dims GenerateSizes(Rng& rng, int max_rank, int64_t max_size) {
  Dims sizes(rng.Uniform(0, max_rank));
  for (int64_t& size : sizes) {
    const int64_t pick = rng.Uniform(0, 19);
    size = pick == 0  ? 0
           : pick < 5 ? 1
                      : rng.Uniform(2, std::max<int64_t>(max_size, 2));
  }
  return sizes;
}

ValueRecipe GenerateValueRecipe(Rng& rng) {
  ValueRecipe recipe;
  recipe.seed = rng.Next();
  const int64_t pick = rng.Uniform(0, 19);
  recipe.distribution = pick < 8    ? Distribution::kSmallInt
                        : pick < 16 ? Distribution::kDyadic
                        : pick < 18 ? Distribution::kWide
                        : pick < 19 ? Distribution::kZeros
                                    : Distribution::kOnes;
  if (rng.OneIn(4)) {
    recipe.specials = static_cast<uint32_t>(rng.Uniform(1, kAllSpecials));
  }
  return recipe;
}

TensorSpec GenerateTensorSpec(const Dims& sizes, DType dtype,
                              const LayoutOptions& options, Rng& rng) {
  TensorSpec spec;
  spec.dtype = dtype;
  spec.layout = GenerateLayout(sizes, dtype, options, rng).layout;
  spec.values = GenerateValueRecipe(rng);
  return spec;
}

}  // namespace dpfuzz
