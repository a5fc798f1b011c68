// StridedLayout: the geometry of one strided view over a flat storage.
//
// sizes, strides and storage_offset in elements, exactly as c10 holds them.
// A plain value: copyable, comparable, hashable, printable in c10's test
// notation `[4, 1, 4, 4]@[16, 1, 4, 1]+3`. It says nothing about dtype,
// device or values (see TensorSpec) and does not validate itself; the pure
// functions in generators/geometry.h answer every question about it.

#ifndef DPFUZZ_GENERATORS_STRIDED_LAYOUT_H_
#define DPFUZZ_GENERATORS_STRIDED_LAYOUT_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace dpfuzz {

using Dims = std::vector<int64_t>;

struct StridedLayout {
  Dims sizes;
  Dims strides;
  int64_t storage_offset = 0;

  int64_t dim() const { return static_cast<int64_t>(sizes.size()); }

  friend bool operator==(const StridedLayout& a, const StridedLayout& b) {
    return a.sizes == b.sizes && a.strides == b.strides &&
           a.storage_offset == b.storage_offset;
  }
  friend bool operator!=(const StridedLayout& a, const StridedLayout& b) {
    return !(a == b);
  }
  template <typename H>
  friend H AbslHashValue(H h, const StridedLayout& l) {
    return H::combine(std::move(h), l.sizes, l.strides, l.storage_offset);
  }
};

// "[2, 3]" for {2, 3}; "[]" for a 0-dim tensor.
std::string DimsToString(const Dims& dims);

// "[4, 1, 4, 4]@[16, 1, 4, 1]+3".
std::string LayoutToString(const StridedLayout& layout);

std::ostream& operator<<(std::ostream& os, const StridedLayout& layout);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_STRIDED_LAYOUT_H_
