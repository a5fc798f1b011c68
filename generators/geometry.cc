#include "generators/geometry.h"

#include <algorithm>
#include <array>
#include <numeric>

#include "common/status_macros.h"

namespace dpfuzz {
namespace {

// c10's compute_channels_last_contiguous_{2d,3d}: dims visited in `order`,
// size-1 dims skipped, each other stride must equal the running product.
template <size_t N>
bool DenseInOrder(const Dims& sizes, const Dims& strides,
                  const std::array<int, N>& order) {
  int64_t expected = 1;
  for (int d : order) {
    if (sizes[d] != 1) {
      if (strides[d] != expected) return false;
      expected *= sizes[d];
    }
  }
  return true;
}

// c10's is_channels_last_strides_{2d_s4,3d_s5}: the stride order follows
// `order` (channels first), with c10's tie-breaking towards NCHW.
template <size_t N>
bool StridesLikeInOrder(const Dims& sizes, const Dims& strides,
                        const std::array<int, N>& order) {
  int64_t min = 0;
  if (strides[1] == 0) return false;
  for (int d : order) {
    if (sizes[d] == 0) return false;
    if (strides[d] < min) return false;
    if (d == 0 && min == strides[1]) return false;
    min = strides[d];
    if (sizes[d] > 1) min *= sizes[d];
  }
  return true;
}

constexpr std::array<int, 4> kChannelsLast2dOrder = {1, 3, 2, 0};
constexpr std::array<int, 5> kChannelsLast3dOrder = {1, 4, 3, 2, 0};

}  // namespace

std::ostream& operator<<(std::ostream& os, MemoryFormat format) {
  switch (format) {
    case MemoryFormat::kContiguous:
      return os << "contiguous";
    case MemoryFormat::kChannelsLast:
      return os << "channels_last";
    case MemoryFormat::kChannelsLast3d:
      return os << "channels_last_3d";
  }
  return os << "?";
}

std::ostream& operator<<(std::ostream& os, MemOverlap overlap) {
  switch (overlap) {
    case MemOverlap::kNo:
      return os << "No";
    case MemOverlap::kYes:
      return os << "Yes";
    case MemOverlap::kTooHard:
      return os << "TooHard";
  }
  return os << "?";
}

int64_t ComputeNumel(const Dims& sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), int64_t{1},
                         std::multiplies<>());
}

Dims ComputeContiguousStrides(const Dims& sizes) {
  Dims strides(sizes.size());
  int64_t running = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    running *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

Dims ComputeDenseStridesInOrder(const Dims& sizes, const Dims& strides) {
  std::vector<size_t> order(sizes.size());
  for (size_t d = 0; d < order.size(); ++d) order[d] = d;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return strides[a] != strides[b] ? strides[a] < strides[b] : a > b;
  });
  Dims dense(sizes.size());
  int64_t next = 1;
  for (size_t d : order) {
    dense[d] = next;
    next *= std::max<int64_t>(sizes[d], 1);
  }
  return dense;
}

Dims ComputeChannelsLastStrides2d(const Dims& sizes) {
  DPFUZZ_CHECK(sizes.size() == 4);
  Dims strides(4);
  strides[1] = 1;
  strides[3] = sizes[1];
  strides[2] = strides[3] * sizes[3];
  strides[0] = strides[2] * sizes[2];
  return strides;
}

Dims ComputeChannelsLastStrides3d(const Dims& sizes) {
  DPFUZZ_CHECK(sizes.size() == 5);
  Dims strides(5);
  strides[1] = 1;
  strides[4] = sizes[1];
  strides[3] = strides[4] * sizes[4];
  strides[2] = strides[3] * sizes[3];
  strides[0] = strides[2] * sizes[2];
  return strides;
}

Dims ComputeStridesFor(MemoryFormat format, const Dims& sizes) {
  switch (format) {
    case MemoryFormat::kContiguous:
      return ComputeContiguousStrides(sizes);
    case MemoryFormat::kChannelsLast:
      return ComputeChannelsLastStrides2d(sizes);
    case MemoryFormat::kChannelsLast3d:
      return ComputeChannelsLastStrides3d(sizes);
  }
  DPFUZZ_CHECK(false);
  return {};
}

int64_t ComputeStorageExtent(absl::Span<const int64_t> sizes,
                             absl::Span<const int64_t> strides,
                             int64_t storage_offset) {
  int64_t extent = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    extent += strides[i] * (sizes[i] - 1);
  }
  return storage_offset + extent;
}

