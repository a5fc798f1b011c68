// Structural mutation of cases: what the libFuzzer target's custom mutator
// does to a decoded case before it re-encodes it (oracles/case_bytes.h).
//
// libFuzzer's byte mutations know nothing of layouts; these do. One
// mutation changes one tensor of the case (an argument, a Tensor[]
// element, an out= tensor or a grad_output) and keeps everything else, so
// that coverage guidance can tell which change reached a new layout cell
// (oracles/layout_coverage.h):
//
//  - relayout: a new layout of the same sizes from the layout generator
//    (nested tensors: new component layouts in their buffer);
//  - plain: back to the contiguous layout (what a reducer would try);
//  - revalue: the same value recipe with a new seed (the distribution, and
//    with it what the op accepts and how it is compared, stays).
//
// The layouts a mutation gives never overlap, so they are valid for any
// tensor, written ones included: overlapping inputs (which change the
// values an input holds, and with them output shapes) come only from the
// generators, through BuildCase. Tensors an op keeps fixed
// (OpSpec::fixed_layout) and tensors that share memory (Case::aliases) are
// left alone. Values and sizes never change, so a case that was valid stays
// valid.
//
//   Rng rng(seed);
//   Case mutated = MutateCase(c, rng);
//   Case child = CrossOver(a, b, rng);

#ifndef DPFUZZ_GENERATORS_CASE_MUTATOR_H_
#define DPFUZZ_GENERATORS_CASE_MUTATOR_H_

#include "generators/case.h"
#include "generators/rng.h"

namespace dpfuzz {

// `c` with one tensor mutated; `c` itself when it has no tensor to mutate.
Case MutateCase(const Case& c, Rng& rng);

// `a` with each tensor's layout taken from `b` or kept, where b is a case
// of the same op, variant and argument sizes; `a` otherwise.
Case CrossOver(const Case& a, const Case& b, Rng& rng);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_CASE_MUTATOR_H_
