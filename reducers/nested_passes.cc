#include "reducers/nested_passes.h"

#include <cstddef>
#include <vector>

#include "common/torch_compat.h"
#include "generators/geometry.h"
#include "generators/nested_layout.h"

namespace dpfuzz {
namespace {

// The most components any nested argument of `c` has.
size_t MostComponents(const Case& c) {
  size_t most = 0;
  for (const TensorSpec* t : AllTensorSpecsOf(c)) {
    most = std::max(most, t->components.size());
  }
  return most;
}

}  // namespace

bool DropComponents(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t k = 0; k < MostComponents(current);) {
    Case candidate = current;
    bool changed = false;
    for (TensorSpec* t : AllTensorSpecsOf(candidate)) {
      if (t->components.size() <= 1 || k >= t->components.size()) continue;
      t->components.erase(t->components.begin() + static_cast<long>(k));
      // See Note [Nested buffers by version].
      if (!compat::kNestedBufferMayHaveGaps) {
        t->components = Repacked(t->components);
      }
      changed = true;
    }
    if (changed && attempt(candidate)) {
      kept = true;  // Component k is now the next one: try it again.
      continue;
    }
    ++k;
  }
  return kept;
}

bool ContiguousComponentsPass(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t k = 0; k < MostComponents(current); ++k) {
    Case candidate = current;
    for (TensorSpec* t : AllTensorSpecsOf(candidate)) {
      if (k >= t->components.size()) continue;
      StridedLayout& c = t->components[k];
      c.strides = ComputeContiguousStrides(c.sizes);
    }
    if (candidate != current && attempt(candidate)) kept = true;
  }
  return kept;
}

}  // namespace dpfuzz
