#include "cuda/device_view.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace dpfuzz {
namespace {

bool IsElementSize(int64_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16;
}

// The largest storage index of a non-empty view (strides are non-negative,
// so every index at its maximum), storage_offset - 1 for an empty one;
// false when a step overflows int64.
bool CheckedLastStorageIndex(const cuda_kernels::ViewGeometry& geometry,
                             int64_t* last) {
  if (geometry.numel == 0) {
    *last = geometry.storage_offset - 1;
    return true;
  }
  *last = geometry.storage_offset;
  for (int d = 0; d < geometry.dim; ++d) {
    int64_t span = 0;
    if (__builtin_mul_overflow(geometry.sizes[d] - 1, geometry.strides[d],
                               &span) ||
        __builtin_add_overflow(*last, span, last)) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string DeviceViewToString(const DeviceView& view) {
  return absl::StrCat(LayoutToString(view.layout), " (", view.element_size,
                      "-byte elements, ", view.storage_bytes, "-byte storage)");
}

absl::StatusOr<cuda_kernels::ViewGeometry> MakeViewGeometry(
    const DeviceView& view) {
  const StridedLayout& layout = view.layout;
  const auto invalid = [&view](auto&&... parts) {
    return absl::InvalidArgumentError(
        absl::StrCat("device view ", DeviceViewToString(view), ": ", parts...));
  };
  if (!IsElementSize(view.element_size)) {
    return invalid("element size ", view.element_size,
                   " is not one of 1, 2, 4, 8, 16");
  }
  if (layout.strides.size() != layout.sizes.size()) {
    return invalid(layout.strides.size(), " strides for ", layout.sizes.size(),
                   " sizes");
  }
  if (layout.dim() > cuda_kernels::kMaxDims) {
    return invalid(layout.dim(), " dims; the CUDA helpers take at most ",
                   cuda_kernels::kMaxDims, " (merge dims first)");
  }
  if (layout.storage_offset < 0 || view.storage_bytes < 0) {
    return invalid("negative storage offset or storage size");
  }
  cuda_kernels::ViewGeometry geometry;
  geometry.dim = static_cast<int32_t>(layout.dim());
  geometry.storage_offset = layout.storage_offset;
  int64_t numel = 1;
  for (int d = 0; d < geometry.dim; ++d) {
    const int64_t size = layout.sizes[d];
    const int64_t stride = layout.strides[d];
    if (size < 0) return invalid("size ", size, " of dim ", d, " is negative");
    if (stride < 0) {
      return invalid("stride ", stride, " of dim ", d,
                     " is negative; LibTorch strides are non-negative");
    }
    if (__builtin_mul_overflow(numel, size, &numel)) {
      return invalid("numel overflows int64");
    }
    geometry.sizes[d] = size;
    geometry.strides[d] = stride;
  }
  geometry.numel = numel;
  int64_t dense_bytes = 0;
  if (__builtin_mul_overflow(numel, view.element_size, &dense_bytes)) {
    return invalid("numel * element size overflows int64");
  }
  if (numel == 0) return geometry;
  int64_t last = 0;
  int64_t needed_bytes = 0;
  if (!CheckedLastStorageIndex(geometry, &last) ||
      __builtin_add_overflow(last, 1, &needed_bytes) ||
      __builtin_mul_overflow(needed_bytes, view.element_size, &needed_bytes)) {
    return invalid("the storage extent overflows int64");
  }
  if (needed_bytes > view.storage_bytes) {
    return invalid("the view addresses storage elements up to ", last,
                   ", which needs ", needed_bytes, " bytes");
  }
  if (view.storage == nullptr) return invalid("the storage is null");
  return geometry;
}

int64_t LastStorageIndex(const cuda_kernels::ViewGeometry& geometry) {
  int64_t last = 0;
  DPFUZZ_CHECK(CheckedLastStorageIndex(geometry, &last));
  return last;
}

}  // namespace dpfuzz
