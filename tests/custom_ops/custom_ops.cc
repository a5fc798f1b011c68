// A library of custom operators, as an extension author would write them,
// for the --load tests: dpfuzz knows nothing of these ops but their
// schemas (no curated spec), so it fuzzes them through the generic path.
//
// Four have planted layout bugs, in a CPU kernel, an Autograd kernel's
// backward, an out= kernel and an op that exists only in place (scale_);
// the good_* ops are correct and must never be reported; cuda_only has a
// CUDA kernel only, so a CPU campaign leaves it out. Test code only: a
// shared library of its own, loaded with
// --load, never linked into dpfuzz.

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <cstring>

namespace {

// mismatch: reads `other` as if it were contiguous from its data pointer.
at::Tensor ScaledAdd(const at::Tensor& self, const at::Tensor& other,
                     double alpha) {
  TORCH_CHECK(
      self.scalar_type() == at::kFloat && other.scalar_type() == at::kFloat,
      "scaled_add: float only");
  TORCH_CHECK(self.sizes() == other.sizes(), "scaled_add: sizes differ");
  at::Tensor out = self.contiguous().clone();
  const float* o = other.data_ptr<float>();
  float* r = out.data_ptr<float>();
  for (int64_t i = 0; i < out.numel(); ++i) r[i] += alpha * o[i];
  return out;
}

at::Tensor GoodScaledAdd(const at::Tensor& self, const at::Tensor& other,
                         double alpha) {
  TORCH_CHECK(self.sizes() == other.sizes(), "good_scaled_add: sizes differ");
  return at::add(self, other, alpha);
}

// square: a correct CPU kernel; its Autograd kernel's backward reads
// grad_output from the start of its storage, ignoring strides and offset
// (grad_mismatch).
at::Tensor SquareCpu(const at::Tensor& self) { return self * self; }

at::Tensor CallSquareBelowAutograd(const at::Tensor& self) {
  static const c10::OperatorHandle op =
      c10::Dispatcher::singleton().findSchemaOrThrow("dpfuzz_custom::square",
                                                     "");
  at::AutoDispatchBelowADInplaceOrView guard;
  return op.typed<at::Tensor(const at::Tensor&)>().call(self);
}

class SquareFunction : public torch::autograd::Function<SquareFunction> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx,
                            const at::Tensor& self) {
    ctx->save_for_backward({self});
    return CallSquareBelowAutograd(self);
  }
  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext* ctx,
      torch::autograd::variable_list grads) {
    const at::Tensor self = ctx->get_saved_variables()[0];
    const at::Tensor& g = grads[0];
    if (g.scalar_type() != at::kFloat || g.numel() == 0) {
      return {2 * self * g};
    }
    at::Tensor flat = at::empty(g.sizes(), g.options());
    const int64_t extent = g.storage().nbytes() / g.element_size();
    const float* in = static_cast<const float*>(g.storage().data());
    float* o = flat.data_ptr<float>();
    for (int64_t i = 0; i < g.numel(); ++i) o[i] = in[i % extent];
    return {2 * self * flat};
  }
};

at::Tensor SquareAutograd(const at::Tensor& self) {
  return SquareFunction::apply(self);
}

// twice: a correct functional kernel; its out= kernel writes the result
// contiguously from out's data pointer, whatever out's strides (mismatch
// or outside_write).
at::Tensor Twice(const at::Tensor& self) { return self * 2; }

at::Tensor& TwiceOut(const at::Tensor& self, at::Tensor& out) {
  TORCH_CHECK(
      self.scalar_type() == at::kFloat && out.scalar_type() == at::kFloat,
      "twice.out: float only");
  TORCH_CHECK(out.sizes() == self.sizes(), "twice.out: wrong out size");
  const at::Tensor dense = (self * 2).contiguous();
  std::memcpy(out.data_ptr(), dense.data_ptr(), dense.nbytes());
  return out;
}

at::Tensor GoodTwice(const at::Tensor& self) { return self * 2; }

at::Tensor& GoodTwiceOut(const at::Tensor& self, at::Tensor& out) {
  return at::mul_out(out, self, at::scalar_tensor(2, self.options()));
}

// scale_: exists only in place (no functional scale); writes the scaled
// values contiguously from x's data pointer, whatever x's strides.
at::Tensor& Scale(at::Tensor& x, double factor) {
  TORCH_CHECK(x.scalar_type() == at::kFloat, "scale_: float only");
  const at::Tensor dense = (x * factor).contiguous();
  std::memcpy(x.data_ptr(), dense.data_ptr(), dense.nbytes());
  return x;
}

at::Tensor& GoodScale(at::Tensor& x, double factor) { return x.mul_(factor); }

// cuda_only: a kernel for CUDA tensors and none for the CPU's, as
// cudnn_* ops have; dpfuzz must not draw it on the CPU.
at::Tensor CudaOnly(const at::Tensor& self) { return self.clone(); }

}  // namespace

TORCH_LIBRARY(dpfuzz_custom, m) {
  m.def("scaled_add(Tensor self, Tensor other, float alpha=1) -> Tensor");
  m.def("good_scaled_add(Tensor self, Tensor other, float alpha=1) -> Tensor");
  m.def("square(Tensor self) -> Tensor");
  m.def("twice(Tensor self) -> Tensor");
  m.def("twice.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  m.def("good_twice(Tensor self) -> Tensor");
  m.def("good_twice.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  m.def("scale_(Tensor(a!) x, float factor) -> Tensor(a!)");
  m.def("good_scale_(Tensor(a!) x, float factor) -> Tensor(a!)");
  m.def("cuda_only(Tensor self) -> Tensor");
}

TORCH_LIBRARY_IMPL(dpfuzz_custom, CPU, m) {
  m.impl("scaled_add", TORCH_FN(ScaledAdd));
  m.impl("good_scaled_add", TORCH_FN(GoodScaledAdd));
  m.impl("square", TORCH_FN(SquareCpu));
  m.impl("twice", TORCH_FN(Twice));
  m.impl("twice.out", TORCH_FN(TwiceOut));
  m.impl("good_twice", TORCH_FN(GoodTwice));
  m.impl("good_twice.out", TORCH_FN(GoodTwiceOut));
  m.impl("scale_", TORCH_FN(Scale));
  m.impl("good_scale_", TORCH_FN(GoodScale));
}

TORCH_LIBRARY_IMPL(dpfuzz_custom, CUDA, m) {
  m.impl("cuda_only", TORCH_FN(CudaOnly));
}

TORCH_LIBRARY_IMPL(dpfuzz_custom, Autograd, m) {
  m.impl("square", TORCH_FN(SquareAutograd));
}
