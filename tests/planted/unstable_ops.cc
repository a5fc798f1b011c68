// Operators whose layouts differ only where the contiguous baseline is
// itself undefined, for tests of the oracles that tell such differences
// from layout bugs (TORCH_LIBRARY "planted_unstable"):
//  - step_at_zero: a step function whose contiguous and strided kernels
//    disagree at the step itself, as two kernels of a piecewise op may
//    (oracles/conditioning.h judges the difference ill-conditioned);
//  - tail_garbage: returns its input flattened with one more element,
//    which the strided kernel writes and the contiguous one leaves as the
//    fresh workspace held it (Note [Baselines that read unwritten memory]
//    in oracles/baseline_probes.h judges the finding a baseline failure);
//  - nan_to_zero_contiguous: relu whose contiguous kernel turns NaN into
//    0 and whose strided one keeps it, as vectorized and scalar loops may
//    (Note [Findings that need NaN] in oracles/baseline_probes.h
//    judges the finding low confidence);
//  - scaled and scaled_backward: a forward that rejects scale <= 0 and its
//    backward, which checks neither the scale nor grad_output's shape (it
//    sums grad_output down to self's) and adds 1 where grad_output is not
//    contiguous (Note [The forward decides a backward's domain] in
//    oracles/baseline_probes.h keeps that a layout bug with arguments the
//    forward accepts, and a baseline failure with others);
//  - write_past_end: writes the element after its input's last one
//    wherever the storage has room, as a kernel given arguments that do
//    not fit each other does (into a gap of a strided input; Note
//    [Baselines that read outside] sees the tail-filled baseline's tail
//    written and judges the finding a baseline failure).

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/core/grad_mode.h>
#include <torch/library.h>

namespace {

// 1 above zero and 0 below; at exactly zero 1 on the contiguous path and 0
// on the strided one.
at::Tensor StepAtZero(const at::Tensor& self) {
  const at::Tensor above = self.is_contiguous() ? self.ge(0) : self.gt(0);
  return above.to(self.scalar_type());
}

at::Tensor TailGarbage(const at::Tensor& self) {
  const int64_t n = self.numel();
  at::Tensor workspace = at::empty({n + 1}, self.options());
  workspace.narrow(0, 0, n).copy_(self.reshape({-1}));
  if (!self.is_contiguous()) workspace.narrow(0, n, 1).fill_(7);
  return workspace;
}

at::Tensor NanToZeroContiguous(const at::Tensor& self) {
  const at::Tensor relu = at::relu(self);
  return self.is_contiguous() ? at::where(at::isnan(relu), 0.0, relu) : relu;
}

at::Tensor WritePastEnd(const at::Tensor& self) {
  const int64_t end = self.storage_offset() + self.numel();
  if (self.numel() > 0 && static_cast<int64_t>(self.storage().nbytes()) >
                              end * static_cast<int64_t>(self.element_size())) {
    at::NoGradGuard no_grad;
    at::Tensor storage = at::empty({0}, self.options());
    storage.set_(self.storage(), end, {1}, {1});
    storage.fill_(42);
  }
  return at::neg(self);
}

at::Tensor Scaled(const at::Tensor& self, double scale) {
  TORCH_CHECK(scale > 0, "scaled: scale must be positive, got ", scale);
  return self * scale;
}

at::Tensor ScaledBackward(const at::Tensor& grad_output, const at::Tensor& self,
                          double scale) {
  const at::Tensor grad =
      grad_output * scale + (grad_output.is_contiguous() ? 0 : 1);
  return at::sum_to(grad, self.sizes());
}

}  // namespace

TORCH_LIBRARY(planted_unstable, m) {
  m.def("scaled(Tensor self, float scale) -> Tensor", Scaled);
  m.def(
      "scaled_backward(Tensor grad_output, Tensor self, float scale) -> Tensor",
      ScaledBackward);
  m.def("step_at_zero(Tensor self) -> Tensor", StepAtZero);
  m.def("tail_garbage(Tensor self) -> Tensor", TailGarbage);
  m.def("write_past_end(Tensor self) -> Tensor", WritePastEnd);
  m.def("nan_to_zero_contiguous(Tensor self) -> Tensor", NanToZeroContiguous);
}
