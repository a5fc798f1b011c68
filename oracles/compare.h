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
// accumulation), or no further from it than twice the baseline is. Where
// results are not finite, only their NaN-ness is compared. A NaN in the
// variant where the baseline has a finite number is kNanIntroduced, the
// mark of a kernel that read a poisoned gap (Note [Poisoned gaps]).
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

struct Tolerance {
  double rtol = 0;
  double atol = 0;
};

// torch.testing.assert_close's defaults; zero for integers and bool.
Tolerance DefaultTolerance(at::ScalarType type);

struct Difference {
  Verdict verdict = Verdict::kMismatch;  // Or kNanIntroduced.
  std::string detail;                    // One line for people.
  std::string index;     // "[1, 0]"; empty for shape or dtype differences.
  std::string expected;  // The baseline's element, printed.
  std::string actual;    // The variant's element, printed.
  double max_error = 0;  // Largest |actual - expected| over all elements.
  int64_t count = 0;     // Elements that differ.
};

// Nothing when `actual` agrees with `expected` under `comparison`.
// `reference`, when defined, is the float64 (complex128) result of the same
// op on the same values, of expected's shape.
std::optional<Difference> CompareValues(const at::Tensor& expected,
                                        const at::Tensor& actual,
                                        Comparison comparison,
                                        const at::Tensor& reference = {});

// A dense CPU copy of `tensor`'s logical values made by dpfuzz's own walk
// (ATen's copy only for dtypes dpfuzz does not generate).
at::Tensor ReadDense(const at::Tensor& tensor);

// "[1, 0]" for flat index 3 of sizes [2, 3].
std::string MultiIndex(int64_t flat, at::IntArrayRef sizes);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_COMPARE_H_
