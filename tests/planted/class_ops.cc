// Deliberately broken operators that share a layout mistake, for tests of
// mechanisms and bug classes only (TORCH_LIBRARY "planted_class"): three
// out= kernels that share one helper writing `out` as if it were
// contiguous, two kernels that read `self` as if it were contiguous, in
// memory order, one that ignores the storage offset of `self`, one that
// leaves a strided `out` unwritten, and one
// whose wrong values no layout mistake explains.
// Each op's functional (or out=) counterpart is correct, so each op's bug
// is in one variant.

#include <ATen/ATen.h>
#include <ATen/native/Resize.h>
#include <torch/library.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

namespace {

// The shared helper: fills `out` through its data pointer, row-major, as if
// it were contiguous, when its storage has room for that (else copies
// right, so that an expanded `out` never overruns its storage).
at::Tensor& WriteAsContiguous(const at::Tensor& result, at::Tensor& out) {
  at::native::resize_output(out, result.sizes());
  const at::Tensor dense = result.contiguous();
  const int64_t room = static_cast<int64_t>(out.storage().nbytes()) -
                       out.storage_offset() * out.element_size();
  if (out.scalar_type() != dense.scalar_type() ||
      room < static_cast<int64_t>(dense.nbytes())) {
    return out.copy_(result);
  }
  std::memcpy(out.data_ptr(), dense.data_ptr(), dense.nbytes());
  return out;
}

at::Tensor& NegOut(const at::Tensor& self, at::Tensor& out) {
  return WriteAsContiguous(at::neg(self), out);
}

at::Tensor& AbsOut(const at::Tensor& self, at::Tensor& out) {
  return WriteAsContiguous(at::abs(self), out);
}

at::Tensor& DoubleOut(const at::Tensor& self, at::Tensor& out) {
  return WriteAsContiguous(at::mul(self, 2), out);
}

// Computes into a contiguous temporary and copies it back only when `out`
// is contiguous: a strided `out` keeps its old values.
at::Tensor& UnwrittenNegOut(const at::Tensor& self, at::Tensor& out) {
  at::native::resize_output(out, self.sizes());
  const at::Tensor result = at::neg(self);
  if (out.is_contiguous()) out.copy_(result);
  return out;
}

// `self`'s dims sorted by stride, largest first: the order its elements
// lie in memory.
std::vector<int64_t> MemoryDimOrder(const at::Tensor& self) {
  std::vector<int64_t> order(self.dim());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return self.stride(a) > self.stride(b);
  });
  return order;
}

// `self`'s elements in the order they lie in memory, taken as row-major.
at::Tensor InMemoryOrder(const at::Tensor& self) {
  return self.permute(MemoryDimOrder(self)).contiguous().reshape(self.sizes());
}

at::Tensor MemoryOrderNeg(const at::Tensor& self) {
  return at::neg(InMemoryOrder(self));
}

at::Tensor MemoryOrderDouble(const at::Tensor& self) {
  return at::mul(InMemoryOrder(self), 2);
}

// A running sum of `self` in row-major order, but summed up in the order
// its elements lie in memory (as masked_scatter once consumed its source
// in self's memory order): right only where the two orders are one.
at::Tensor MemoryWalkCumsum(const at::Tensor& self) {
  const std::vector<int64_t> order = MemoryDimOrder(self);
  std::vector<int64_t> back(order.size());
  for (size_t i = 0; i < order.size(); ++i) back[order[i]] = i;
  const at::Tensor walked = self.permute(order).contiguous();
  return walked.reshape({-1})
      .cumsum(0)
      .view(walked.sizes())
      .permute(back)
      .contiguous();
}

// Reads `self` at its strides from its storage's start: its storage
// offset ignored.
at::Tensor OffsetBlindNeg(const at::Tensor& self) {
  return at::neg(self.as_strided(self.sizes(), self.strides(), 0));
}

// Wrong on every non-contiguous input by a value no layout explains: its
// first element is off by one.
at::Tensor SkewedNeg(const at::Tensor& self) {
  at::Tensor out = at::neg(self).contiguous();
  if (!self.is_contiguous() && out.numel() > 0) {
    out.view({-1}).narrow(0, 0, 1).add_(1);
  }
  return out;
}

at::Tensor Neg(const at::Tensor& self) { return at::neg(self); }
at::Tensor Abs(const at::Tensor& self) { return at::abs(self); }
at::Tensor Double(const at::Tensor& self) { return at::mul(self, 2); }

}  // namespace

TORCH_LIBRARY(planted_class, m) {
  m.def("contig_out_neg(Tensor self) -> Tensor", Neg);
  m.def("contig_out_neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        NegOut);
  m.def("contig_out_abs(Tensor self) -> Tensor", Abs);
  m.def("contig_out_abs.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        AbsOut);
  m.def("contig_out_double(Tensor self) -> Tensor", Double);
  m.def("contig_out_double.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        DoubleOut);
  m.def("unwritten_neg(Tensor self) -> Tensor", Neg);
  m.def("unwritten_neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)",
        UnwrittenNegOut);
  m.def("memory_order_neg(Tensor self) -> Tensor", MemoryOrderNeg);
  m.def("memory_order_double(Tensor self) -> Tensor", MemoryOrderDouble);
  m.def("offset_blind_neg(Tensor self) -> Tensor", OffsetBlindNeg);
  m.def("memory_walk_cumsum(Tensor self) -> Tensor", MemoryWalkCumsum);
  m.def("skewed_neg(Tensor self) -> Tensor", SkewedNeg);
}
