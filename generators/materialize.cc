#include "generators/materialize.h"

#include <ATen/EmptyTensor.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/torch_compat.h"
#include "generators/aten_bridge.h"
#include "generators/geometry.h"
#include "generators/poison.h"
#include "generators/values.h"

namespace dpfuzz {
namespace {

// A dense CPU tensor of `sizes`, uninitialized: what at::empty makes,
// made without the dispatcher's round trip (a case makes several; for
// ops this cheap the round trip is a few percent of a case).
at::Tensor EmptyCpu(DType dtype, at::IntArrayRef sizes) {
  return at::Tensor(at::detail::empty_cpu(sizes, ToScalarType(dtype),
                                          /*pin_memory=*/false));
}

// Checks that `spec` can be built here with `values` bytes of values.
absl::Status CheckBuildable(const TensorSpec& spec,
                            const std::vector<uint8_t>& values) {
  DPFUZZ_RETURN_IF_ERROR(ValidateTensorSpec(spec));
  if (absl::Status device = CheckDeviceAvailable(spec.device); !device.ok()) {
    return absl::UnavailableError(
        absl::StrCat("spec ", TensorSpecLayoutString(spec), " needs a ",
                     DeviceName(spec.device), " device: ", device.message()));
  }
  if (static_cast<int64_t>(values.size()) !=
      spec.numel() * ElementSize(spec.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "spec ", TensorSpecLayoutString(spec), " has ", spec.numel(),
        " elements but ", values.size(), " bytes of values were given"));
  }
  return absl::OkStatus();
}

// The nested tensor of `components` over `storage` (1-d, dense).
at::Tensor NestedView(const at::Tensor& storage, const Components& components) {
  const int64_t count = static_cast<int64_t>(components.size());
  const int64_t rank = components.front().dim();
  const at::TensorOptions longs = at::TensorOptions().dtype(at::kLong);
  at::Tensor sizes = at::empty({count, rank}, longs);
  at::Tensor strides = at::empty({count, rank}, longs);
  std::vector<int64_t> offsets;
  int64_t* size_data = sizes.data_ptr<int64_t>();
  int64_t* stride_data = strides.data_ptr<int64_t>();
  for (int64_t i = 0; i < count; ++i) {
    for (int64_t d = 0; d < rank; ++d) {
      size_data[i * rank + d] = components[i].sizes[d];
      stride_data[i * rank + d] = components[i].strides[d];
    }
    offsets.push_back(components[i].storage_offset);
  }
  return compat::NestedViewFromBuffer(storage, sizes, strides, offsets);
}

// Builds one poisoned storage holding every spec's values, in order, and a
// view per spec. See Note [Poisoned gaps].
absl::StatusOr<std::vector<MaterializedTensor>> BuildShared(
    const std::vector<TensorSpec>& specs,
    const std::vector<std::vector<uint8_t>>& values) {
  DPFUZZ_CHECK(!specs.empty() && specs.size() == values.size());
  const TensorSpec& first = specs.front();
  int64_t extent = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    DPFUZZ_RETURN_IF_ERROR(CheckBuildable(specs[i], values[i]));
    if (specs[i].dtype != first.dtype || specs[i].device != first.device) {
      return absl::InvalidArgumentError(
          absl::StrCat("specs ", TensorSpecLayoutString(first), " and ",
                       TensorSpecLayoutString(specs[i]),
                       " cannot share a storage: dtype or device differ"));
    }
    extent = std::max(extent, specs[i].storage_extent());
  }
  // See Note [Nested buffers by version].
  const bool exact_buffer =
      first.is_nested() && !compat::kNestedBufferMayHaveGaps;
  if (exact_buffer && (specs.size() != 1 || !TilesBuffer(first.components))) {
    return absl::UnimplementedError(absl::StrCat(
        "nested spec ", TensorSpecLayoutString(first),
        " cannot be built with LibTorch ", TORCH_VERSION,
        ": its components must tile one buffer of their own exactly (no "
        "gap, margin or overlap; see Note [Nested buffers by version])"));
  }
  at::NoGradGuard no_grad;
  const int64_t element_size = ElementSize(first.dtype);
  const int64_t storage_numel =
      exact_buffer ? first.numel() : extent + kTailMargin;
  at::Tensor storage = EmptyCpu(first.dtype, {storage_numel});
  auto* bytes = static_cast<uint8_t*>(storage.data_ptr());
  // The poison everywhere: one element, then what is done copied onward.
  const std::vector<uint8_t> poison = PoisonElement(first.dtype);
  const int64_t storage_bytes = storage_numel * element_size;
  if (storage_bytes > 0) std::memcpy(bytes, poison.data(), element_size);
  for (int64_t done = element_size; done < storage_bytes; done *= 2) {
    std::memcpy(bytes + done, bytes, std::min(done, storage_bytes - done));
  }
  // Overlapping layouts and shared storages write some elements more than
  // once and the last write wins: their logical values are those read back
  // with ReadLogicalBytes, which is what a baseline for them must hold.
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::vector<int64_t> indices = SpecStorageIndices(specs[i]);
    for (size_t n = 0; n < indices.size(); ++n) {
      std::memcpy(bytes + indices[n] * element_size,
                  values[i].data() + n * element_size, element_size);
    }
  }
  if (first.device != Device::kCpu) {
    storage = storage.to(ToAtenDevice(first.device));
  }
  std::vector<MaterializedTensor> out;
  for (const TensorSpec& spec : specs) {
    at::Tensor view =
        spec.is_nested()
            ? NestedView(storage, spec.components)
            : storage.as_strided(spec.layout.sizes, spec.layout.strides,
                                 spec.layout.storage_offset);
    if (spec.requires_grad) view = view.detach().requires_grad_(true);
    out.push_back(MaterializedTensor{view, storage});
  }
  return out;
}

