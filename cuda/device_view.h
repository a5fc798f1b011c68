// DeviceView: a strided view over a storage in device memory, as raw data.
//
// What a CUDA tensor is, without LibTorch: the address of storage element 0,
// the storage's size in bytes, the element size, and the view's sizes,
// strides and storage offset in elements (a StridedLayout, as c10 holds
// them). The device helpers (cuda/strided_copy.h, cuda/storage_integrity.h)
// take one, and MakeViewGeometry checks everything their kernels rely on
// before anything runs on the device:
//
//   DeviceView view{tensor.storage().data(), tensor.storage().nbytes(),
//                   tensor.element_size(),
//                   {tensor.sizes().vec(), tensor.strides().vec(),
//                    tensor.storage_offset()}};
//   absl::StatusOr<cuda_kernels::ViewGeometry> g = MakeViewGeometry(view);
//
// Strides must be non-negative (LibTorch's are) and the rank at most
// cuda_kernels::kMaxDims; zero strides (expanded views) are fine. An empty
// view is valid whatever its strides and offset, as in c10.

#ifndef DPFUZZ_CUDA_DEVICE_VIEW_H_
#define DPFUZZ_CUDA_DEVICE_VIEW_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "cuda/kernels.h"
#include "generators/strided_layout.h"

namespace dpfuzz {

struct DeviceView {
  void* storage = nullptr;    // Device address of storage element 0.
  int64_t storage_bytes = 0;  // Bytes the storage holds.
  int64_t element_size = 0;   // Bytes per element: 1, 2, 4, 8 or 16.
  StridedLayout layout;       // In elements.
};

// "[2, 3]@[1, 2]+4 (8-byte elements, 128-byte storage)", for messages.
std::string DeviceViewToString(const DeviceView& view);

// The kernel form of `view`, or kInvalidArgument naming the view and what
// is wrong: an element size that is not 1, 2, 4, 8 or 16, sizes and strides
// of different ranks, more than kMaxDims dims, a negative size, stride,
// offset or storage size, a numel or byte count that overflows int64, an
// element outside the storage, a null storage under a non-empty view.
// Makes no CUDA call.
absl::StatusOr<cuda_kernels::ViewGeometry> MakeViewGeometry(
    const DeviceView& view);

// Storage index of the view's last element (the largest it addresses);
// storage_offset - 1 for an empty view. Needs a valid view.
int64_t LastStorageIndex(const cuda_kernels::ViewGeometry& geometry);

}  // namespace dpfuzz

#endif  // DPFUZZ_CUDA_DEVICE_VIEW_H_
