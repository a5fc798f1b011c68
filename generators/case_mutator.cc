#include "generators/case_mutator.h"

#include <algorithm>
#include <string>
#include <vector>

#include "common/torch_compat.h"
#include "generators/geometry.h"
#include "generators/layout_features.h"
#include "generators/layout_generator.h"
#include "generators/nested_layout.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

bool Aliased(const Case& c, const std::string& name) {
  return std::any_of(c.aliases.begin(), c.aliases.end(), [&](const Alias& a) {
    return a.arg == name || a.base == name;
  });
}

// The tensors a mutation may change, in a fixed order (args, then
// grad_outputs).
std::vector<TensorSpec*> Mutable(Case& c) {
  const OpSpec* spec = FindOpFor(c);
  std::vector<TensorSpec*> tensors;
  for (Argument& a : c.args) {
    if (spec != nullptr &&
        std::find(spec->fixed_layout.begin(), spec->fixed_layout.end(),
                  a.name) != spec->fixed_layout.end()) {
      continue;
    }
    if (Aliased(c, a.name)) continue;
    if (auto* t = std::get_if<TensorSpec>(&a.value)) tensors.push_back(t);
    if (auto* list = std::get_if<std::vector<TensorSpec>>(&a.value)) {
      for (TensorSpec& t : *list) tensors.push_back(&t);
    }
  }
  for (TensorSpec& t : c.grad_outputs) tensors.push_back(&t);
  return tensors;
}

void Relayout(TensorSpec& t, Rng& rng) {
  if (t.is_nested()) {  // See Note [Nested buffers by version].
    t.components = GenerateComponents(ComponentSizes(t.components),
                                      compat::kNestedBufferMayHaveGaps, rng);
    return;
  }
  LayoutOptions options;
  options.allow_overlap = false;
  t.layout = GenerateLayout(t.layout.sizes, t.dtype, options, rng).layout;
}

void MakePlain(TensorSpec& t) {
  if (t.is_nested()) {
    t.components = ContiguousComponents(ComponentSizes(t.components));
    return;
  }
  t.layout = {t.layout.sizes, ComputeContiguousStrides(t.layout.sizes), 0};
}

// Whether `from`'s layout may replace `to`'s: the same shape, and no
// overlap (see the header).
bool Fits(const TensorSpec& from, const TensorSpec& to) {
  if (from.is_nested() != to.is_nested()) return false;
  if (from.is_nested()) {
    return ComponentSizes(from.components) == ComponentSizes(to.components);
  }
  return from.layout.sizes == to.layout.sizes &&
         (ComputeLayoutFeatures(from.layout) &
          (kFeatureOverlapping | kFeatureZeroStride)) == 0;
}

}  // namespace

Case MutateCase(const Case& c, Rng& rng) {
  Case mutated = c;
  std::vector<TensorSpec*> tensors = Mutable(mutated);
  if (tensors.empty()) return mutated;
  TensorSpec& t = *rng.Pick(tensors);
  switch (rng.Uniform(0, 5)) {
    case 0:
      MakePlain(t);
      break;
    case 1:
      t.values.seed = rng.Next();
      break;
    default:
      Relayout(t, rng);
      break;
  }
  return mutated;
}

Case CrossOver(const Case& a, const Case& b, Rng& rng) {
  if (a.op != b.op || a.overload != b.overload || a.variant != b.variant) {
    return a;
  }
  Case child = a;
  Case donor = b;
  std::vector<TensorSpec*> mine = Mutable(child);
  std::vector<TensorSpec*> theirs = Mutable(donor);
  if (mine.size() != theirs.size()) return a;
  for (size_t i = 0; i < mine.size(); ++i) {
    if (Fits(*theirs[i], *mine[i]) && rng.OneIn(2)) {
      mine[i]->layout = theirs[i]->layout;
      mine[i]->components = theirs[i]->components;
    }
  }
  return child;
}

}  // namespace dpfuzz
