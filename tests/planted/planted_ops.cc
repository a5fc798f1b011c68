// Deliberately broken operators, for tests only.
//
// Each op in the `planted` namespace mishandles one aspect of layout the way
// real kernels have: it ignores strides, offsets, channels_last, a strided
// grad_output or its out= tensor. dpfuzz must find each one, with the
// verdict named beside it; the `good_*` ops are correct and must never be
// reported. Built as a shared library of its own (dpfuzz_planted_ops) so
// that the product never contains it.

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <ATen/native/Resize.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace {

// mismatch: fills its channels_last-preserving result in NCHW order.
at::Tensor ClScramble(const at::Tensor& self) {
  at::Tensor dense = self.contiguous();
  at::Tensor out = at::empty_like(self);  // Preserves channels_last...
  // ...but is filled as if it were row-major.
  std::memcpy(out.data_ptr(), dense.data_ptr(), dense.nbytes());
  return out;
}

// nan_introduced: negates element i of data_ptr()[i], ignoring strides.
at::Tensor FlatNeg(const at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() == at::kFloat, "flat_neg: float only");
  at::Tensor out = at::empty(self.sizes(), self.options());
  const float* in = self.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < self.numel(); ++i) o[i] = -in[i];
  return out;
}

// rejection_mismatch: refuses what it could handle.
at::Tensor PickyNeg(const at::Tensor& self) {
  TORCH_CHECK(self.is_contiguous(), "picky_neg: expected a contiguous tensor");
  return at::neg(self);
}

// internal_assert: asserts something callers never promised.
at::Tensor AssertingNeg(const at::Tensor& self) {
  TORCH_INTERNAL_ASSERT(self.storage_offset() == 0, "asserting_neg: offset");
  return at::neg(self);
}

// input_modified: "normalizes" a non-contiguous input in place.
at::Tensor SneakyNeg(const at::Tensor& self) {
  if (!self.is_contiguous() && self.numel() > 0) {
    at::NoGradGuard no_grad;
    const_cast<at::Tensor&>(self).zero_();
  }
  return at::neg(self);
}

// input_modified, slowly: sneaky_neg with every call taking 0.1 s, so
// that reducing a finding takes longer than a short campaign has left.
at::Tensor SlowSneakyNeg(const at::Tensor& self) {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  return SneakyNeg(self);
}

// outside_write: in place, walks numel() elements from data_ptr() as if
// the view were dense, so a strided self has its gaps overwritten.
at::Tensor& FlatFillOne(at::Tensor& self) {
  TORCH_CHECK(self.scalar_type() == at::kFloat, "flat_fill_one_: float only");
  float* p = self.data_ptr<float>();
  for (int64_t i = 0; i < self.numel(); ++i) p[i] = 1.0f;
  return self;
}

// layout_contract: out= that always hands back fresh memory.
at::Tensor& ReallocNegOut(const at::Tensor& self, at::Tensor& out) {
  out.set_(at::neg(self));
  return out;
}

// grad_mismatch: correct forward (2x); backward reads grad_output as if
// it were contiguous.
class BadGradDouble : public torch::autograd::Function<BadGradDouble> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext*,
                            const at::Tensor& x) {
    return x * 2;
  }
  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext*, torch::autograd::variable_list grads) {
    const at::Tensor& g = grads[0];
    at::Tensor out = at::empty(g.sizes(), g.options());
    const int64_t extent =
        g.numel() == 0 ? 0 : g.storage().nbytes() / g.element_size();
    if (g.scalar_type() == at::kFloat && g.numel() > 0) {
      const float* in = static_cast<const float*>(g.storage().data());
      float* o = out.data_ptr<float>();
      for (int64_t i = 0; i < g.numel(); ++i) o[i] = 2 * in[i % extent];
    } else {
      out = g * 2;
    }
    return {out};
  }
};

at::Tensor BadGradDoubleOp(const at::Tensor& x) {
  return BadGradDouble::apply(x);
}

// Ops that take their process down, each on one class of layout (never on
// the contiguous baseline): the supervisor must survive them.

// crash (SIGSEGV): dereferences null on a non-contiguous input.
at::Tensor SegvNeg(const at::Tensor& self) {
  if (!self.is_contiguous() && self.numel() > 1) {
    volatile float* volatile nowhere = nullptr;
    *nowhere = 1.0f;
  }
  return at::neg(self);
}

// crash (SIGABRT): aborts on a non-zero storage offset.
at::Tensor AbortNeg(const at::Tensor& self) {
  if (self.storage_offset() > 0) std::abort();
  return at::neg(self);
}

