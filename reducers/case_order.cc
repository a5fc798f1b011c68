#include "reducers/case_order.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <variant>

#include "generators/case_json.h"
#include "generators/layout_features.h"
#include "generators/view_chain.h"

namespace dpfuzz {
namespace {

int DistributionRank(Distribution d) {
  switch (d) {
    case Distribution::kZeros:
      return 0;
    case Distribution::kOnes:
      return 1;
    case Distribution::kArange:
      return 2;
    case Distribution::kSmallInt:
      return 3;
    default:
      return 4;
  }
}

}  // namespace

int DTypeRank(DType dtype) {
  constexpr DType kOrder[] = {
      DType::kFloat32, DType::kFloat64, DType::kInt64,     DType::kInt32,
      DType::kBool,    DType::kFloat16, DType::kBFloat16,  DType::kInt16,
      DType::kInt8,    DType::kUInt8,   DType::kComplex64, DType::kComplex128};
  return static_cast<int>(
      std::find(std::begin(kOrder), std::end(kOrder), dtype) -
      std::begin(kOrder));
}

int LayoutRank(const StridedLayout& layout) {
  const uint32_t f = ComputeLayoutFeatures(layout);
  if (f & kFeatureOverlapping) return 5;
  if (f & kFeatureGapped) return 4;
  if (f & kFeatureZeroStride) return 3;
  if (f & (kFeatureChannelsLast | kFeatureChannelsLast3d)) return 2;
  if (f & (kFeaturePermuted | kFeatureOddUnitStride)) return 1;
  return 0;
}

int UnnaturalRank(const StridedLayout& layout) {
  const uint32_t f = ComputeLayoutFeatures(layout);
  if (f & kFeatureOverlapping) return 2;
  return (f & kFeatureZeroStride) ? 1 : 0;
}

CaseCost CostOf(const Case& c) {
  const std::vector<const TensorSpec*> tensors = AllTensorSpecsOf(c);
  int64_t args = static_cast<int64_t>(c.aliases.size());
  int64_t scalar_magnitude = 0;
  for (const Argument& a : c.args) {
    if (const auto* list = std::get_if<std::vector<TensorSpec>>(&a.value)) {
      args += static_cast<int64_t>(list->size()) + 1;
    } else {
      ++args;
    }
    if (const auto* i = std::get_if<int64_t>(&a.value)) {
      scalar_magnitude += std::llabs(*i);
    } else if (const auto* dims = std::get_if<Dims>(&a.value)) {
      for (int64_t d : *dims) scalar_magnitude += std::llabs(d);
    }
  }
  args += static_cast<int64_t>(c.grad_outputs.size());
  int64_t unnatural = 0, numel = 0, storage = 0, rank = 0, layout = 0,
          offset = 0, dtype = 0, values = 0, unnatural_unit = 0, strides = 0;
  std::vector<int64_t> sizes;
  for (const TensorSpec* t : tensors) {
    numel += t->numel();
    storage += t->storage_extent();
    rank += t->dim();
    // A nested tensor's layout is its components' (Note [Nested features]
    // in reducers/blame.cc).
    const std::vector<StridedLayout> layouts =
        t->is_nested() ? t->components : std::vector<StridedLayout>{t->layout};
    for (const StridedLayout& l : layouts) {
      unnatural += UnnaturalRank(l);
      sizes.insert(sizes.end(), l.sizes.begin(), l.sizes.end());
      layout += LayoutRank(l);
      offset += l.storage_offset;
      for (int64_t stride : l.strides) strides += std::abs(stride);
      if (const std::optional<Dims> natural = NaturalStrides(l);
          natural.has_value() && *natural != l.strides) {
        ++unnatural_unit;
      }
    }
    dtype += DTypeRank(t->dtype);
    values += 4 * DistributionRank(t->values.distribution) +
              __builtin_popcount(t->values.specials) +
              (t->values.seed != 0 ? 1 : 0);
  }
  CaseCost cost;
  cost.key = {args, unnatural, numel, storage, rank};
  cost.key.push_back(static_cast<int64_t>(sizes.size()));
  cost.key.insert(cost.key.end(), sizes.begin(), sizes.end());
  for (int64_t v : {layout, offset, dtype, values, scalar_magnitude,
                    unnatural_unit, strides}) {
    cost.key.push_back(v);
  }
  cost.text = CaseToJson(c);
  return cost;
}

bool SimplerThan(const Case& a, const Case& b) { return CostOf(a) < CostOf(b); }

}  // namespace dpfuzz
