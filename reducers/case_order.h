// The total order of "simpler" over cases, which makes a reduction's
// result deterministic.
//
// A case is simpler than another when its cost (CaseCost) is smaller,
// compared field by field in this order: fewer arguments (tensors, list
// elements, other arguments, grad_outputs, aliases), fewer tensors with
// unnatural layouts (see Note [Natural triggers]), fewer elements, less
// storage, lower rank, smaller sizes (lexicographically), simpler layouts
// (contiguous < permuted < channels_last < expanded < gapped < overlapping,
// summed over tensors), smaller storage offsets, more common dtypes
// (f32 < f64 < i64 < i32 < b8 < f16 < bf16 < i16 < i8 < u8 < c64 < c128),
// simpler values (zeros < ones < small integers < the rest; no specials;
// seed 0), smaller numbers in the other arguments, fewer layouts whose
// size-1 dims have other strides than view ops give them
// (generators/view_chain.h's NaturalStrides: an issue.md spells others
// with as_strided), smaller strides (summed);
// finally the case's JSON text, so that two different cases are never
// equally simple.
//
//   if (SimplerThan(candidate, current)) ...
//
// Note [Natural triggers]
// A maintainer who reads "overlapping input" or "stride 0" in a report
// closes it: such layouts come from as_strided or expand, rarely from
// real code. A bug that shows with a transposed, sliced or offset view is
// the same bug, told in a way people believe. So overlap and zero strides
// cost more than any number of elements: the reducer trades them for an
// ordinary layout (dense strides in the same dim order, contiguous_strides)
// even at the cost of a few elements, and keeps them only when the bug
// needs them.

#ifndef DPFUZZ_REDUCERS_CASE_ORDER_H_
#define DPFUZZ_REDUCERS_CASE_ORDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "generators/case.h"

namespace dpfuzz {

struct CaseCost {
  std::vector<int64_t> key;  // Compared lexicographically.
  std::string text;          // The tie-breaker: the case file text.

  friend bool operator<(const CaseCost& a, const CaseCost& b) {
    return a.key != b.key ? a.key < b.key : a.text < b.text;
  }
};

CaseCost CostOf(const Case& c);

bool SimplerThan(const Case& a, const Case& b);

// 0 for float32, the most common dtype, growing as above.
int DTypeRank(DType dtype);

// 0 contiguous, 1 permuted, 2 channels_last(_3d), 3 expanded, 4 gapped,
// 5 overlapping: the most complex feature the layout has.
int LayoutRank(const StridedLayout& layout);

// 2 for an overlapping layout, 1 for one with stride 0 (expanded), else 0.
// See Note [Natural triggers].
int UnnaturalRank(const StridedLayout& layout);

}  // namespace dpfuzz

#endif  // DPFUZZ_REDUCERS_CASE_ORDER_H_