// timeout: never returns for an input with gaps, zero strides or overlap.
at::Tensor HangNeg(const at::Tensor& self) {
  while (self.numel() > 1 && !self.is_non_overlapping_and_dense()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return at::neg(self);
}

// oom: on a dense but permuted input, allocates and touches memory without
// end (up to 4 GiB, then waits to be killed).
at::Tensor HogNeg(const at::Tensor& self) {
  if (!self.is_contiguous() && self.is_non_overlapping_and_dense()) {
    static std::vector<std::unique_ptr<char[]>> hoard;
    constexpr size_t kChunk = size_t{64} << 20;
    for (;;) {
      if (hoard.size() * kChunk < (size_t{4} << 30)) {
        hoard.emplace_back(new char[kChunk]);
        std::memset(hoard.back().get(), 1, kChunk);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  return at::neg(self);
}

// Ops right on the CPU and wrong on CUDA. Their CUDA kernels are host code
// calling ATen on CUDA tensors, so they build with any LibTorch (a CPU-only
// one never dispatches to them).

// device_mismatch: on CUDA the first element of the result is off by one,
// whatever the layout, so that only the CPU-vs-CUDA oracle sees it.
at::Tensor DeviceSkewCpu(const at::Tensor& self) { return at::neg(self); }

at::Tensor DeviceSkewCuda(const at::Tensor& self) {
  at::Tensor out = at::neg(self).contiguous();
  if (out.numel() > 0) out.view({-1}).narrow(0, 0, 1).add_(1);
  return out;
}

// crash (a sticky device error): on CUDA, a non-contiguous input makes it
// read past the end through advanced indexing, whose bounds check is a
// device-side assert reported asynchronously. Contiguous inputs are right.
at::Tensor DeviceAssertCuda(const at::Tensor& self) {
  if (self.is_contiguous()) return at::neg(self);
  const at::Tensor flat = self.reshape({-1});
  const at::Tensor past_end =
      at::full({1}, flat.numel() + 7, self.options().dtype(at::kLong));
  return at::neg(self) + flat.index({past_end}).sum();
}

// Correct ops: never reported.
at::Tensor GoodNeg(const at::Tensor& self) { return at::neg(self); }

// layout_contract (drops_memory_format) where its spec says it keeps its
// input's memory format: right values, always returned contiguous.
at::Tensor ClDropNeg(const at::Tensor& self) {
  return at::neg(self).contiguous();
}

// A result on the meta device, which has no memory: reading its values (as
// dpfuzz's oracles do with results) throws outside the op call.
at::Tensor MetaNeg(const at::Tensor& self) {
  return at::empty(self.sizes(), self.options().device(at::kMeta));
}

// Returns a tensor over memory nobody owns: the op returns normally and
// whoever reads the result (dpfuzz's oracles, outside the op call) dies,
// whatever the input's layout.
at::Tensor DanglingNeg(const at::Tensor& self) {
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the point of the op.
  return at::from_blob(reinterpret_cast<void*>(uintptr_t{16}), self.sizes(),
                       self.options());
}

// Computes before writing, so it is right even when out shares memory with
// self (at::neg_out is not: TensorIterator cannot rule out every overlap).
at::Tensor& GoodNegOut(const at::Tensor& self, at::Tensor& out) {
  const at::Tensor result = at::neg(self);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

at::Tensor& GoodNegInplace(at::Tensor& self) { return self.neg_(); }

// Nondeterministic by design, with no random word in its name and no tag:
// adds how many times it has been called. Only the generic path's
// determinism check (two baseline runs) can tell; it must never be
// reported as a value mismatch.
at::Tensor CounterAdd(const at::Tensor& self) {
  static int64_t calls = 0;
  return self + (++calls);
}

}  // namespace

TORCH_LIBRARY(planted, m) {
  m.def("cl_scramble(Tensor self) -> Tensor", ClScramble);
  m.def("flat_neg(Tensor self) -> Tensor", FlatNeg);
  m.def("picky_neg(Tensor self) -> Tensor", PickyNeg);
  m.def("asserting_neg(Tensor self) -> Tensor", AssertingNeg);
  m.def("sneaky_neg(Tensor self) -> Tensor", SneakyNeg);
  m.def("slow_sneaky_neg(Tensor self) -> Tensor", SlowSneakyNeg);
  m.def("flat_fill_one(Tensor self) -> Tensor",
        [](const at::Tensor& self) { return at::ones_like(self); });
  m.def("flat_fill_one_(Tensor(a!) self) -> Tensor(a!)", FlatFillOne);
  m.def("realloc_neg(Tensor self) -> Tensor", GoodNeg);
  m.def("realloc_neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        ReallocNegOut);
  m.def("bad_grad_double(Tensor self) -> Tensor");
  m.impl("bad_grad_double", c10::DispatchKey::CompositeImplicitAutograd,
         TORCH_FN(BadGradDoubleOp));
  m.def("segv_neg(Tensor self) -> Tensor", SegvNeg);
  m.def("abort_neg(Tensor self) -> Tensor", AbortNeg);
  m.def("hang_neg(Tensor self) -> Tensor", HangNeg);
  m.def("hog_neg(Tensor self) -> Tensor", HogNeg);
  m.def("good_neg(Tensor self) -> Tensor", GoodNeg);
  m.def("cl_drop_neg(Tensor self) -> Tensor", ClDropNeg);
  m.def("cl_keep_neg(Tensor self) -> Tensor", GoodNeg);
  m.def("meta_neg(Tensor self) -> Tensor", MetaNeg);
  m.def("dangling_neg(Tensor self) -> Tensor", DanglingNeg);
  m.def("good_neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        GoodNegOut);
  m.def("good_neg_(Tensor(a!) self) -> Tensor(a!)", GoodNegInplace);
  m.def("counter_add(Tensor self) -> Tensor", CounterAdd);
  m.def("device_skew(Tensor self) -> Tensor");
  m.impl("device_skew", c10::DispatchKey::CPU, TORCH_FN(DeviceSkewCpu));
  m.impl("device_skew", c10::DispatchKey::CUDA, TORCH_FN(DeviceSkewCuda));
  m.def("device_assert_neg(Tensor self) -> Tensor");
  m.impl("device_assert_neg", c10::DispatchKey::CPU, TORCH_FN(GoodNeg));
  m.impl("device_assert_neg", c10::DispatchKey::CUDA,
         TORCH_FN(DeviceAssertCuda));
}
