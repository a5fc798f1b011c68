// Correct operators that are hard to judge, for tests only: dpfuzz must
// never report them: a finding on one is dpfuzz's false alarm.
//
// Each op in the `correct` namespace is right for every layout, but does
// something a naive differential oracle mistakes for a bug: it returns
// another dtype than it takes, accumulates in its own low precision in an
// order that depends on the layout (and may overflow in one order only),
// returns random values, takes another path by grad mode, reads past an
// argument that does not fit the others, updates an argument in place by design
// without a schema annotation, or writes its out= element by element while it
// reads (right unless out shares memory with self, which PyTorch leaves
// undefined). One control is wrong on purpose (flat_running_update), to show
// that the contract rule that excuses the update does not hide a wrong one.
// Built into the planted op library (dpfuzz_planted_ops), never into the
// product.

#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <ATen/core/grad_mode.h>
#include <ATen/native/Resize.h>
#include <torch/autograd.h>
#include <torch/library.h>

#include <vector>

namespace {

// Mixed dtypes: half and bfloat16 in, float32 out (float32 in, float64
// out), a running sum along the last dim in the wide dtype. Composite, so
// autograd gives the gradient in the input's dtype.
at::Tensor WidenCumsum(const at::Tensor& self) {
  const at::ScalarType wide =
      self.scalar_type() == at::kDouble || self.scalar_type() == at::kFloat
          ? at::kDouble
          : at::kFloat;
  at::Tensor w = self.to(wide);
  return w.dim() == 0 ? w : w.cumsum(-1);
}

// Sums each row of `x` (contiguous, reduced dim last) into `out`, rounding
// to scalar_t at every step: forward one by one, or pairwise from the end.
template <typename scalar_t>
void SumRows(const at::Tensor& x, at::Tensor& out, bool forward) {
  const int64_t n = x.size(-1);
  const int64_t rows = n == 0 ? out.numel() : x.numel() / n;
  const scalar_t* in = x.data_ptr<scalar_t>();
  scalar_t* o = out.data_ptr<scalar_t>();
  std::vector<scalar_t> level(n);
  for (int64_t r = 0; r < rows; ++r) {
    const scalar_t* row = in + r * n;
    if (forward) {
      scalar_t acc = 0;
      for (int64_t i = 0; i < n; ++i) acc = acc + row[i];
      o[r] = acc;
      continue;
    }
    for (int64_t i = 0; i < n; ++i) level[i] = row[n - 1 - i];
    int64_t m = n;
    while (m > 1) {
      for (int64_t i = 0; i < m / 2; ++i) {
        level[i] = level[2 * i] + level[2 * i + 1];
      }
      if (m % 2 == 1) level[m / 2] = level[m - 1];
      m = (m + 1) / 2;
    }
    o[r] = m == 1 ? level[0] : scalar_t(0);
  }
}

// A sum over `dim` of self * scale, accumulated in self's own dtype in an
// order its layout picks: one by one when the dim is unit-strided, else
// pairwise from the end. Both orders are correct within floating point; in
// half, a large `scale` makes one of them overflow where the other does
// not.
at::Tensor OrderSum(const at::Tensor& self, int64_t dim, double scale) {
  TORCH_CHECK(self.dim() > 0, "order_sum: expected a tensor with dims");
  dim = c10::maybe_wrap_dim(dim, self.dim());
  const bool forward = self.stride(dim) == 1;
  const at::Tensor x = self.mul(scale).movedim(dim, -1).contiguous();
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes.pop_back();
  at::Tensor out = at::empty(sizes, x.options());
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(),
                                  "order_sum",
                                  [&] { SumRows<scalar_t>(x, out, forward); });
  return out;
}

// Random values, deterministic shape: self plus uniform noise.
// Another path by grad mode, as some kernels take one (cumprod_backward: a
// formula autograd can differentiate again while grad mode is on, a cheaper
// one while it is off, which round otherwise): here self + 1 with grad mode
// on and self + 2 with it off, both right by this op's contract. A
// differential check that runs its two sides under different grad modes
// compares two paths, not two layouts.
at::Tensor GradModePath(const at::Tensor& self) {
  return self + (at::GradMode::is_enabled() ? 1 : 2);
}

at::Tensor Noisy(const at::Tensor& self) { return self + at::rand_like(self); }

// self times weight[c] along self's last dim, weight read through its
// stride, and never a check that weight has the last dim's size: right for
// every layout of arguments that fit, reading past weight's end for ones
// that do not (as ATen's CPU batch norm does with a short weight). dpfuzz
// must call those baseline failures, not layout bugs.
at::Tensor UncheckedScale(const at::Tensor& self, const at::Tensor& weight) {
  TORCH_CHECK(self.scalar_type() == at::kFloat &&
                  weight.scalar_type() == at::kFloat && self.dim() >= 1 &&
                  weight.dim() == 1 && weight.numel() > 0,
              "unchecked_scale: float self of rank >= 1, non-empty 1-d float "
              "weight");
  const at::Tensor x = self.contiguous();
  at::Tensor out = at::empty_like(x);
  const int64_t channels = x.size(-1), step = weight.stride(0);
  const float* w = weight.data_ptr<float>();
  const float* in = x.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) {
    o[i] = in[i] * w[(i % channels) * step];
  }
  return out;
}

