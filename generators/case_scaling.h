// ScaledCase: a case at `factor` times its sizes, each layout of the same
// kind, for measurements that need more work than a drawn case holds (a
// time per call long enough to time, a ratio seen at two sizes).
//
// Every dim of size > 1 of every tensor grows `factor` times; a dim of
// size 1 stays 1, so broadcasting still holds, tensors of equal sizes stay
// equal and a matrix product's inner dims still match. Each layout keeps
// its kind (ScaledLayout). Scalars and int arguments are kept: where one
// ties a size (a view's shape, an output_size), the op refuses the scaled
// case, and the caller takes it as a case that does not scale.
//
//   std::optional<Case> big = ScaledCase(c, 4);

#ifndef DPFUZZ_GENERATORS_CASE_SCALING_H_
#define DPFUZZ_GENERATORS_CASE_SCALING_H_

#include <cstdint>
#include <optional>

#include "generators/case.h"
#include "generators/strided_layout.h"

namespace dpfuzz {

// `layout` with every size > 1 `factor` times as large, and its strides
// grown as much as the sizes of the dims inside them: dims keep their
// order by stride, an expanded dim its stride 0, a gap between dims its
// ratio (a slice with step 2 stays one, a channels_last layout stays
// one), the storage offset its value. `factor` >= 1.
StridedLayout ScaledLayout(const StridedLayout& layout, int64_t factor);

// `c` with every tensor's layout scaled; nullopt when a tensor is nested
// (its components' sizes are tied by the op's offsets), a scaled one needs
// more than `max_storage_elements` of storage, or no tensor has more
// elements (every one empty, 0-dim or of size-1 dims only).
std::optional<Case> ScaledCase(const Case& c, int64_t factor,
                               int64_t max_storage_elements);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_CASE_SCALING_H_
