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

// `t` with dim `d` of component `k` of size `size`, dense in its dim order,
// the components moved together.
void Resize(TensorSpec& t, size_t k, size_t d, int64_t size) {
  StridedLayout& c = t.components[k];
  c.sizes[d] = size;
  c.strides = ComputeDenseStridesInOrder(c.sizes, c.strides);
  t.components = Repacked(t.components);
}

// Tries dim `d` of component `k` at `size`: in every nested argument whose
// size there is `was`, then in argument `only` alone.
bool TryResize(const Case& current, const Attempt& attempt, size_t only,
               size_t k, size_t d, int64_t was, int64_t size) {
  Case together = current, alone = current;
  int shared = 0;
  std::vector<TensorSpec*> all = AllTensorSpecsOf(together);
  for (TensorSpec* t : all) {
    if (k < t->components.size() && d < t->components[k].sizes.size() &&
        t->components[k].sizes[d] == was) {
      Resize(*t, k, d, size);
      ++shared;
    }
  }
  if (shared > 1 && attempt(together)) return true;
  Resize(*AllTensorSpecsOf(alone)[only], k, d, size);
  return attempt(alone);
}

}  // namespace

bool ShrinkComponents(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = 0; i < AllTensorSpecsOf(current).size(); ++i) {
    for (size_t k = 0; k < AllTensorSpecsOf(current)[i]->components.size();
         ++k) {
      for (size_t d = 0;
           d < AllTensorSpecsOf(current)[i]->components[k].sizes.size(); ++d) {
        // Down to 1 at once, else halved while that works.
        for (bool shrunk = true; shrunk;) {
          const int64_t was =
              AllTensorSpecsOf(current)[i]->components[k].sizes[d];
          shrunk = false;
          for (int64_t size : {int64_t{1}, was / 2, was - 1}) {
            if (size < 1 || size >= was) continue;
            if (TryResize(current, attempt, i, k, d, was, size)) {
              kept = shrunk = true;
              break;
            }
          }
        }
      }
    }
  }
  return kept;
}

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
  // Then the components moved together, from storage element 0.
  Case packed = current;
  for (TensorSpec* t : AllTensorSpecsOf(packed)) {
    if (t->is_nested()) t->components = Repacked(t->components);
  }
  if (packed != current && attempt(packed)) kept = true;
  return kept;
}

}  // namespace dpfuzz
