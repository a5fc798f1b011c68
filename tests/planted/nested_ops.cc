// Nested-tensor test ops (TORCH_LIBRARY "planted_nested"), test code only.
//
// buffer_relu has the bug the data-path study describes for nested kernels:
// it reads the nested buffer as if every component were contiguous and in
// order, ignoring the components' strides and offsets, so it is right on
// a contiguous nested tensor and silently wrong after a transpose.
// good_relu does the same job correctly, component by component. Both are
// registered for NestedTensorCPU only, as a nested kernel of a custom op
// is (TORCH_LIBRARY_IMPL(ns, NestedTensorCPU, m)).

#include <ATen/ATen.h>
#include <torch/library.h>

#include <cstdint>
#include <vector>

namespace {

// Components of `self`'s sizes cut, in order, from `flat`.
at::Tensor NestedLike(const at::Tensor& self, const at::Tensor& flat) {
  std::vector<at::Tensor> parts;
  int64_t at = 0;
  for (const at::Tensor& component : self.unbind()) {
    parts.push_back(
        flat.narrow(0, at, component.numel()).view(component.sizes()));
    at += component.numel();
  }
  return at::_nested_tensor_from_tensor_list(parts);
}

at::Tensor BufferRelu(const at::Tensor& self) {
  int64_t numel = 0;
  for (const at::Tensor& component : self.unbind()) numel += component.numel();
  // The storage from its start, as if it held the components densely.
  const at::Tensor flat =
      at::empty({0}, at::TensorOptions().dtype(self.scalar_type()))
          .set_(self.storage(), 0, {numel}, {1});
  return NestedLike(self, at::relu(flat));
}

at::Tensor GoodRelu(const at::Tensor& self) {
  std::vector<at::Tensor> parts;
  for (const at::Tensor& component : self.unbind()) {
    parts.push_back(at::relu(component));
  }
  return at::_nested_tensor_from_tensor_list(parts);
}

}  // namespace

TORCH_LIBRARY(planted_nested, m) {
  m.def("buffer_relu(Tensor self) -> Tensor");
  m.def("good_relu(Tensor self) -> Tensor");
}

TORCH_LIBRARY_IMPL(planted_nested, NestedTensorCPU, m) {
  m.impl("buffer_relu", BufferRelu);
  m.impl("good_relu", GoodRelu);
}

// No backward: autograd passes the calls through to the nested kernels.
TORCH_LIBRARY_IMPL(planted_nested, AutogradNestedTensor, m) {
  m.impl("buffer_relu", torch::CppFunction::makeFallthrough());
  m.impl("good_relu", torch::CppFunction::makeFallthrough());
}
