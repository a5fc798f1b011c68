// Building blocks for OpSpec::make_args: shapes that fit together and
// logical tensors with the right kind of values.
//
// Every tensor built here is contiguous with offset 0: layouts are the
// engine's business, values are the op spec's.
//
//   const Dims x = RandomShape(rng, 1, 4);
//   return {Arg("self", Values(x, dtype, rng)),
//           Arg("mask", Mask(BroadcastPartner(x, rng), rng))};

#ifndef DPFUZZ_GENERATORS_OP_ARGS_H_
#define DPFUZZ_GENERATORS_OP_ARGS_H_

#include <initializer_list>
#include <string>
#include <vector>

#include "generators/case.h"
#include "generators/dtype.h"
#include "generators/rng.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

// Dtype sets for OpSpec::dtypes.
const std::vector<DType>& FloatingDTypes();            // f16, bf16, f32, f64
const std::vector<DType>& NumericDTypes();             // all but bool
const std::vector<DType>& RealDTypes();                // all but complex
const std::vector<DType>& IntegralDTypes();            // u8 .. i64
const std::vector<DType>& FloatingAndComplexDTypes();  // f16 .. c128

// `dtypes` without those in `drop`, order kept: a spec's list says which
// kernels LibTorch lacks, e.g. Except(AllDTypes(), {DType::kFloat16}).
std::vector<DType> Except(std::vector<DType> dtypes,
                          std::initializer_list<DType> drop);

// A contiguous spec at offset 0.
TensorSpec Contiguous(const Dims& sizes, DType dtype,
                      const ValueRecipe& values);

// Random exact values (small integers, dyadic) with specials sometimes.
TensorSpec Values(const Dims& sizes, DType dtype, Rng& rng);

// The same for a contiguous nested tensor whose components have `sizes`.
TensorSpec NestedValues(const std::vector<Dims>& sizes, DType dtype, Rng& rng);

// int64 indices in [0, high); `unique`: no repeats within a last-dim run.
TensorSpec Indices(const Dims& sizes, int64_t high, Rng& rng,
                   bool unique = false);

// Exactly these values (row-major) as `dtype`: index structures whose
// values relate to other arguments (a nested size tensor, compressed
// indices, a left-aligned mask).
TensorSpec Explicit(const Dims& sizes, std::vector<double> data, DType dtype);

// A bool mask with random true/false.
TensorSpec Mask(const Dims& sizes, Rng& rng);

// Integers in [0, high) stored as `dtype` (exponents of integer pow,
// variances, values every conversion keeps exactly).
TensorSpec NonNegative(const Dims& sizes, DType dtype, int64_t high, Rng& rng);

// Exact values without specials or wide values: small integers or eighths
// (no NaN, no Inf). For ops whose arguments must be finite or well
// conditioned (solvers), or that convert floats to integers (where a
// NaN or an out-of-range value is undefined behaviour in C++).
TensorSpec FiniteValues(const Dims& sizes, DType dtype, Rng& rng);

// Keeps a floating `spec`'s products with a power of two other than +-1
// exact (add's `alpha`): drops the smallest subnormal and wide values, whose
// products underflow or overflow. A kernel that fuses the multiply into the
// add rounds such a product once, one that multiplies, then adds, twice, and
// the two disagree (self + 0.5 * 5e-324 is 1e-323 fused, 5e-324 unfused).
// Integral specs are left as they are (their products wrap alike).
void KeepScaledExact(TensorSpec& spec);

// A Scalar argument suited to a tensor of `dtype`: a bool for bool, an
// integer in [-4, 4] ([0, 4] for u8) for integral dtypes, a multiple of
// 1/4 in [-4, 4] for floating and complex ones.
ArgValue ScalarFor(DType dtype, Rng& rng);

// Rank in [min_rank, max_rank], sizes in [1, max_size] (0 now and then
// when allow_empty).
Dims RandomShape(Rng& rng, int min_rank, int max_rank, int64_t max_size = 4,
                 bool allow_empty = true);

// A shape that broadcasts to `sizes`: leading dims dropped, some set to 1.
Dims BroadcastPartner(const Dims& sizes, Rng& rng);

// A dim in [0, rank) or, half the time, its negative alias; 0 for rank 0.
int64_t RandomDim(Rng& rng, int64_t rank);

// Distinct dims of a rank-`rank` tensor, in random order, each negative half
// the time: between 1 and rank of them (one for rank 0), or none when
// `allow_none` and the draw says so.
Dims RandomDims(Rng& rng, int64_t rank, bool allow_none = false);

// `dim` in [0, rank): a negative dim counts from the end; 0 for rank 0.
int64_t WrapDim(int64_t dim, int64_t rank);

// The size of `dim` (negative counts from the end); 1 for a 0-d shape,
// whose only dim is 0 (or -1).
int64_t SizeAt(const Dims& sizes, int64_t dim);

Argument Arg(std::string name, ArgValue value);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_OP_ARGS_H_
