// The passes of the delta reducer: each proposes simpler cases.
//
// A pass walks a case and offers candidates through `attempt`, which runs
// one (when it is simpler than the current case and not yet tried), and
// returns true when it was kept, the current case then being the
// candidate. Passes read the current case again after every success, so
// each can keep shrinking what it just shrank.
//
// Passes (in their first order): drop_grad_outputs, drop_arguments (optional
// and defaulted arguments, Tensor[] elements), simplify_values (zeros, ones,
// arange, small integers; no specials; seed 0; number arguments 0 and 1),
// drop_dims, merge_dims (two
// adjacent dims made one), shrink_sizes (steps of 1, 2, 4, ... while they work,
// then bisection; each step with the strides kept, else made dense again in the
// same order), contiguous_strides (all at once, then one dim at a time:
// un-expands zero strides, removes gaps and overlap; an overlapping or
// expanded layout is also tried dense in its own and in column-major dim
// order, and an expanded dim with a step of 2), shrink_strides and
// shrink_offsets (as sizes, down to 0), shrink_ints (positive integer
// arguments and int-list elements, as sizes, down to 0), simplify_dtypes
// (float32 first, then the simplest that still fails), to_cpu, then for nested
// tensors drop_components, shrink_components and contiguous_components
// (reducers/nested_passes.h). Size and dtype changes are tried on every tensor
// that shares the size or dtype first (shapes and dtypes of arguments are
// related), a size step then on every tensor longer in that dim by as much (an
// out= or grad_output whose size follows an input's by a fixed amount, as a
// padding's or a convolution's does), then on one tensor alone (run only where
// it unties no tensors of the same sizes, reducers/shape_ties.h). Aliases stay:
// sharing memory is part of a finding's signature.

#ifndef DPFUZZ_REDUCERS_REDUCTION_PASSES_H_
#define DPFUZZ_REDUCERS_REDUCTION_PASSES_H_

#include <functional>
#include <string>
#include <vector>

#include "generators/case.h"

namespace dpfuzz {

// Runs `candidate` if it is worth it; true when it became current.
using Attempt = std::function<bool(const Case& candidate)>;

struct ReductionPass {
  std::string name;
  // Offers candidates derived from `current` (updated by `attempt`); true
  // when any was kept.
  std::function<bool(const Case& current, const Attempt& attempt)> run;
};

std::vector<ReductionPass> DefaultReductionPasses();

}  // namespace dpfuzz

#endif  // DPFUZZ_REDUCERS_REDUCTION_PASSES_H_
