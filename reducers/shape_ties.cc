#include "reducers/shape_ties.h"

#include <algorithm>
#include <map>
#include <optional>
#include <variant>

#include "absl/strings/match.h"
#include "crashes/bugs/confidence.h"
#include "generators/schema_spec.h"

namespace dpfuzz {
namespace {

using TensorName = ShapeTies::TensorName;

// Whether the op of `c` checks the sizes of its inputs (see the header).
bool ChecksItsInputs(const Case& c) {
  return !IsPrivateOp(OverloadName{c.op, c.overload}) &&
         !absl::StrContains(c.op, "backward");
}

// The sizes of every strided tensor of `c`, by name.
std::map<TensorName, Dims> SizesOf(const Case& c) {
  std::map<TensorName, Dims> sizes;
  auto add = [&sizes](const std::string& name, size_t element,
                      const TensorSpec& t) {
    if (!t.is_nested()) sizes[{name, element}] = t.layout.sizes;
  };
  for (const Argument& a : c.args) {
    if (const auto* t = std::get_if<TensorSpec>(&a.value)) add(a.name, 0, *t);
    if (const auto* list = std::get_if<std::vector<TensorSpec>>(&a.value)) {
      for (size_t e = 0; e < list->size(); ++e) add(a.name, e, (*list)[e]);
    }
  }
  for (size_t k = 0; k < c.grad_outputs.size(); ++k) {
    add("grad_outputs", k, c.grad_outputs[k]);
  }
  return sizes;
}

}  // namespace

ShapeTies::ShapeTies(const Case& original) {
  const std::vector<std::string> written = WrittenArgumentsOf(original);
  const bool free_inputs = ChecksItsInputs(original);
  auto tied = [&](const std::string& name) {
    // "grad_outputs", "grad_output", "grad": the gradients.
    return !free_inputs || absl::StrContains(name, "grad") ||
           std::find(written.begin(), written.end(), name) != written.end();
  };
  std::map<Dims, std::vector<TensorName>> by_sizes;
  for (const auto& [name, sizes] : SizesOf(original)) {
    if (tied(name.first)) by_sizes[sizes].push_back(name);
  }
  for (auto& [sizes, names] : by_sizes) {
    if (names.size() >= 2) groups_.push_back(std::move(names));
  }
}

bool ShapeTies::HeldBy(const Case& candidate) const {
  const std::map<TensorName, Dims> sizes = SizesOf(candidate);
  for (const std::vector<TensorName>& group : groups_) {
    std::optional<Dims> shared;
    for (const TensorName& name : group) {
      const auto it = sizes.find(name);
      if (it == sizes.end()) continue;
      if (shared.has_value() && *shared != it->second) return false;
      shared = it->second;
    }
  }
  return true;
}

}  // namespace dpfuzz
