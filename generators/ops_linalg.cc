// Curated specs: linear algebra (mm, bmm, matmul, addmm, linalg_solve,
// linalg_householder_product, linalg_cross).
//
// Matrix products accumulate, so everything here is compared with
// tolerance. linalg_solve gets finite, small-integer or dyadic matrices,
// which are singular rarely enough; a singular one is a rejection, not a
// finding.

#include <utility>

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

OpSpec Linalg(std::string op, std::string out, bool inplace,
              std::vector<DType> dtypes,
              std::function<std::vector<Argument>(Rng&, DType)> make) {
  return OpSpec{.op = std::move(op),
                .overload = "",
                .out_overload = std::move(out),
                .has_inplace = inplace,
                .family = "linalg",
                .differentiable = true,
                .comparison = Comparison::kTolerance,
                .dtypes = std::move(dtypes),
                .make_args = std::move(make)};
}

// f32, f64, c64, c128: what LAPACK-backed ops accept.
std::vector<DType> LapackDTypes() {
  return {DType::kFloat32, DType::kFloat64, DType::kComplex64,
          DType::kComplex128};
}

// "addmm_impl_cpu_" and "bmm" have no Bool or Half kernels on CPU.
std::vector<DType> MatmulDTypes() {
  return Except(NumericDTypes(), {DType::kFloat16});
}

// A matrix dim: 0 now and then, else 1-4.
int64_t MatrixSize(Rng& rng) { return rng.OneIn(10) ? 0 : rng.Uniform(1, 4); }

Dims Concat(Dims a, const Dims& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

std::vector<Argument> MmArgs(Rng& rng, DType dtype) {
  const int64_t n = MatrixSize(rng), k = MatrixSize(rng), m = MatrixSize(rng);
  return {Arg("self", Values({n, k}, dtype, rng)),
          Arg("mat2", Values({k, m}, dtype, rng))};
}

std::vector<Argument> BmmArgs(Rng& rng, DType dtype) {
  const int64_t b = rng.Uniform(0, 3);
  const int64_t n = MatrixSize(rng), k = MatrixSize(rng), m = MatrixSize(rng);
  return {Arg("self", Values({b, n, k}, dtype, rng)),
          Arg("mat2", Values({b, k, m}, dtype, rng))};
}

// Vector and matrix operands with broadcast batch dims: every matmul path.
std::vector<Argument> MatmulArgs(Rng& rng, DType dtype) {
  const int64_t n = MatrixSize(rng), k = MatrixSize(rng), m = MatrixSize(rng);
  Dims batch_a = RandomShape(rng, 0, 2, 3);
  Dims batch_b = BroadcastPartner(batch_a, rng);
  if (rng.OneIn(2)) std::swap(batch_a, batch_b);
  const Dims a = rng.OneIn(5) ? Dims{k} : Concat(batch_a, {n, k});
  const Dims b = rng.OneIn(5) ? Dims{k} : Concat(batch_b, {k, m});
  return {Arg("self", Values(a, dtype, rng)),
          Arg("other", Values(b, dtype, rng))};
}

std::vector<Argument> AddmmArgs(Rng& rng, DType dtype) {
  const int64_t n = MatrixSize(rng), k = MatrixSize(rng), m = MatrixSize(rng);
  const Dims self = rng.OneIn(3) ? BroadcastPartner({n, m}, rng) : Dims{n, m};
  std::vector<Argument> args = {Arg("self", Values(self, dtype, rng)),
                                Arg("mat1", Values({n, k}, dtype, rng)),
                                Arg("mat2", Values({k, m}, dtype, rng))};
  if (rng.OneIn(2)) args.push_back(Arg("beta", ScalarFor(dtype, rng)));
  if (rng.OneIn(2)) args.push_back(Arg("alpha", ScalarFor(dtype, rng)));
  return args;
}

std::vector<Argument> SolveArgs(Rng& rng, DType dtype) {
  const int64_t n = rng.Uniform(1, 4);
  const int64_t k = rng.Uniform(1, 3);
  Dims batch_a = RandomShape(rng, 0, 1, 2, /*allow_empty=*/false);
  Dims batch_b = BroadcastPartner(batch_a, rng);
  if (rng.OneIn(2)) std::swap(batch_a, batch_b);
  const bool left = !rng.OneIn(3);
  std::vector<Argument> args = {
      Arg("A", FiniteValues(Concat(batch_a, {n, n}), dtype, rng)),
      Arg("B", FiniteValues(Concat(batch_b, left ? Dims{n, k} : Dims{k, n}),
                            dtype, rng))};
  if (!left || rng.OneIn(2)) args.push_back(Arg("left", left));
  return args;
}

// input [*, m, n] and tau [*, k] with m >= n >= k, one batch shape.
std::vector<Argument> HouseholderArgs(Rng& rng, DType dtype) {
  const Dims batch = RandomShape(rng, 0, 2, 2);
  const int64_t n = rng.Uniform(0, 4);
  const int64_t m = n + rng.Uniform(0, 2);
  const int64_t k = rng.Uniform(0, n);
  return {Arg("input", Values(Concat(batch, {m, n}), dtype, rng)),
          Arg("tau", Values(Concat(batch, {k}), dtype, rng))};
}

// Two tensors of one rank with size 3 at `dim`, broadcasting elsewhere.
std::vector<Argument> CrossArgs(Rng& rng, DType dtype) {
  Dims self = RandomShape(rng, 1, 4, 3);
  const auto rank = static_cast<int64_t>(self.size());
  const int64_t dim = RandomDim(rng, rank);
  const int64_t wrapped = WrapDim(dim, rank);
  self[wrapped] = 3;
  Dims other = self;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != wrapped && rng.OneIn(3)) other[d] = 1;
  }
  if (rng.OneIn(2)) std::swap(self, other);
  std::vector<Argument> args = {Arg("self", Values(self, dtype, rng)),
                                Arg("other", Values(other, dtype, rng))};
  if (dim != -1 || rng.OneIn(2)) args.push_back(Arg("dim", dim));
  return args;
}

}  // namespace

void AddLinalgOps(std::vector<OpSpec>& ops) {
  ops.push_back(Linalg("aten::mm", "out", false, MatmulDTypes(), &MmArgs));
  ops.push_back(Linalg("aten::bmm", "out", false, MatmulDTypes(), &BmmArgs));
  ops.push_back(
      Linalg("aten::matmul", "out", false, MatmulDTypes(), &MatmulArgs));
  ops.push_back(Linalg("aten::addmm", "out", true, MatmulDTypes(), &AddmmArgs));
  ops.push_back(
      Linalg("aten::linalg_solve", "out", false, LapackDTypes(), &SolveArgs));
  ops.push_back(Linalg("aten::linalg_householder_product", "out", false,
                       LapackDTypes(), &HouseholderArgs));
  // "cross" is not implemented for 'Half'.
  ops.push_back(Linalg("aten::linalg_cross", "out", false,
                       Except(NumericDTypes(), {DType::kFloat16}), &CrossArgs));
}

}  // namespace dpfuzz