std::vector<uint8_t> ValuesOf(const TensorSpec& spec) {
  // A nested spec's values: its elements in order, as one flat run.
  return GenerateValues(
      spec.values, spec.dtype,
      spec.is_nested() ? Dims{spec.numel()} : spec.layout.sizes);
}

}  // namespace

absl::StatusOr<MaterializedTensor> Materialize(
    const TensorSpec& spec, const std::vector<uint8_t>& values) {
  DPFUZZ_ASSIGN_OR_RETURN(std::vector<MaterializedTensor> built,
                          BuildShared({spec}, {values}));
  return built.front();
}

absl::StatusOr<MaterializedTensor> Materialize(const TensorSpec& spec) {
  DPFUZZ_RETURN_IF_ERROR(ValidateTensorSpec(spec));
  return Materialize(spec, ValuesOf(spec));
}

absl::StatusOr<std::vector<MaterializedTensor>> MaterializeShared(
    const std::vector<TensorSpec>& specs) {
  std::vector<std::vector<uint8_t>> values;
  for (const TensorSpec& spec : specs) {
    DPFUZZ_RETURN_IF_ERROR(ValidateTensorSpec(spec));
    values.push_back(ValuesOf(spec));
  }
  return BuildShared(specs, values);
}

at::Tensor MakeContiguousTensor(DType dtype, const Dims& sizes,
                                const std::vector<uint8_t>& values) {
  at::Tensor tensor = EmptyCpu(dtype, sizes);
  DPFUZZ_CHECK(values.size() == tensor.nbytes());
  if (!values.empty())
    std::memcpy(tensor.data_ptr(), values.data(), values.size());
  return tensor;
}

at::Tensor MakeContiguousNestedTensor(DType dtype,
                                      const std::vector<Dims>& sizes,
                                      const std::vector<uint8_t>& values,
                                      const at::Device& device) {
  const Components components = ContiguousComponents(sizes);
  at::Tensor buffer =
      MakeContiguousTensor(dtype, {ComponentsNumel(components)}, values);
  return NestedView(buffer.to(device), components);
}

at::Tensor MakeContiguousLike(const TensorSpec& spec,
                              const std::vector<uint8_t>& values,
                              const at::Device& device) {
  if (spec.is_nested()) {
    return MakeContiguousNestedTensor(
        spec.dtype, ComponentSizes(spec.components), values, device);
  }
  return MakeContiguousTensor(spec.dtype, spec.layout.sizes, values).to(device);
}

std::vector<uint8_t> ReadStorageBytes(const at::Tensor& tensor) {
  at::NoGradGuard no_grad;
  const c10::Storage& storage = tensor.storage();
  if (storage.device().is_cpu()) {  // No tensor needed to read host memory.
    std::vector<uint8_t> copy;
    const absl::Span<const uint8_t> bytes = StorageBytes(tensor, copy);
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
  }
  const int64_t element_size = tensor.element_size();
  const int64_t numel = static_cast<int64_t>(storage.nbytes()) / element_size;
  at::Tensor flat = at::empty({0}, tensor.options().requires_grad(false))
                        .set_(storage, 0, {numel}, {1})
                        .cpu();
  const auto* data = static_cast<const uint8_t*>(flat.data_ptr());
  return std::vector<uint8_t>(data, data + numel * element_size);
}

