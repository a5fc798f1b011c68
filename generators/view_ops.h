// The geometry of LibTorch's view ops, as pure functions on StridedLayout.
//
// Each function returns the layout the ATen view op of the same name
// produces (same sizes, strides and storage offset, so the view reads the
// same storage elements), or an error where ATen would reject the
// arguments. The layout generator chains them to reach the layouts real
// programs build, and tests/generators/view_ops_test.cc checks each one
// against ATen itself.
//
//   Transpose([2, 3]@[3, 1]+0, 0, 1)      -> [3, 2]@[1, 3]+0
//   Unfold([5]@[1]+0, 0, 2, 2)            -> [2, 2]@[2, 1]+0
//   ViewAsReal([3]@[1]+1)  (complex)      -> [3, 2]@[2, 1]+2
//
// ViewStep records one applied op so a generated layout can say how it was
// built: "transpose(0, 1)", "narrow(1, 2, 3)".

#ifndef DPFUZZ_GENERATORS_VIEW_OPS_H_
#define DPFUZZ_GENERATORS_VIEW_OPS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/strided_layout.h"

namespace dpfuzz {

absl::StatusOr<StridedLayout> Transpose(const StridedLayout& in, int64_t dim0,
                                        int64_t dim1);
absl::StatusOr<StridedLayout> Permute(const StridedLayout& in,
                                      const Dims& order);
absl::StatusOr<StridedLayout> Narrow(const StridedLayout& in, int64_t dim,
                                     int64_t start, int64_t length);
absl::StatusOr<StridedLayout> Select(const StridedLayout& in, int64_t dim,
                                     int64_t index);
// Slicing with a step: Tensor.slice(dim, start, end, step).
absl::StatusOr<StridedLayout> Slice(const StridedLayout& in, int64_t dim,
                                    int64_t start, int64_t end, int64_t step);
absl::StatusOr<StridedLayout> Unfold(const StridedLayout& in, int64_t dim,
                                     int64_t size, int64_t step);
absl::StatusOr<StridedLayout> Diagonal(const StridedLayout& in, int64_t offset,
                                       int64_t dim1, int64_t dim2);
// Tensor.expand(sizes); -1 keeps a size.
absl::StatusOr<StridedLayout> Expand(const StridedLayout& in,
                                     const Dims& sizes);
// at::view_as_real on a complex layout: the result counts real elements.
StridedLayout ViewAsReal(const StridedLayout& in);

enum class ViewKind : uint8_t {
  kTranspose,   // args: dim0, dim1
  kPermute,     // args: the order
  kNarrow,      // args: dim, start, length
  kSelect,      // args: dim, index
  kSlice,       // args: dim, start, end, step
  kUnfold,      // args: dim, size, step
  kDiagonal,    // args: offset, dim1, dim2
  kExpand,      // args: the sizes
  kViewAsReal,  // no args
};
inline constexpr int kNumViewKinds = 9;

struct ViewStep {
  ViewKind kind;
  Dims args;

  friend bool operator==(const ViewStep& a, const ViewStep& b) {
    return a.kind == b.kind && a.args == b.args;
  }
};

// Applies one step (dispatching to the functions above).
absl::StatusOr<StridedLayout> ApplyViewStep(const StridedLayout& in,
                                            const ViewStep& step);

// "narrow(1, 2, 3)"; "expand([2, 3])"; "view_as_real()".
std::string ViewStepToString(const ViewStep& step);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_VIEW_OPS_H_