int64_t ComputeStorageExtent(const StridedLayout& layout) {
  return ComputeStorageExtent(layout.sizes, layout.strides,
                              layout.storage_offset);
}

bool ComputeIsContiguous(const Dims& sizes, const Dims& strides,
                         MemoryFormat format) {
  switch (format) {
    case MemoryFormat::kContiguous: {
      if (ComputeNumel(sizes) == 0) return true;
      int64_t expected = 1;
      for (size_t d = sizes.size(); d-- > 0;) {
        if (sizes[d] != 1) {
          if (strides[d] != expected) return false;
          expected *= sizes[d];
        }
      }
      return true;
    }
    case MemoryFormat::kChannelsLast:
      return sizes.size() == 4 &&
             DenseInOrder(sizes, strides, kChannelsLast2dOrder);
    case MemoryFormat::kChannelsLast3d:
      return sizes.size() == 5 &&
             DenseInOrder(sizes, strides, kChannelsLast3dOrder);
  }
  return false;
}

bool ComputeIsNonOverlappingAndDense(const Dims& sizes, const Dims& strides) {
  if (ComputeIsContiguous(sizes, strides, MemoryFormat::kContiguous) ||
      ComputeIsContiguous(sizes, strides, MemoryFormat::kChannelsLast) ||
      ComputeIsContiguous(sizes, strides, MemoryFormat::kChannelsLast3d)) {
    return true;
  }
  const size_t dim = sizes.size();
  if (dim == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<size_t> perm(dim);
  std::iota(perm.begin(), perm.end(), 0);
  // Size-0 and size-1 dims sort last; the rest by increasing stride.
  std::sort(perm.begin(), perm.end(), [&](size_t a, size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  int64_t required = 1;
  for (size_t d : perm) {
    if (sizes[d] < 2) return true;
    if (strides[d] != required) return false;
    required *= sizes[d];
  }
  return true;
}

MemoryFormat ComputeSuggestMemoryFormat(const Dims& sizes,
                                        const Dims& strides) {
  if (sizes.size() == 4 &&
      StridesLikeInOrder(sizes, strides, kChannelsLast2dOrder)) {
    return MemoryFormat::kChannelsLast;
  }
  if (sizes.size() == 5 &&
      StridesLikeInOrder(sizes, strides, kChannelsLast3dOrder)) {
    return MemoryFormat::kChannelsLast3d;
  }
  return MemoryFormat::kContiguous;
}

MemOverlap ComputeInternalOverlap(const Dims& sizes, const Dims& strides) {
  if (ComputeIsNonOverlappingAndDense(sizes, strides)) return MemOverlap::kNo;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (strides[i] == 0 && sizes[i] > 1) return MemOverlap::kYes;
  }
  return MemOverlap::kTooHard;
}

MemOverlap ComputeExactOverlap(const Dims& sizes, const Dims& strides,
                               int64_t max_enumerated) {
  const int64_t numel = ComputeNumel(sizes);
  if (numel == 0) return MemOverlap::kNo;
  std::vector<size_t> dims;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 2) continue;
    if (strides[i] == 0) return MemOverlap::kYes;
    dims.push_back(i);
  }
  // Sufficient condition: sorted by stride, each stride exceeds the span of
  // all smaller-stride dims, so the dims nest without interleaving.
  std::sort(dims.begin(), dims.end(),
            [&](size_t a, size_t b) { return strides[a] < strides[b]; });
  int64_t span = 0;
  bool nested = true;
  for (size_t d : dims) {
    if (strides[d] <= span) {
      nested = false;
      break;
    }
    span += strides[d] * (sizes[d] - 1);
  }
  if (nested) return MemOverlap::kNo;
  if (numel > max_enumerated) return MemOverlap::kTooHard;
  std::vector<int64_t> indices =
      ComputeStorageIndices(StridedLayout{sizes, strides, 0});
  std::sort(indices.begin(), indices.end());
  return std::adjacent_find(indices.begin(), indices.end()) != indices.end()
             ? MemOverlap::kYes
             : MemOverlap::kNo;
}

std::vector<int64_t> ComputeStorageIndices(const StridedLayout& layout) {
  std::vector<int64_t> indices;
  indices.reserve(ComputeNumel(layout.sizes));
  ForEachStorageIndex(layout.sizes, layout.strides, layout.storage_offset,
                      [&](int64_t index) { indices.push_back(index); });
  return indices;
}

}  // namespace dpfuzz
