// Pure geometry of strided tensors, with c10's names and c10's rules.
//
// Every function here answers a question LibTorch also answers, and
// tests/generators/geometry_test.cc checks that the answers agree on
// thousands of generated layouts. Where c10 has a quirk (an ambiguous size-1
// channel, the empty tensor that is contiguous whatever its strides), these
// functions have the same quirk on purpose: dpfuzz predicts what LibTorch
// will say, it does not judge it.
//
//   ComputeContiguousStrides({2, 3, 4})             -> {12, 4, 1}
//   ComputeChannelsLastStrides2d({2, 3, 4, 5})      -> {60, 1, 15, 3}
//   ComputeStorageExtent({2, 3}, {1, 2}, 5)         -> 10
//   ComputeInternalOverlap({3, 3}, {1, 1})          -> MemOverlap::kTooHard
//   ComputeExactOverlap({3, 3}, {1, 1})             -> MemOverlap::kYes
//
// Strides are taken to be non-negative, as LibTorch requires.

#ifndef DPFUZZ_GENERATORS_GEOMETRY_H_
#define DPFUZZ_GENERATORS_GEOMETRY_H_

#include <cstdint>
#include <ostream>

#include "absl/container/inlined_vector.h"
#include "absl/types/span.h"
#include "generators/strided_layout.h"

namespace dpfuzz {

// The memory formats of c10::MemoryFormat that describe a dense layout.
enum class MemoryFormat : uint8_t {
  kContiguous,      // Row-major: the last dim varies fastest.
  kChannelsLast,    // NHWC order over an NCHW-indexed rank-4 tensor.
  kChannelsLast3d,  // NDHWC order over an NCDHW-indexed rank-5 tensor.
};

// The answer of at::has_internal_overlap, and of an exact check.
enum class MemOverlap : uint8_t {
  kNo,       // No two logical elements share a storage element.
  kYes,      // At least two logical elements share a storage element.
  kTooHard,  // Not decided (LibTorch's answer for most strided overlaps).
};

std::ostream& operator<<(std::ostream& os, MemoryFormat format);
std::ostream& operator<<(std::ostream& os, MemOverlap overlap);

int64_t ComputeNumel(const Dims& sizes);

// c10's contiguous strides: stride[i] = stride[i+1] * max(size[i+1], 1).
Dims ComputeContiguousStrides(const Dims& sizes);

// Dense strides for `sizes` with the dims ordered as `strides` orders them
// (smallest stride innermost; ties: the later dim innermost): the layout's
// dim order without its gaps, overlap or zero strides.
Dims ComputeDenseStridesInOrder(const Dims& sizes, const Dims& strides);

// c10::get_channels_last_strides_2d / _3d; sizes must have rank 4 / 5.
Dims ComputeChannelsLastStrides2d(const Dims& sizes);
Dims ComputeChannelsLastStrides3d(const Dims& sizes);

// Strides of a dense tensor of `sizes` in `format` (rank must fit).
Dims ComputeStridesFor(MemoryFormat format, const Dims& sizes);

// Elements the storage must hold so that every element of the view is
// inside it: 0 for an empty view (c10's computeStorageNbytes rule, which
// ignores the offset then), else offset + 1 + sum((size - 1) * stride).
int64_t ComputeStorageExtent(absl::Span<const int64_t> sizes,
                             absl::Span<const int64_t> strides,
                             int64_t storage_offset);
int64_t ComputeStorageExtent(const StridedLayout& layout);

// TensorImpl::is_contiguous(format), computed as c10 computes it.
bool ComputeIsContiguous(const Dims& sizes, const Dims& strides,
                         MemoryFormat format = MemoryFormat::kContiguous);

// TensorImpl::is_non_overlapping_and_dense.
bool ComputeIsNonOverlappingAndDense(const Dims& sizes, const Dims& strides);

// Tensor::suggest_memory_format(): the format whose stride order the layout
// follows, c10's heuristics for ambiguous size-1 dims included.
MemoryFormat ComputeSuggestMemoryFormat(const Dims& sizes, const Dims& strides);

// at::has_internal_overlap: kNo when dense, kYes when a dim of size > 1 has
// stride 0, else kTooHard.
MemOverlap ComputeInternalOverlap(const Dims& sizes, const Dims& strides);

// The exact answer. Decided by a sufficient non-overlap condition first,
// then by enumerating storage indices when numel <= max_enumerated; kTooHard
// only beyond that.
MemOverlap ComputeExactOverlap(const Dims& sizes, const Dims& strides,
                               int64_t max_enumerated = int64_t{1} << 20);

// Storage index of every logical element, in row-major logical order.
std::vector<int64_t> ComputeStorageIndices(const StridedLayout& layout);

// Calls visit(index) with the storage index of every logical element of
// the tensor of `sizes` and `strides` at `offset`, in row-major logical
// order: ComputeStorageIndices without its vector, for the walks a case
// makes on every tensor it reads (Sizes: Dims or c10::IntArrayRef).
template <typename Sizes, typename Visit>
void ForEachStorageIndex(const Sizes& sizes, const Sizes& strides,
                         int64_t offset, Visit visit) {
  const size_t dim = sizes.size();
  int64_t numel = 1;
  for (size_t d = 0; d < dim; ++d) numel *= sizes[d];
  absl::InlinedVector<int64_t, 8> index(dim, 0);
  int64_t position = offset;
  for (int64_t n = 0; n < numel; ++n) {
    visit(position);
    // Odometer increment, last dim fastest.
    for (size_t d = dim; d-- > 0;) {
      if (++index[d] < sizes[d]) {
        position += strides[d];
        break;
      }
      position -= strides[d] * (sizes[d] - 1);
      index[d] = 0;
    }
  }
}

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_GEOMETRY_H_
