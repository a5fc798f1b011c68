#include "generators/strided_layout.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dpfuzz {

std::string DimsToString(const Dims& dims) {
  return absl::StrCat("[", absl::StrJoin(dims, ", "), "]");
}

std::string LayoutToString(const StridedLayout& layout) {
  return absl::StrCat(DimsToString(layout.sizes), "@",
                      DimsToString(layout.strides), "+", layout.storage_offset);
}

std::ostream& operator<<(std::ostream& os, const StridedLayout& layout) {
  return os << LayoutToString(layout);
}

}  // namespace dpfuzz
