// Gradients of a leaf whose elements share memory, compared per location.
//
// Note [Gradients of overlapping leaves]
// An input that requires grad and whose elements share memory (expanded,
// stride 0, or strides that make elements coincide) has no unique gradient
// per element once a backward formula is layout-aware: as_strided's
// backward (used by stft, unfold and others that view their input through
// its strides) computes the gradient of each memory location and splits it
// among the elements that share it (PyTorch's Note [as_strided Backward and
// layout-aware/agnostic autograd], torch/csrc/autograd/FunctionsManual.cpp).
// What is defined is the sum over the elements that share a location: a
// contiguous copy of the same values has that sum spread over its own
// elements. So such a leaf's gradients are compared location by location:
// each side's gradient summed over the elements of the variant's leaf that
// share a location. A kernel that loses or misplaces gradient still shows;
// how a formula splits one location's gradient among its elements does not.
//
//   std::optional<at::Tensor> b = GradPerLocation(leaf, baseline_grad);
//   if (b) CompareValues(*b, *GradPerLocation(leaf, variant_grad), ...);

#ifndef DPFUZZ_ORACLES_GRAD_PER_LOCATION_H_
#define DPFUZZ_ORACLES_GRAD_PER_LOCATION_H_

#include <ATen/ATen.h>

#include <optional>

namespace dpfuzz {

// True when two elements of the strided tensor `leaf` share a memory
// location (exactly decided; too large to decide counts as false).
bool SharesMemory(const at::Tensor& leaf);

// `grad` (of `leaf`'s sizes) summed over the elements of `leaf` that share
// a memory location: a 1-d tensor of grad's dtype, one value per location
// `leaf` addresses, in address order. nullopt when no two elements of
// `leaf` share memory (SharesMemory; compare the gradients themselves),
// or when `grad` is undefined.
std::optional<at::Tensor> GradPerLocation(const at::Tensor& leaf,
                                          const at::Tensor& grad);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_GRAD_PER_LOCATION_H_