absl::Span<const uint8_t> StorageBytes(const at::Tensor& tensor,
                                       std::vector<uint8_t>& copy) {
  const c10::Storage& storage = tensor.storage();
  if (!storage.device().is_cpu()) {
    copy = ReadStorageBytes(tensor);
    return copy;
  }
  // Whole elements, as ReadStorageBytes copies them.
  const size_t element_size = tensor.element_size();
  return {static_cast<const uint8_t*>(storage.data()),
          storage.nbytes() / element_size * element_size};
}

at::Tensor StridedValues(const at::Tensor& tensor) {
  if (tensor.is_nested()) return tensor;
  if (tensor.layout() != at::kStrided) return tensor.to_dense();
  if (tensor._is_zerotensor()) {
    return at::zeros(tensor.sizes(), tensor.options());
  }
  return tensor;
}

namespace {

// The number of logical elements ReadLogicalBytes reads: a nested tensor's
// over its components.
int64_t LogicalNumel(const at::Tensor& tensor) {
  if (!tensor.is_nested()) return tensor.numel();
  int64_t numel = 0;
  for (const at::Tensor& component : tensor.unbind()) {
    numel += component.numel();
  }
  return numel;
}

// ReadLogicalBytes into `out`, which has room for them.
void ReadLogicalBytesInto(const at::Tensor& tensor, uint8_t* out) {
  if (!tensor.is_nested() &&
      (tensor.layout() != at::kStrided || tensor._is_zerotensor())) {
    return ReadLogicalBytesInto(StridedValues(tensor), out);
  }
  if (tensor.is_nested()) {  // Component after component.
    for (const at::Tensor& component : tensor.unbind()) {
      ReadLogicalBytesInto(component, out);
      out += component.numel() * component.element_size();
    }
    return;
  }
  if (tensor.is_conj() || tensor.is_neg()) {
    return ReadLogicalBytesInto(tensor.resolve_conj().resolve_neg(), out);
  }
  const int64_t element_size = tensor.element_size();
  if (tensor.numel() == 0) return;
  // Host storage is read in place; device storage is copied over whole.
  std::vector<uint8_t> copy;
  const uint8_t* storage = StorageBytes(tensor, copy).data();
  if (tensor.is_contiguous()) {  // Most results: one block.
    std::memcpy(out, storage + tensor.storage_offset() * element_size,
                tensor.numel() * element_size);
    return;
  }
  ForEachStorageIndex(tensor.sizes(), tensor.strides(), tensor.storage_offset(),
                      [&](int64_t index) {
                        std::memcpy(out, storage + index * element_size,
                                    element_size);
                        out += element_size;
                      });
}

}  // namespace

std::vector<uint8_t> ReadLogicalBytes(const at::Tensor& tensor) {
  std::vector<uint8_t> out(LogicalNumel(tensor) * tensor.element_size());
  ReadLogicalBytesInto(tensor, out.data());
  return out;
}

at::Tensor ReadContiguousCopy(const at::Tensor& tensor, DType dtype) {
  at::Tensor copy = EmptyCpu(dtype, tensor.sizes());
  ReadLogicalBytesInto(tensor, static_cast<uint8_t*>(copy.data_ptr()));
  return copy;
}

absl::Status CheckStorageIntact(const TensorSpec& spec,
                                const at::Tensor& storage) {
  const std::vector<uint8_t> bytes = ReadStorageBytes(storage);
  const int64_t element_size = ElementSize(spec.dtype);
  const int64_t storage_numel =
      static_cast<int64_t>(bytes.size()) / element_size;
  std::vector<bool> addressed(storage_numel, false);
  for (int64_t index : SpecStorageIndices(spec)) {
    if (index < storage_numel) addressed[index] = true;
  }
  int64_t damaged = 0;
  int64_t first = -1;
  for (int64_t i = 0; i < storage_numel; ++i) {
    if (addressed[i] || IsPoison(spec.dtype, bytes.data() + i * element_size)) {
      continue;
    }
    if (damaged++ == 0) first = i;
  }
  if (damaged == 0) return absl::OkStatus();
  const int64_t extent = spec.storage_extent();
  int64_t offset = spec.layout.storage_offset;
  if (spec.is_nested()) {  // The first place any component starts.
    offset = extent;
    for (const StridedLayout& c : spec.components) {
      offset = std::min(offset, c.storage_offset);
    }
  }
  const char* where = first < offset    ? "before the offset"
                      : first >= extent ? "after the last element"
                                        : "in a gap between elements";
  return absl::DataLossError(absl::StrCat(
      damaged, " storage element(s) outside the view ",
      TensorSpecLayoutString(spec), " were overwritten; the first is storage[",
      first, "], ", where));
}

}  // namespace dpfuzz
