// Nested-tensor test ops (TORCH_LIBRARY "planted_nested"), test code only.
//
// buffer_relu has the bug the data-path study describes for nested kernels:
// it reads the nested buffer as if every component were contiguous and in
// order, ignoring the components' strides and offsets, so it is right on
// a contiguous nested tensor and silently wrong after a transpose.
// good_relu does the same job correctly, component by component. Both are
// registered for NestedTensorCPU only, as a nested kernel of a custom op
// is (TORCH_LIBRARY_IMPL(ns, NestedTensorCPU, m)). grad_buffer_double has
// the same bug in its backward, for a strided grad_output; good_double
// not.

#include <ATen/ATen.h>
#include <torch/csrc/autograd/custom_function.h>
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

// Doubling with a derivative of its own: grad_buffer_double's backward
// reads the grad_output's buffer as if its components were dense and in
// order, so its gradients are wrong for a strided grad_output (the nested
// gradient bug of the data-path study); good_double's backward is right.
at::Tensor ComponentsTimesTwo(const at::Tensor& t) {
  std::vector<at::Tensor> parts;
  for (const at::Tensor& component : t.unbind()) parts.push_back(component * 2);
  return at::_nested_tensor_from_tensor_list(parts);
}

at::Tensor BufferTimesTwo(const at::Tensor& t) {
  int64_t numel = 0;
  for (const at::Tensor& component : t.unbind()) numel += component.numel();
  const at::Tensor flat =
      at::empty({0}, at::TensorOptions().dtype(t.scalar_type()))
          .set_(t.storage(), 0, {numel}, {1});
  return NestedLike(t, flat * 2);
}

template <bool kReadsBuffer>
class NestedDouble
    : public torch::autograd::Function<NestedDouble<kReadsBuffer>> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext*,
                            const at::Tensor& x) {
    return ComponentsTimesTwo(x);
  }
  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext*, torch::autograd::variable_list grads) {
    return {kReadsBuffer ? BufferTimesTwo(grads[0])
                         : ComponentsTimesTwo(grads[0])};
  }
};

at::Tensor GradBufferDouble(const at::Tensor& x) {
  return NestedDouble<true>::apply(x);
}

at::Tensor GoodDouble(const at::Tensor& x) {
  return NestedDouble<false>::apply(x);
}

}  // namespace

TORCH_LIBRARY(planted_nested, m) {
  m.def("buffer_relu(Tensor self) -> Tensor");
  m.def("good_relu(Tensor self) -> Tensor");
  m.def("grad_buffer_double(Tensor self) -> Tensor");
  m.def("good_double(Tensor self) -> Tensor");
}

// The doubling ops differentiate themselves (torch::autograd::Function),
// below autograd's nested key.
TORCH_LIBRARY_IMPL(planted_nested, CompositeImplicitAutograd, m) {
  m.impl("grad_buffer_double", GradBufferDouble);
  m.impl("good_double", GoodDouble);
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
