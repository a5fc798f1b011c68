// ViewChain: a strided layout spelled the way people build it in PyTorch,
// as view ops over a fresh dense tensor, instead of as_strided.
//
// ComputeViewChain finds a base (a shape, row-major or channels_last, that
// starts `lead` elements into a flat buffer) and view ops on it (slicing
// with steps, transpose, permute, unfold, expand) whose result has exactly
// the layout's sizes, storage offset and strides of its dims of size > 1.
// The result addresses the same storage elements the layout addresses when
// the buffer is the layout's storage, so values and poison can be placed by
// position. Where the layout's size-0/1 dims can have their strides too
// (c10 ignores them; some kernels do not) the chain gives them: `exact`.
// It returns nothing when only as_strided (or a rarer view op) makes the
// layout: elements that alias in a way no unfold gives ([4, 3]@[2, 3]),
// strides that nest into no dense shape ([3, 3]@[2, 3]; diagonals make
// some), windows of an unfold's window dim.
//
// The steps come in a fixed order: slicing, unfold, one transpose or
// permute, expand. Elements share storage only after copy_at: values are
// written into the view that steps [0, copy_at) make, then the rest
// (windows, expand) is applied.
//
//   ComputeViewChain([3, 4]@[1, 3]+0)   // base [4, 3]: .t()
//   ComputeViewChain([2, 3]@[8, 2]+1)   // base [2, 8]: [:, 1:6:2]
//   ComputeViewChain([2, 2]@[1, 1]+0)   // base [3]: .unfold(0, 2, 1)
//   ComputeViewChain([4, 3]@[0, 1]+0)   // base [1, 3]: .expand(4, 3)
//   ComputeViewChain([2, 2]@[3, 1]+2)   // base [2, 3] at lead 2 of a
//                                       // buffer of 8: [:, :2]
//   ComputeViewChain([1, 1]@[0, 2]+2)   // exact = false (stride 0 on a
//                                       // size-1 dim)

#ifndef DPFUZZ_GENERATORS_VIEW_CHAIN_H_
#define DPFUZZ_GENERATORS_VIEW_CHAIN_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/geometry.h"
#include "generators/strided_layout.h"
#include "generators/view_ops.h"

namespace dpfuzz {

struct ViewChain {
  Dims base_sizes;
  MemoryFormat base_format = MemoryFormat::kContiguous;
  // The base is buffer[lead : lead + numel(base)] viewed as base_sizes;
  // buffer_size is at least lead + numel(base).
  int64_t lead = 0;
  int64_t buffer_size = 0;
  // The base is not the whole buffer in its shape: it is taken from it.
  bool from_buffer = false;
  std::vector<ViewStep> steps;
  // steps[0, copy_at) give a view whose elements are distinct storage
  // elements; the steps after it (unfold, expand) may make them share.
  size_t copy_at = 0;
  // Every stride matches, those of size-0/1 dims included.
  bool exact = false;
};

struct ViewChainOptions {
  // At least this many buffer elements after the last one the layout
  // addresses (dpfuzz's storages have kTailMargin of them).
  int64_t tail_margin = 0;
  // Take the base from the buffer (`lead` and a 1-d buffer) even when
  // lead is 0: views that share one buffer (aliasing arguments).
  bool flat_buffer = false;
  // A channels_last(_3d) base where the layout's dim order is that one.
  bool allow_channels_last = true;
};

std::optional<ViewChain> ComputeViewChain(const StridedLayout& layout,
                                          const ViewChainOptions& options = {});

// The strides view ops give `layout` when the strides of its size-0/1
// dims (which address nothing) are left to them: its own for the other
// dims, and for those what the chain of the layout with them set to 0
// makes. One answer whatever those strides were; nullopt where no chain
// gives the layout's other strides.
//
//   NaturalStrides([1, 2]@[0, 2]+0)   // [3, 2]: base [1, 3], [:, ::2]
std::optional<Dims> NaturalStrides(const StridedLayout& layout);

// The base's layout in the buffer: base_sizes, the strides of base_format,
// storage offset `lead`.
StridedLayout ViewChainBase(const ViewChain& chain);

// The layout after steps [0, count) (all of them when count is larger).
absl::StatusOr<StridedLayout> ApplyViewChain(const ViewChain& chain,
                                             size_t count = SIZE_MAX);

// Python that takes the base out of the buffer (when from_buffer): "[2:14]",
// "[:12].view(3, 4)", "[5]" for a 0-dim base.
std::string BaseFromBufferPython(const ViewChain& chain);

// Python for steps [begin, end) of the chain, appended to an expression
// for the view before them: "[1:, ::2].t()", ".unfold(0, 2, 1)",
// ".expand(4, 3)"; "" when there are none.
std::string ViewStepsPython(const ViewChain& chain, size_t begin, size_t end);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_VIEW_CHAIN_H_