// Centres `input` on its mean over dim 0 and updates `running_mean` in
// place with that mean, by design and without a "!" in its schema, as the
// batch norms do with their running statistics.
at::Tensor RunningUpdate(const at::Tensor& input,
                         const at::Tensor& running_mean, double momentum) {
  const at::Tensor mean = input.mean(0);
  at::Tensor alias = running_mean;  // Written through a const reference.
  alias.mul_(1 - momentum).add_(mean, momentum);
  return input - mean;
}

// The control, the one wrong op here: the same update written as if
// running_mean were contiguous. A strided running_mean gets it in the
// wrong places, which dpfuzz must still find under the contract rule.
at::Tensor FlatRunningUpdate(const at::Tensor& input,
                             const at::Tensor& running_mean, double momentum) {
  TORCH_CHECK(running_mean.scalar_type() == at::kFloat,
              "flat_running_update: float only");
  const at::Tensor mean = input.mean(0).contiguous();
  const at::Tensor old = running_mean.contiguous();
  float* out = static_cast<float*>(running_mean.data_ptr());
  for (int64_t i = 0; i < running_mean.numel(); ++i) {
    out[i] = static_cast<float>((1 - momentum) * old.data_ptr<float>()[i] +
                                momentum * mean.data_ptr<float>()[i]);
  }
  return input - mean;
}

// -self with every dim reversed.
at::Tensor ReverseNeg(const at::Tensor& self) {
  std::vector<int64_t> dims(self.dim());
  for (int64_t d = 0; d < self.dim(); ++d) dims[d] = d;
  return at::neg(self).flip(dims);
}

// The same, written into out element by element through both tensors'
// strides, reading self as it goes: right for any layout of either, but an
// out over self's memory overwrites elements before they are read.
at::Tensor& ReverseNegOut(const at::Tensor& self, at::Tensor& out) {
  at::native::resize_output(out, self.sizes());
  const int64_t numel = self.numel();
  AT_DISPATCH_ALL_TYPES_AND_COMPLEX_AND2(
      at::kHalf, at::kBFloat16, self.scalar_type(), "reverse_neg_out", [&] {
        const scalar_t* in = self.data_ptr<scalar_t>();
        scalar_t* o = out.data_ptr<scalar_t>();
        for (int64_t k = 0; k < numel; ++k) {
          int64_t rest = k, at_in = 0, at_out = 0;
          for (int64_t d = self.dim() - 1; d >= 0; --d) {
            const int64_t i = rest % self.size(d);
            rest /= self.size(d);
            at_out += i * out.stride(d);
            at_in += (self.size(d) - 1 - i) * self.stride(d);
          }
          o[at_out] = -in[at_in];
        }
      });
  return out;
}

// A backward that leaves most of its gradient unwritten, as a private
// op's kernel does when given an argument of a shape it does not expect
// (_weight_norm's backward with a `g` of the wrong rank): the gradient's
// first element is right, the others hold whatever the memory held, here
// a new pseudo-random value in the millions at each call, so that no two
// runs agree. Its forward is right for every layout: no layout bug (Note
// [Unsteady baseline gradients]).
class UnsteadyGrad : public torch::autograd::Function<UnsteadyGrad> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext*,
                            const at::Tensor& x) {
    return x * 2;
  }
  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext*, torch::autograd::variable_list grads) {
    static uint64_t state = 1;
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double garbage = static_cast<double>(state >> 40) - 8e6;
    at::Tensor out = at::full(grads[0].sizes(), garbage, grads[0].options());
    if (out.numel() > 0) {
      out.view(-1).narrow(0, 0, 1).copy_(grads[0].reshape(-1).narrow(0, 0, 1) *
                                         2);
    }
    return {out};
  }
};

at::Tensor UnsteadyGradOp(const at::Tensor& x) {
  return UnsteadyGrad::apply(x);
}

}  // namespace

TORCH_LIBRARY(correct, m) {
  m.def("widen_cumsum(Tensor self) -> Tensor");
  m.impl("widen_cumsum", c10::DispatchKey::CompositeImplicitAutograd,
         TORCH_FN(WidenCumsum));
  m.def("order_sum(Tensor self, int dim, float scale) -> Tensor", OrderSum);
  m.def("noisy(Tensor self) -> Tensor", Noisy);
  m.def("grad_mode_path(Tensor self) -> Tensor", GradModePath);
  m.def("unsteady_grad(Tensor self) -> Tensor");
  m.impl("unsteady_grad", c10::DispatchKey::CompositeImplicitAutograd,
         TORCH_FN(UnsteadyGradOp));
  m.def("reverse_neg(Tensor self) -> Tensor", ReverseNeg);
  m.def("reverse_neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        ReverseNegOut);
  m.def("unchecked_scale(Tensor self, Tensor weight) -> Tensor",
        UncheckedScale);
  m.def(
      "running_update(Tensor input, Tensor running_mean, float momentum)"
      " -> Tensor",
      RunningUpdate);
  m.def(
      "flat_running_update(Tensor input, Tensor running_mean, float momentum)"
      " -> Tensor",
      FlatRunningUpdate);
}
