// The layout mistake of a write told by where it landed, for writes whose
// values cannot be simulated.
//
// Note [Mechanisms by the places written]
// Note [Mechanisms by simulation] names a mistake only when its simulation
// reproduces the wrong values. Some writes have no right values to
// simulate: an argument an op writes although its schema does not say so
// (rrelu_with_noise's `noise` in training: no result compared gives its
// right contents), and memory past an argument's end, which no right
// result covers. What the storage snapshots do give exactly is which
// storage elements the call changed. ExplainByPlacesWritten names a
// mistake when the elements changed outside the views that may change are
// exactly those the mistake writes, under the same rule of not guessing:
//  - "writes_as_contiguous" of an argument the op writes by design though
//    its schema does not say so (MutatedByDesign,
//    generators/contract_rules.h), whose right contents no result gives:
//    every element changed outside the views lies among the numel
//    elements from its data pointer, and none of its own elements outside
//    those changed (what the kernel never reached stays as it was);
//  - "writes_past_end" of a contiguous argument the call writes (by its
//    schema or by design): the elements changed outside the views are one
//    run that begins right after its last element, as if it held more
//    elements (a loss reduced into a 0-dim out= that first writes its
//    unreduced values there).
// An argument the call does not write is named by neither: a write that
// lands in an input is another argument's mistake. Changes that fit the
// mistakes of two arguments sharing a storage (an out= over the memory of
// an argument written by design) name neither.
// Only the places are compared, so it is tried after the simulations of
// values. Nested arguments are not explained so, nor a storage whose
// written argument the call left with other sizes (an out= of another
// size, resized, may write where it now lies); a storage the call grew and
// whose arguments it left as they were (a 0-dim out= resized to the
// unreduced size and back) is judged by the elements it had.
//
//   std::optional<Explanation> e = ExplainByPlacesWritten(simulation);
//   e->mechanism  // "writes_past_end"
//   e->argument   // "out"

#ifndef DPFUZZ_ORACLES_PLACES_WRITTEN_H_
#define DPFUZZ_ORACLES_PLACES_WRITTEN_H_

#include <optional>

#include "oracles/mechanism.h"

namespace dpfuzz {

// Uses the simulation's variant tensors (their storages after the call and
// their snapshots), `written` and the names of the results compared.
std::optional<Explanation> ExplainByPlacesWritten(const Simulation& s);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_PLACES_WRITTEN_H_
