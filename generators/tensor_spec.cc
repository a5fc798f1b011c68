#include "generators/tensor_spec.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "generators/geometry.h"

namespace dpfuzz {

absl::string_view DeviceName(Device device) {
  return device == Device::kCuda ? "cuda" : "cpu";
}

absl::StatusOr<Device> ParseDevice(absl::string_view name) {
  if (name == "cpu") return Device::kCpu;
  if (name == "cuda") return Device::kCuda;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown device \"", name, "\"; expected cpu or cuda"));
}

int64_t TensorSpec::numel() const {
  return is_nested() ? ComponentsNumel(components) : ComputeNumel(layout.sizes);
}

int64_t TensorSpec::storage_extent() const {
  return is_nested() ? ComponentsStorageExtent(components)
                     : ComputeStorageExtent(layout);
}

std::vector<int64_t> SpecStorageIndices(const TensorSpec& spec) {
  return spec.is_nested() ? ComponentsStorageIndices(spec.components)
                          : ComputeStorageIndices(spec.layout);
}

bool IsPlain(const TensorSpec& spec) {
  if (spec.is_nested()) {
    return spec.components ==
           ContiguousComponents(ComponentSizes(spec.components));
  }
  const StridedLayout& l = spec.layout;
  return l.storage_offset == 0 &&
         l.strides == ComputeContiguousStrides(l.sizes);
}

std::string TensorSpecLayoutString(const TensorSpec& spec) {
  return absl::StrCat(DTypeName(spec.dtype), " ", DeviceName(spec.device), " ",
                      spec.is_nested() ? ComponentsToString(spec.components)
                                       : LayoutToString(spec.layout));
}

std::string TensorSpecToString(const TensorSpec& spec) {
  return absl::StrCat(TensorSpecLayoutString(spec), " ",
                      ValueRecipeToString(spec.values),
                      spec.requires_grad ? " grad" : "");
}

std::ostream& operator<<(std::ostream& os, const TensorSpec& spec) {
  return os << TensorSpecToString(spec);
}

namespace {

absl::Status ValidateLayout(const StridedLayout& layout) {
  if (layout.strides.size() != layout.sizes.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"strides\" has ", layout.strides.size(),
                     " entries but \"sizes\" has ", layout.sizes.size()));
  }
  // Checked one dim at a time so that the running extent cannot overflow.
  int64_t extent = 1;
  int64_t numel = 1;
  for (size_t i = 0; i < layout.sizes.size(); ++i) {
    if (layout.sizes[i] < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "\"sizes\"[", i, "] is ", layout.sizes[i], "; sizes must be >= 0"));
    }
    if (layout.strides[i] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("\"strides\"[", i, "] is ", layout.strides[i],
                       "; LibTorch strides must be >= 0"));
    }
    if (layout.sizes[i] > kMaxStorageElements ||
        layout.strides[i] > kMaxStorageElements) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dim ", i, " (size ", layout.sizes[i], ", stride ", layout.strides[i],
          ") exceeds the limit of ", kMaxStorageElements, " elements"));
    }
    if (layout.sizes[i] > 0)
      extent += layout.strides[i] * (layout.sizes[i] - 1);
    numel *= layout.sizes[i];
    if (extent > kMaxStorageElements || numel > kMaxStorageElements) break;
  }
  if (layout.storage_offset < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"storage_offset\" is ", layout.storage_offset, "; it must be >= 0"));
  }
  if (extent > kMaxStorageElements ||
      layout.storage_offset > kMaxStorageElements - extent ||
      numel > kMaxStorageElements) {
    return absl::InvalidArgumentError(
        absl::StrCat("the layout ", LayoutToString(layout), " needs more than ",
                     kMaxStorageElements, " elements"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateTensorSpec(const TensorSpec& spec) {
  if (spec.is_nested()) {
    if (spec.layout != StridedLayout{}) {
      return absl::InvalidArgumentError(absl::StrCat(
          "a nested spec has \"components\" and an empty layout, but its "
          "layout is ",
          LayoutToString(spec.layout)));
    }
    DPFUZZ_RETURN_IF_ERROR(ValidateComponents(spec.components));
    int64_t numel = 0;
    for (size_t i = 0; i < spec.components.size(); ++i) {
      if (absl::Status s = ValidateLayout(spec.components[i]); !s.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("\"components\"[", i, "]: ", s.message()));
      }
      numel += ComputeNumel(spec.components[i].sizes);
      if (numel > kMaxStorageElements) {
        return absl::InvalidArgumentError(
            absl::StrCat("the components need more than ", kMaxStorageElements,
                         " elements"));
      }
    }
  } else {
    DPFUZZ_RETURN_IF_ERROR(ValidateLayout(spec.layout));
  }
  if (spec.requires_grad && !IsFloating(spec.dtype) && !IsComplex(spec.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "\"requires_grad\" is true but dtype ", DTypeName(spec.dtype),
        " is not floating or complex; only those can require grad"));
  }
  return absl::OkStatus();
}

}  // namespace dpfuzz
