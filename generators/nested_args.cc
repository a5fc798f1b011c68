#include "generators/nested_args.h"

#include <cstdint>
#include <variant>

#include "absl/strings/match.h"
#include "generators/nested_layout.h"

namespace dpfuzz {
namespace {

// Every tensor of `args`, Tensor[] members included, in order.
std::vector<TensorSpec*> Tensors(std::vector<Argument>& args) {
  std::vector<TensorSpec*> tensors;
  for (Argument& arg : args) {
    if (auto* t = std::get_if<TensorSpec>(&arg.value)) {
      tensors.push_back(t);
    } else if (auto* list = std::get_if<std::vector<TensorSpec>>(&arg.value)) {
      for (TensorSpec& member : *list) tensors.push_back(&member);
    }
  }
  return tensors;
}

// Component sizes of shape `like` (a 0-dim shape counts as [1]): 1-4
// components, half the time each of its own size in one dim.
std::vector<Dims> ComponentSizesLike(Dims like, Rng& rng) {
  if (like.empty()) like = {1};
  std::vector<Dims> sizes(rng.Uniform(1, 4), like);
  if (rng.OneIn(2)) {
    const int64_t dim = rng.Uniform(0, static_cast<int64_t>(like.size()) - 1);
    for (Dims& s : sizes) {
      s[dim] = rng.OneIn(8) ? 0 : rng.Uniform(1, like[dim] + 2);
    }
  }
  return sizes;
}

void Nest(TensorSpec& t, const std::vector<Dims>& sizes) {
  t.layout = StridedLayout{};
  t.components = ContiguousComponents(sizes);
}

// A dim argument of the components, moved to count the component dim.
void ShiftDims(Argument& arg) {
  if (!absl::StartsWith(arg.name, "dim")) return;
  const auto shift = [](int64_t& d) { d += d >= 0 ? 1 : 0; };
  if (auto* d = std::get_if<int64_t>(&arg.value)) shift(*d);
  if (auto* dims = std::get_if<Dims>(&arg.value)) {
    for (int64_t& d : *dims) shift(d);
  }
}

}  // namespace

bool NestArguments(std::vector<Argument>& args, Rng& rng) {
  const std::vector<TensorSpec*> tensors = Tensors(args);
  if (tensors.empty()) return false;
  const Dims shape = tensors.front()->layout.sizes;
  const std::vector<Dims> sizes = ComponentSizesLike(shape, rng);
  for (TensorSpec* t : tensors) {
    if (t == tensors.front() || t->layout.sizes == shape) Nest(*t, sizes);
  }
  for (Argument& arg : args) ShiftDims(arg);
  return true;
}

}  // namespace dpfuzz
