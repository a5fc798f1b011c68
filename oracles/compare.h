// Comparing a variant's result with the baseline's, element by element.
//
// Both tensors may have any layout and live on any device: they are read
// densely with dpfuzz's own strided walk (generators/materialize.h) before
// any arithmetic. kExact requires equal values (all NaNs equal, -0.0 equal
// to 0.0, infinities equal to themselves). kTolerance first allows
// |actual - expected| <= atol + rtol * |expected|, with the tolerances of
// torch.testing.assert_close for the dtype; an element outside that is
// judged again against a float64 reference when one is given: the variant
// must be within atol + 4 * rtol * |reference| of it (four roundings of
// accumulation), or no further from it than twice the baseline is, or,
// when a magnitude is given too (oracles/reference.h), within
// k * eps * |magnitude| of the baseline (Note [Accumulation error]). Where
// results are not finite, only their NaN-ness is compared, except that an
// infinity against a finite number is a difference unless the magnitude
// reaches the dtype's range (a partial sum may then overflow in one order
// and not in another) or is not finite (an infinite input). A NaN in the
// variant where the baseline has a finite number is kNanIntroduced, the
// mark of a kernel that read a poisoned gap (Note [Poisoned gaps]),
// unless it is not the poison and the magnitude reaches the range (inf -
// inf after an overflow) or is not finite.
//
//   std::optional<Difference> d = CompareValues(expected, actual,
//                                               Comparison::kExact);
//   d->detail  // "element [1, 0]: expected 2.5, got nan (poison)"

#ifndef DPFUZZ_ORACLES_COMPARE_H_
#define DPFUZZ_ORACLES_COMPARE_H_

#include <ATen/ATen.h>

#include <optional>
#include <string>

#include "generators/op_spec.h"
#include "oracles/verdict.h"

namespace dpfuzz {

// Note [Accumulation error]
// An accumulating op (sum, matmul, convolution, the sums autograd makes
// over broadcast dims) computes an element as a sum of terms t_1..t_n.
// Rounding a partial sum p to a dtype of unit roundoff u = eps / 2 errs by
// at most u * |p|, and every partial sum is at most M = sum |t_j| (the
// magnitude: the op on |inputs|, |coefficients| and |grad_outputs| in
// float64; exact for these ops, a scale for others). A result that went
// through R roundings in the dtype is thus within R * u * M of the exact
// sum (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
// section 4.2: recursive summation has R = n - 1,
// pairwise log2(n); a half or bfloat16 kernel that accumulates in float32
// rounds once at the end, a reduction in several passes once per pass).
// The layout picks the kernel and its order, so baseline and variant may
// round differently: |baseline - variant| <= (R_b + R_v) / 2 * eps * M.
// dpfuzz allows k * eps * M with k = max(8, 2 * sqrt(n)), n bounded by
// the elements of the largest floating input or grad_output (exact for a
// full reduction, more than the terms of a matmul or a convolution):
//  - 8 roundings per side cover a pass per dim of the rank-5 tensors
//    dpfuzz draws, blocked kernels and short accumulations in the dtype;
//  - a long sum in the dtype has up to n - 1 roundings, a worst case that
//    would excuse anything. Its rounding errors mostly cancel instead and
//    grow like sqrt(n) * u * M per side (Higham, sections 2.8 and 4.2);
//    terms that repeat (ones, an expanded tensor) round the same way again
//    and again and go past that, hence the factor 2. LibTorch 1.13 sums
//    a gapped or expanded bfloat16 tensor in bfloat16 and its contiguous
//    copy in float32: 768 ones summed to 936 (28 * eps * M apart; k = 55),
//    expanded small integers 8.8 * eps * M apart for n = 243 (k = 31).
// Roundings in a float32 accumulator are 2^13 (half) or 2^16 (bfloat16)
// times smaller and fall well inside. A layout bug reads a wrong element,
// drops or repeats a term: it moves the result by a whole term, about
// M / n, which stays above 8 * eps * M (1/128 of M for half, 1/16 for
// bfloat16) while n is below 128 (16); past that a single wrong term can
// hide in half or bfloat16, the price of dtypes with 11 and 8 significant
// bits. The same kernels in float32 and float64 (eps 2^-23, 2^-52) lose
// nothing, and dpfuzz runs every dtype an op accepts.
// For ops whose terms cancel by design (a normalization), M is also the
// element's sensitivity (Note [Sensitivity probes] in oracles/reference.cc).
// Overflow: every partial sum is at most M * (1 + k * eps) in magnitude,
// so when that stays below the dtype's largest finite value no order can
// overflow, and an infinity against a finite number is a finding; when it
// reaches it, one order may overflow where another does not (a float16
// gradient summed over broadcast dims: -41376 one way, -inf the other),
// and the pair is unstable, not a finding.
// Infinite inputs: where the magnitude itself is not finite, an infinite
// or NaN input reaches the element, and whether a kernel multiplies it by
// a zero it could skip (the implicit padding of a convolution, a zero
// weight) decides between NaN and a number (IEEE: inf * 0 is NaN). Such a
// pair is unstable too; the poison of a gap never is.
inline constexpr double kAccumulationRoundings = 8;

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// torch.testing.assert_close's defaults; zero for integers and bool.
Tolerance DefaultTolerance(at::ScalarType type);

// What a Difference's detail says after a first differing element that is
// the gaps' poison bit pattern: the variant read outside its views.
inline constexpr char kPoisonNote[] = " (the poison of a gap)";

struct Difference {
  Verdict verdict = Verdict::kMismatch;  // Or kNanIntroduced.
  std::string detail;                    // One line for people.
  std::string index;     // "[1, 0]"; empty for shape or dtype differences.
  std::string expected;  // The baseline's element, printed.
  std::string actual;    // The variant's element, printed.
  double max_error = 0;  // Largest |actual - expected| over all elements.
  int64_t count = 0;     // Elements that differ.
  std::string layout;    // Of a result that is not strided ("Sparse").
};

// Nothing when `actual` agrees with `expected` under `comparison`.
// `reference`, when defined, is the float64 (complex128) result of the same
// op on the same values, of expected's shape; `magnitude`, when defined,
// the float64 result of the op on the absolute values of its floating
// inputs, and `terms` a bound on the terms an element sums (Note
// [Accumulation error]).
std::optional<Difference> CompareValues(const at::Tensor& expected,
                                        const at::Tensor& actual,
                                        Comparison comparison,
                                        const at::Tensor& reference = {},
                                        const at::Tensor& magnitude = {},
                                        int64_t terms = 1);

// k of Note [Accumulation error] for sums of at most `terms` terms:
// max(kAccumulationRoundings, 2 * sqrt(terms)).
double AccumulationRoundings(int64_t terms);

// The machine epsilon of a floating or complex dtype (of its components):
// 2^-10 for half, 2^-7 for bfloat16; 0 for others.
double Epsilon(at::ScalarType type);

// A dense CPU copy of `tensor`'s logical values made by dpfuzz's own walk
// (ATen's copy only for dtypes dpfuzz does not generate).
at::Tensor ReadDense(const at::Tensor& tensor);

// "[1, 0]" for flat index 3 of sizes [2, 3].
std::string MultiIndex(int64_t flat, at::IntArrayRef sizes);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_COMPARE_H_
