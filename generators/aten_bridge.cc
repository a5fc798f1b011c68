#include "generators/aten_bridge.h"

#include <torch/version.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace dpfuzz {
namespace {

struct TypePair {
  DType dtype;
  at::ScalarType type;
};

constexpr TypePair kTypes[] = {
    {DType::kBool, at::kBool},
    {DType::kUInt8, at::kByte},
    {DType::kInt8, at::kChar},
    {DType::kInt16, at::kShort},
    {DType::kInt32, at::kInt},
    {DType::kInt64, at::kLong},
    {DType::kFloat16, at::kHalf},
    {DType::kBFloat16, at::kBFloat16},
    {DType::kFloat32, at::kFloat},
    {DType::kFloat64, at::kDouble},
    {DType::kComplex64, at::kComplexFloat},
    {DType::kComplex128, at::kComplexDouble},
};

}  // namespace

at::ScalarType ToScalarType(DType dtype) {
  return kTypes[static_cast<size_t>(dtype)].type;
}

absl::StatusOr<DType> FromScalarType(at::ScalarType type) {
  for (const TypePair& pair : kTypes) {
    if (pair.type == type) return pair.dtype;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("dpfuzz has no dtype for ", c10::toString(type)));
}

at::Device ToAtenDevice(Device device) {
  return device == Device::kCuda ? at::Device(at::kCUDA) : at::Device(at::kCPU);
}

at::MemoryFormat ToAtenMemoryFormat(MemoryFormat format) {
  switch (format) {
    case MemoryFormat::kChannelsLast:
      return at::MemoryFormat::ChannelsLast;
    case MemoryFormat::kChannelsLast3d:
      return at::MemoryFormat::ChannelsLast3d;
    default:
      return at::MemoryFormat::Contiguous;
  }
}

StridedLayout LayoutOf(const at::Tensor& tensor) {
  return StridedLayout{tensor.sizes().vec(), tensor.strides().vec(),
                       tensor.storage_offset()};
}

absl::Status CheckDeviceAvailable(Device device) {
  if (device == Device::kCpu || at::hasCUDA()) return absl::OkStatus();
  return absl::UnavailableError(
      at::Context::hasCUDART()
          ? absl::StrCat("LibTorch ", TORCH_VERSION, " sees no CUDA device")
          : absl::StrCat("this LibTorch (", TORCH_VERSION,
                         ") is built without CUDA"));
}

}  // namespace dpfuzz
