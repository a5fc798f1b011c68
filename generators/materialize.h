// Materialization: building real tensors from TensorSpecs, and reading them
// back without trusting ATen's strided copy kernels.
//
// Materialize allocates a flat storage of storage_extent() + kTailMargin
// elements, fills all of it with poison (Note [Poisoned gaps]), writes the
// logical values to exactly the elements the view addresses, moves the
// storage to the spec's device as one dense block, and returns the view
// (as_strided over that storage) beside the storage itself. Values are
// placed and read by dpfuzz's own byte-level strided walk, so a bug in
// ATen's copy_ can neither hide nor fake a finding.
//
//   absl::StatusOr<MaterializedTensor> m = Materialize(spec);
//   m->tensor.sizes() == spec.layout.sizes;        // and strides, offset
//   ReadLogicalBytes(m->tensor) == GenerateValues(spec.values, ...);
//   CheckStorageIntact(spec, m->storage).ok();     // until a kernel writes

#ifndef DPFUZZ_GENERATORS_MATERIALIZE_H_
#define DPFUZZ_GENERATORS_MATERIALIZE_H_

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

// Poisoned elements after the last element a view can address.
inline constexpr int64_t kTailMargin = 4;

struct MaterializedTensor {
  at::Tensor tensor;   // The view the spec describes; a leaf if requires_grad.
  at::Tensor storage;  // 1-d, dense, over the whole storage incl. margins.
};

// `values` are the row-major logical bytes (numel * element size).
absl::StatusOr<MaterializedTensor> Materialize(
    const TensorSpec& spec, const std::vector<uint8_t>& values);

// Materializes with the values of spec.values.
absl::StatusOr<MaterializedTensor> Materialize(const TensorSpec& spec);

// Several specs over one shared storage (aliasing arguments, Case::aliases):
// the storage covers every spec's extent, and each spec's values (from its
// recipe) are written in order, later specs winning where they share
// elements. All specs need the same dtype and device; each result's
// `storage` is the same tensor.
absl::StatusOr<std::vector<MaterializedTensor>> MaterializeShared(
    const std::vector<TensorSpec>& specs);

// A dense row-major CPU tensor holding `values`: the contiguous baseline.
at::Tensor MakeContiguousTensor(DType dtype, const Dims& sizes,
                                const std::vector<uint8_t>& values);

// A contiguous nested tensor on `device` whose components have `sizes` and
// hold `values` (their row-major bytes, component after component): what
// torch.nested.nested_tensor builds, the nested contiguous baseline.
at::Tensor MakeContiguousNestedTensor(DType dtype,
                                      const std::vector<Dims>& sizes,
                                      const std::vector<uint8_t>& values,
                                      const at::Device& device);

// A contiguous tensor on `device` of `spec`'s dtype and sizes (its
// components' sizes, nested) holding `values`, row-major: MakeContiguous-
// Tensor or MakeContiguousNestedTensor by the spec.
at::Tensor MakeContiguousLike(const TensorSpec& spec,
                              const std::vector<uint8_t>& values,
                              const at::Device& device);

// `tensor` as a strided tensor of the same values: a sparse, compressed
// or mkldnn result densified, a ZeroTensor (autograd's zeros, with no
// memory behind them) made real, any other tensor as it is. Results and
// gradients are read through it; inputs are always strided.
at::Tensor StridedValues(const at::Tensor& tensor);

// The logical elements of any tensor (a nested one's component after
// component, others through StridedValues), on any device, as row-major
// bytes. Only the whole storage is copied by ATen (one dense block); a
// conjugate or negative view (its bit on the tensor, its memory as it was)
// is resolved first, into a copy.
std::vector<uint8_t> ReadLogicalBytes(const at::Tensor& tensor);

// The logical elements of a strided (not nested) `tensor` of `dtype`, as
// ReadLogicalBytes reads them, in a new contiguous CPU tensor: what a
// result is compared as and a baseline is built from, without the bytes
// in between.
at::Tensor ReadContiguousCopy(const at::Tensor& tensor, DType dtype);

// The whole storage under `tensor`, as bytes on the CPU.
std::vector<uint8_t> ReadStorageBytes(const at::Tensor& tensor);

// The same bytes without a copy where they are host memory: the storage
// itself, or else `copy`, which ReadStorageBytes fills. Valid while the
// storage is unchanged and `copy` lives.
absl::Span<const uint8_t> StorageBytes(const at::Tensor& tensor,
                                       std::vector<uint8_t>& copy);

// OK when every storage element that `spec` does not address (the margin
// before the offset, gaps between strided elements, the tail margin) still
// holds poison. The error names the first damaged element, where it lies
// and how many are damaged.
absl::Status CheckStorageIntact(const TensorSpec& spec,
                                const at::Tensor& storage);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_MATERIALIZE_H_
