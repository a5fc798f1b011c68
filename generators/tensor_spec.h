// TensorSpec: everything needed to build one tensor argument of a case.
//
// dtype, device, strided geometry (sizes, strides, storage offset), the
// recipe of its logical values and whether it requires grad. A plain value
// with no LibTorch object inside: tensors are made from it at the edge
// (generators/materialize.h). Two specs with equal fields build tensors with
// identical bits, on any machine.
//
// Printed in c10's notation, values and grad after the geometry:
//
//   f32 cpu [4, 1, 4, 4]@[16, 1, 4, 1]+3 dyadic#7+nan grad
//
// The storage a spec needs is derived (storage_extent()), never stored.
//
// A nested tensor (LibTorch's strided NestedTensorImpl) has `components`:
// one layout per component over the one shared storage
// (generators/nested_layout.h); its `layout` is then unused and empty.
// Its values are the components' elements, one component after another:
//
//   f32 cpu nested{[2, 3]@[1, 2]+0, [4, 3]@[3, 1]+6} dyadic#7

#ifndef DPFUZZ_GENERATORS_TENSOR_SPEC_H_
#define DPFUZZ_GENERATORS_TENSOR_SPEC_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "generators/dtype.h"
#include "generators/nested_layout.h"
#include "generators/strided_layout.h"
#include "generators/value_recipe.h"

namespace dpfuzz {

enum class Device : uint8_t {
  kCpu,   // "cpu"
  kCuda,  // "cuda": the current CUDA device.
};

absl::string_view DeviceName(Device device);
absl::StatusOr<Device> ParseDevice(absl::string_view name);

// Largest storage a spec may ask for, in elements; keeps a corrupt or
// hostile case file from allocating without bound.
inline constexpr int64_t kMaxStorageElements = int64_t{1} << 28;

struct TensorSpec {
  DType dtype = DType::kFloat32;
  Device device = Device::kCpu;
  StridedLayout layout;
  ValueRecipe values;
  bool requires_grad = false;
  Components components;  // Non-empty: a nested tensor.

  bool is_nested() const { return !components.empty(); }
  // A nested tensor's dim counts the component dim in front.
  int64_t dim() const {
    return is_nested() ? components.front().dim() + 1 : layout.dim();
  }
  int64_t numel() const;
  // Elements of storage the view needs (see ComputeStorageExtent).
  int64_t storage_extent() const;

  friend bool operator==(const TensorSpec& a, const TensorSpec& b) {
    return a.dtype == b.dtype && a.device == b.device && a.layout == b.layout &&
           a.values == b.values && a.requires_grad == b.requires_grad &&
           a.components == b.components;
  }
  friend bool operator!=(const TensorSpec& a, const TensorSpec& b) {
    return !(a == b);
  }
  template <typename H>
  friend H AbslHashValue(H h, const TensorSpec& s) {
    return H::combine(std::move(h), s.dtype, s.device, s.layout, s.values,
                      s.requires_grad, s.components);
  }
};

// "f32 cpu [2, 3]@[3, 1]+0": dtype, device, geometry (a nested tensor's
// components: "f32 cpu nested{[2, 3]@[3, 1]+0, [1, 3]@[3, 1]+6}").
std::string TensorSpecLayoutString(const TensorSpec& spec);
// The layout string followed by the value recipe and " grad" if set.
std::string TensorSpecToString(const TensorSpec& spec);
std::ostream& operator<<(std::ostream& os, const TensorSpec& spec);

// OK when LibTorch can build the spec: as many strides as sizes, no negative
// size, stride or offset, a storage within kMaxStorageElements, and
// requires_grad only on floating or complex dtypes; a nested spec's
// components each so, of one rank, and its `layout` empty. Errors name the
// field.
absl::Status ValidateTensorSpec(const TensorSpec& spec);

// The storage index of every logical element of the spec, in order (a
// nested spec's component after component).
std::vector<int64_t> SpecStorageIndices(const TensorSpec& spec);

// Contiguous at storage offset 0 (a nested spec: its components contiguous
// and packed one after another from the buffer's start), as a contiguous
// baseline builds it.
bool IsPlain(const TensorSpec& spec);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_TENSOR_SPEC_H_
