#include "generators/nested_layout.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "generators/geometry.h"

namespace dpfuzz {

std::string ComponentsToString(const Components& components) {
  return absl::StrCat(
      "nested{",
      absl::StrJoin(components, ", ",
                    [](std::string* out, const StridedLayout& l) {
                      absl::StrAppend(out, LayoutToString(l));
                    }),
      "}");
}

std::vector<Dims> ComponentSizes(const Components& components) {
  std::vector<Dims> sizes;
  for (const StridedLayout& c : components) sizes.push_back(c.sizes);
  return sizes;
}

Components ContiguousComponents(const std::vector<Dims>& sizes) {
  Components components;
  int64_t offset = 0;
  for (const Dims& s : sizes) {
    components.push_back(StridedLayout{s, ComputeContiguousStrides(s), offset});
    offset += ComputeNumel(s);
  }
  return components;
}

Components WithContiguousStrides(Components components) {
  for (StridedLayout& c : components) {
    c.strides = ComputeContiguousStrides(c.sizes);
  }
  return components;
}

Components Repacked(Components components) {
  std::vector<size_t> order(components.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return components[a].storage_offset < components[b].storage_offset;
  });
  int64_t base = 0;
  for (size_t i : order) {
    StridedLayout& c = components[i];
    c.storage_offset = base;
    base = std::max(base, ComputeStorageExtent(c));
  }
  return components;
}

int64_t ComponentsNumel(const Components& components) {
  int64_t numel = 0;
  for (const StridedLayout& c : components) numel += ComputeNumel(c.sizes);
  return numel;
}

int64_t ComponentsStorageExtent(const Components& components) {
  int64_t extent = 0;
  for (const StridedLayout& c : components) {
    extent = std::max(extent, ComputeStorageExtent(c));
  }
  return extent;
}

std::vector<int64_t> ComponentsStorageIndices(const Components& components) {
  std::vector<int64_t> indices;
  for (const StridedLayout& c : components) {
    const std::vector<int64_t> own = ComputeStorageIndices(c);
    indices.insert(indices.end(), own.begin(), own.end());
  }
  return indices;
}

bool TilesBuffer(const Components& components) {
  const int64_t numel = ComponentsNumel(components);
  std::vector<bool> seen(numel, false);
  for (int64_t index : ComponentsStorageIndices(components)) {
    if (index < 0 || index >= numel || seen[index]) return false;
    seen[index] = true;
  }
  return true;
}

absl::Status ValidateComponents(const Components& components) {
  if (components.empty()) {
    return absl::InvalidArgumentError(
        "\"components\" is empty; a nested tensor needs at least one");
  }
  const int64_t rank = components.front().dim();
  for (size_t i = 0; i < components.size(); ++i) {
    const StridedLayout& c = components[i];
    if (c.dim() != rank || rank < 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "\"components\"[", i, "] ", LayoutToString(c), " has rank ", c.dim(),
          "; every component needs the rank of the first (", rank,
          "), at least 1"));
    }
  }
  return absl::OkStatus();
}

namespace {

// A random permutation of 0..n-1.
std::vector<int64_t> Permutation(int64_t n, Rng& rng) {
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  for (int64_t i = n - 1; i > 0; --i) {
    std::swap(order[i], order[rng.Uniform(0, i)]);
  }
  return order;
}

// One component at offset 0: its dims in a random dense order and, with
// gaps allowed, every dim's stride stretched now and then (a slice with a
// step) and an offset.
StridedLayout ComponentLayout(const Dims& sizes, bool allow_gaps, Rng& rng) {
  // Dims outermost first.
  const std::vector<int64_t> order =
      Permutation(static_cast<int64_t>(sizes.size()), rng);
  Dims strides(sizes.size(), 0);
  int64_t stride = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    strides[*it] = stride;
    const int64_t step = allow_gaps && rng.OneIn(3) ? rng.Uniform(2, 3) : 1;
    strides[*it] *= step;
    stride = strides[*it] * std::max<int64_t>(sizes[*it], 1);
  }
  const int64_t offset = allow_gaps && rng.OneIn(2) ? rng.Uniform(1, 3) : 0;
  return StridedLayout{sizes, strides, offset};
}

}  // namespace

Components GenerateComponents(const std::vector<Dims>& sizes, bool allow_gaps,
                              Rng& rng) {
  Components components(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    components[i] = ComponentLayout(sizes[i], allow_gaps, rng);
  }
  // Regions in a random order: component i's elements need not come
  // before component i+1's.
  int64_t base = allow_gaps ? rng.Uniform(0, 2) : 0;
  for (int64_t i : Permutation(static_cast<int64_t>(sizes.size()), rng)) {
    StridedLayout& c = components[i];
    c.storage_offset += base;
    // An empty component addresses nothing (extent 0): the next starts
    // where it does.
    base = std::max(base, ComputeStorageExtent(c));
    if (allow_gaps && rng.OneIn(2)) base += rng.Uniform(1, 3);
  }
  return components;
}

std::vector<Dims> GenerateComponentSizes(int64_t rank,
                                         const std::vector<int64_t>& regular,
                                         Rng& rng) {
  const int64_t count = rng.Uniform(1, 4);
  Dims shared(rank);
  for (int64_t d = 0; d < rank; ++d) shared[d] = rng.Uniform(1, 4);
  std::vector<Dims> sizes(count, Dims(rank));
  for (int64_t d = 0; d < rank; ++d) {
    const bool is_regular =
        std::find(regular.begin(), regular.end(), d) != regular.end();
    for (Dims& s : sizes) {
      if (is_regular) {
        s[d] = shared[d];
      } else {
        s[d] = rng.OneIn(8) ? rng.Uniform(0, 1) : rng.Uniform(1, 5);
      }
    }
  }
  return sizes;
}

}  // namespace dpfuzz
