// The edge between dpfuzz's plain values and LibTorch's types.
//
// Conversions only; nothing here allocates a tensor. Kept apart so that the
// layout model compiles and reasons without LibTorch headers.

#ifndef DPFUZZ_GENERATORS_ATEN_BRIDGE_H_
#define DPFUZZ_GENERATORS_ATEN_BRIDGE_H_

#include <ATen/ATen.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "generators/dtype.h"
#include "generators/geometry.h"
#include "generators/strided_layout.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

at::ScalarType ToScalarType(DType dtype);
absl::StatusOr<DType> FromScalarType(at::ScalarType type);

at::Device ToAtenDevice(Device device);
at::MemoryFormat ToAtenMemoryFormat(MemoryFormat format);

// Sizes, strides and storage offset of a strided tensor.
StridedLayout LayoutOf(const at::Tensor& tensor);

// OK when this process can put tensors on `device`; else an unavailable
// error saying why: "this LibTorch (1.13.0) is built without CUDA", or
// "LibTorch 2.4.0 sees no CUDA device".
absl::Status CheckDeviceAvailable(Device device);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_ATEN_BRIDGE_H_
