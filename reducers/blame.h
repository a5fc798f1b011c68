// Blame: which argument's layout a finding needs, and which feature of it.
//
// Found by isolated runs of edited cases, never guessed from the case: an
// argument is a culprit when making its tensors contiguous (sizes kept,
// strides contiguous, offset zero, no sharing) makes the finding go (the
// same ReductionKey, reducers/reducer.h, no longer shows); when none does
// alone but all of them together do (each shows the bug by itself), they
// are all culprits. Sharing memory
// is the feature ("aliasing", the culprits the written arguments that
// share, whichever input they share with) when dropping the case's aliases
// alone makes it go. Otherwise, for the first culprit, each feature of its
// layout is removed alone, in this order: the storage offset ("offset"), odd
// strides of size-one dims ("odd_unit_stride"), stride 0, overlap or gaps
// (dense strides in the same dim order: "zero_stride", "overlapping",
// "gapped"); the first whose removal makes the finding go is the feature. When
// none does alone, what is left is the dim order ("permuted", "channels_last",
// "channels_last_3d"), else the layout's features joined ("gapped+offset").
// A finding that still shows with every argument contiguous and unshared
// needs no layout: feature "no_layout", no culprit. A nested culprit's
// feature is that of its components, prefixed "nested_" (Note [Nested
// features] in blame.cc).
//
// Meant for reduced cases (few tensors, one feature each), where it costs a
// handful of runs.
//
//   Blame b = FindBlame(finding, runner, /*max_calls=*/24);
//   b.culprit  // "self"
//   b.feature  // "permuted"

#ifndef DPFUZZ_REDUCERS_BLAME_H_
#define DPFUZZ_REDUCERS_BLAME_H_

#include "crashes/findings/finding.h"
#include "reducers/reducer.h"

namespace dpfuzz {

struct BlameResult {
  Blame blame;
  int calls = 0;
  bool budget_exhausted = false;  // Then blame says what was found so far.
};

BlameResult FindBlame(const Finding& finding, const CaseRunner& run,
                      int max_calls);

// Note [Reductions that keep the layout]
// A reduction keeps a candidate while it shows the same key (op, variant,
// verdict), and arguments that stop fitting each other can show that key
// with no layout at all: a pooling window shrunk to size 0 whose kernel
// then reads past random samples made 0-dim, where the out= call and the
// functional one meet different memory. Such a reduced case needs no
// layout (blame "no_layout") where the case found needed one: it shows an
// invalid-argument bug, not the layout bug found. So a reduction that needs
// no layout is checked against the case found: when that one's blame
// names a layout, the reduction is dropped and the finding kept as found,
// blamed on its own layout.
//
// `reduced` (a reduction of `found`) with its blame, or `found` with its own
// where the reduction lost the layout `found` needs.
Finding BlamedReduction(const Finding& found, Finding reduced,
                        const CaseRunner& run, int max_calls);

// `c` with what `blame` names taken away: the culprits' tensors contiguous
// and unshared, or for "aliasing" no argument sharing memory. A finding of
// another case that goes away in it needs the same culprit and feature.
// `c` itself when the blame names nothing.
Case WithoutBlamed(const Case& c, const Blame& blame);

}  // namespace dpfuzz

#endif  // DPFUZZ_REDUCERS_BLAME_H_
