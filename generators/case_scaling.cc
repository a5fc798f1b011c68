#include "generators/case_scaling.h"

#include <algorithm>
#include <map>
#include <vector>

#include "common/status_macros.h"
#include "generators/geometry.h"

namespace dpfuzz {
namespace {

// Dims of size > 1 that take storage, inner to outer by stride, a later
// dim inner on ties: the order ComputeDenseStridesInOrder gives strides in.
std::vector<size_t> GrowingDimsInnerFirst(const StridedLayout& layout) {
  std::vector<size_t> order;
  for (size_t d = 0; d < layout.sizes.size(); ++d) {
    if (layout.sizes[d] > 1 && layout.strides[d] != 0) order.push_back(d);
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const Dims& s = layout.strides;
    return s[a] != s[b] ? s[a] < s[b] : a > b;
  });
  return order;
}

}  // namespace

StridedLayout ScaledLayout(const StridedLayout& layout, int64_t factor) {
  DPFUZZ_CHECK(factor >= 1);
  StridedLayout scaled = layout;
  for (int64_t& size : scaled.sizes) {
    if (size > 1) size *= factor;
  }
  // What each stride of the layout becomes: the strides of growing dims,
  // and the elements the dims inside each span (where a size-1 dim's
  // stride, which c10 reads for memory formats, usually sits).
  std::map<int64_t, int64_t> becomes = {{1, 1}};
  int64_t growth = 1;         // How much the dims inside the next one grew.
  int64_t extent = 1;         // Elements the dims inside the next one span,
  int64_t scaled_extent = 1;  // before and after.
  for (const size_t d : GrowingDimsInnerFirst(layout)) {
    const int64_t stride = layout.strides[d];
    int64_t& to = scaled.strides[d];
    to = stride * growth;
    // A dim that steps past the dims inside it still does: grown by the
    // same factor, uneven gaps (unfold's windows) could make it overlap.
    if (stride >= extent) to = std::max(to, scaled_extent);
    becomes.emplace(stride, to);
    growth *= factor;
    extent += (layout.sizes[d] - 1) * stride;
    scaled_extent += (scaled.sizes[d] - 1) * to;
    becomes.emplace(extent, scaled_extent);
  }
  // Size-1 dims: a contiguous stride stays contiguous, a stride shared
  // with a growing dim or the span of inner dims follows it, any other
  // grows with the dims inside it.
  const Dims contiguous = ComputeContiguousStrides(layout.sizes);
  const Dims scaled_contiguous = ComputeContiguousStrides(scaled.sizes);
  for (size_t d = 0; d < layout.sizes.size(); ++d) {
    const int64_t stride = layout.strides[d];
    if (layout.sizes[d] > 1 || stride == 0) continue;
    if (stride == contiguous[d]) {
      scaled.strides[d] = scaled_contiguous[d];
    } else if (const auto it = becomes.find(stride); it != becomes.end()) {
      scaled.strides[d] = it->second;
    } else {
      int64_t inner_growth = 1;
      for (const size_t e : GrowingDimsInnerFirst(layout)) {
        if (layout.strides[e] < stride) inner_growth *= factor;
      }
      scaled.strides[d] = stride * inner_growth;
    }
  }
  return scaled;
}

std::optional<Case> ScaledCase(const Case& c, int64_t factor,
                               int64_t max_storage_elements) {
  Case scaled = c;
  bool grows = false;
  for (TensorSpec* t : AllTensorSpecsOf(scaled)) {
    if (t->is_nested()) return std::nullopt;
    const int64_t numel = t->numel();
    t->layout = ScaledLayout(t->layout, factor);
    if (t->storage_extent() > max_storage_elements) return std::nullopt;
    grows |= t->numel() > numel;
  }
  if (!grows) return std::nullopt;
  return scaled;
}

}  // namespace dpfuzz
