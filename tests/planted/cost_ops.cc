// Test ops for the resource oracles (TORCH_LIBRARY "planted_cost"), test
// code only: three whose layouts cost what they must not and four that
// pay what a layout may cost. Each computes -self right on every layout;
// only what it allocates or how long it takes differs.
//
// Wrong:
// - leaky_neg keeps a contiguous copy of every non-contiguous input it is
//   given in a list it never frees (a cache keyed by nothing): leak.
// - bloated_neg gives every element of an expanded input its own 16 KiB
//   workspace (a kernel that materializes the broadcast input per output
//   element): memory_amplification.
// - slow_strided_neg walks a non-contiguous input one element at a time
//   through the dispatcher (a scalar fallback for strided inputs), orders
//   of magnitude slower than its contiguous path: perf_cliff.
// Right:
// - bounded_slow_neg takes slow_strided_neg's path only for inputs of at
//   most 64 elements: microseconds lost at the sizes fuzzing draws, gone
//   as the case grows. A perf cliff must hold at two sizes scaled up to
//   a time worth measuring, which this one does not.
// - cached_neg builds a 1 MiB table on its first call and keeps it.
// - copying_neg copies a non-contiguous input to contiguous once.
// - materializing_neg materializes an expanded input once.

#include <ATen/ATen.h>
#include <torch/library.h>

#include <vector>

namespace {

bool Expanded(const at::Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.stride(d) == 0 && t.size(d) > 1) return true;
  }
  return false;
}

at::Tensor LeakyNeg(const at::Tensor& self) {
  static auto* kept = new std::vector<at::Tensor>;
  if (!self.is_contiguous()) kept->push_back(self.contiguous());
  return at::neg(self);
}

at::Tensor BloatedNeg(const at::Tensor& self) {
  if (Expanded(self)) {
    at::Tensor workspace = at::empty({self.numel(), 4096}, self.options());
    workspace.copy_(self.reshape({-1, 1}).expand({self.numel(), 4096}));
  }
  return at::neg(self);
}

at::Tensor SlowStridedNeg(const at::Tensor& self) {
  if (self.is_contiguous()) return at::neg(self);
  at::Tensor result = at::empty(self.sizes(), self.options());
  at::Tensor out = result.view({-1});
  at::Tensor in = self.reshape({-1});
  for (int64_t i = 0; i < self.numel(); ++i) {
    out.select(0, i).copy_(in.select(0, i).neg());
  }
  return result;
}

at::Tensor BoundedSlowNeg(const at::Tensor& self) {
  return self.numel() <= 64 ? SlowStridedNeg(self) : at::neg(self);
}

at::Tensor CachedNeg(const at::Tensor& self) {
  static const at::Tensor* table =
      new at::Tensor(at::zeros({1 << 18}, at::kFloat));
  (void)table;
  return at::neg(self);
}

at::Tensor CopyingNeg(const at::Tensor& self) {
  return at::neg(self.contiguous());
}

at::Tensor MaterializingNeg(const at::Tensor& self) {
  return at::neg(Expanded(self) ? self.clone(at::MemoryFormat::Contiguous)
                                : self);
}

}  // namespace

TORCH_LIBRARY(planted_cost, m) {
  m.def("leaky_neg(Tensor self) -> Tensor", LeakyNeg);
  m.def("bloated_neg(Tensor self) -> Tensor", BloatedNeg);
  m.def("slow_strided_neg(Tensor self) -> Tensor", SlowStridedNeg);
  m.def("bounded_slow_neg(Tensor self) -> Tensor", BoundedSlowNeg);
  m.def("cached_neg(Tensor self) -> Tensor", CachedNeg);
  m.def("copying_neg(Tensor self) -> Tensor", CopyingNeg);
  m.def("materializing_neg(Tensor self) -> Tensor", MaterializingNeg);
}
