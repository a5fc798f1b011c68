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

#include <string>
#include <vector>

#include "generators/case.h"
#include "generators/dtype.h"
#include "generators/rng.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

// Dtype sets for OpSpec::dtypes.
const std::vector<DType>& FloatingDTypes();  // f16, bf16, f32, f64
const std::vector<DType>& NumericDTypes();   // all but bool
const std::vector<DType>& RealDTypes();      // all but complex
const std::vector<DType>& IntegralDTypes();  // u8 .. i64

// A contiguous spec at offset 0.
TensorSpec Contiguous(const Dims& sizes, DType dtype,
                      const ValueRecipe& values);

// Random exact values (small integers, dyadic) with specials sometimes.
TensorSpec Values(const Dims& sizes, DType dtype, Rng& rng);

// int64 indices in [0, high); `unique`: no repeats within a last-dim run.
TensorSpec Indices(const Dims& sizes, int64_t high, Rng& rng,
                   bool unique = false);

// A bool mask with random true/false.
TensorSpec Mask(const Dims& sizes, Rng& rng);

// Rank in [min_rank, max_rank], sizes in [1, max_size] (0 now and then
// when allow_empty).
Dims RandomShape(Rng& rng, int min_rank, int max_rank, int64_t max_size = 4,
                 bool allow_empty = true);

// A shape that broadcasts to `sizes`: leading dims dropped, some set to 1.
Dims BroadcastPartner(const Dims& sizes, Rng& rng);

// A dim in [0, rank) or, half the time, its negative alias; 0 for rank 0.
int64_t RandomDim(Rng& rng, int64_t rank);

Argument Arg(std::string name, ArgValue value);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_OP_ARGS_H_
