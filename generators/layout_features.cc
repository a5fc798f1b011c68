#include "generators/layout_features.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_join.h"
#include "generators/geometry.h"

namespace dpfuzz {
namespace {

constexpr const char* kNames[kNumLayoutFeatures] = {
    "contiguous",  "permuted", "channels_last",   "channels_last_3d",
    "ambiguous",   "gapped",   "offset",          "zero_stride",
    "overlapping", "empty",    "odd_unit_stride", "scalar"};

// True when the dims of size > 1 and non-zero stride are not in decreasing
// stride order (equal strides keep index order, as a row-major view has).
bool OutOfRowMajorOrder(const StridedLayout& layout) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < layout.dim(); ++d) {
    if (layout.sizes[d] > 1 && layout.strides[d] != 0) dims.push_back(d);
  }
  for (size_t i = 1; i < dims.size(); ++i) {
    if (layout.strides[dims[i - 1]] < layout.strides[dims[i]]) return true;
  }
  return false;
}

}  // namespace

uint32_t ComputeLayoutFeatures(const StridedLayout& layout) {
  const Dims& sizes = layout.sizes;
  const Dims& strides = layout.strides;
  uint32_t features = 0;
  const bool contiguous = ComputeIsContiguous(sizes, strides);
  const bool cl2d =
      ComputeIsContiguous(sizes, strides, MemoryFormat::kChannelsLast);
  const bool cl3d =
      ComputeIsContiguous(sizes, strides, MemoryFormat::kChannelsLast3d);
  if (contiguous) features |= kFeatureContiguous;
  if (static_cast<int>(contiguous) + cl2d + cl3d >= 2) {
    features |= kFeatureAmbiguous;
  }
  const MemoryFormat suggested = ComputeSuggestMemoryFormat(sizes, strides);
  if (suggested == MemoryFormat::kChannelsLast)
    features |= kFeatureChannelsLast;
  if (suggested == MemoryFormat::kChannelsLast3d) {
    features |= kFeatureChannelsLast3d;
  }
  if (suggested == MemoryFormat::kContiguous && OutOfRowMajorOrder(layout)) {
    features |= kFeaturePermuted;
  }
  // Overlap and gaps are judged with expanded dims folded to size 1, so
  // that an expanded view of a gapped or overlapping layout is both.
  Dims folded = sizes;
  const Dims contiguous_strides = ComputeContiguousStrides(sizes);
  for (int64_t d = 0; d < layout.dim(); ++d) {
    if (sizes[d] > 1 && strides[d] == 0) {
      features |= kFeatureZeroStride;
      folded[d] = 1;
    }
    if (sizes[d] <= 1 && strides[d] != contiguous_strides[d]) {
      features |= kFeatureOddUnitStride;
    }
    if (sizes[d] == 0) features |= kFeatureEmpty;
  }
  if (ComputeExactOverlap(folded, strides) != MemOverlap::kNo) {
    features |= kFeatureOverlapping;
  } else if (!ComputeIsNonOverlappingAndDense(folded, strides)) {
    features |= kFeatureGapped;
  }
  if (layout.storage_offset > 0) features |= kFeatureOffset;
  if (layout.dim() == 0) features |= kFeatureScalar;
  return features;
}

std::string LayoutFeatureName(LayoutFeature feature) {
  for (int i = 0; i < kNumLayoutFeatures; ++i) {
    if (feature == (1u << i)) return kNames[i];
  }
  return "?";
}

std::string LayoutFeaturesToString(uint32_t features) {
  std::vector<const char*> names;
  for (int i = 0; i < kNumLayoutFeatures; ++i) {
    if (features & (1u << i)) names.push_back(kNames[i]);
  }
  return names.empty() ? "none" : absl::StrJoin(names, "+");
}

}  // namespace dpfuzz
