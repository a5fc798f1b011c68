#include "oracles/grad_per_location.h"

#include "generators/geometry.h"

namespace dpfuzz {

bool SharesMemory(const at::Tensor& leaf) {
  if (!leaf.defined() || leaf.is_nested() || leaf.layout() != at::kStrided) {
    return false;
  }
  const Dims sizes(leaf.sizes().begin(), leaf.sizes().end());
  const Dims strides(leaf.strides().begin(), leaf.strides().end());
  return ComputeExactOverlap(sizes, strides) == MemOverlap::kYes;
}

std::optional<at::Tensor> GradPerLocation(const at::Tensor& leaf,
                                          const at::Tensor& grad) {
  if (!grad.defined() || grad.sizes() != leaf.sizes() || !SharesMemory(leaf)) {
    return std::nullopt;
  }
  // The location of every element, relative to the lowest one addressed
  // (strides of a leaf dpfuzz builds are never negative).
  int64_t span = 1;
  for (int64_t d = 0; d < leaf.dim(); ++d) {
    span += (leaf.size(d) - 1) * leaf.stride(d);
  }
  const at::Tensor location = at::arange(span, at::kLong)
                                  .as_strided(leaf.sizes(), leaf.strides(), 0)
                                  .reshape(-1);
  const at::Tensor uses = at::zeros({span}, at::kLong)
                              .index_add_(0, location, at::ones_like(location));
  // Summed in double precision, then rounded once to the gradient's dtype.
  // A sparse gradient (embedding's sparse=True) is summed as its values.
  at::Tensor dense = grad.detach().cpu();
  if (dense.layout() != at::kStrided) dense = dense.to_dense();
  const at::Tensor wide =
      dense.to(grad.is_complex() ? at::kComplexDouble : at::kDouble);
  const at::Tensor sums = at::zeros({span}, wide.options())
                              .index_add_(0, location, wide.reshape(-1));
  return sums.masked_select(uses > 0).to(grad.scalar_type());
}

}  // namespace dpfuzz
