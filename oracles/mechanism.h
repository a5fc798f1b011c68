// Mechanism: the layout mistake of a kernel that reproduces a wrong result
// exactly.
//
// Note [Mechanisms by simulation]
// A wrong result is explained only when dpfuzz can make it. For each
// mistake a kernel makes with a layout, ExplainWrongValues computes what
// the op returns (or leaves in the storage of what it writes) had the
// kernel made it, and names the first whose simulation matches what the
// variant's call did, under the comparison the case is judged by:
//  - a written argument (out=, an in-place self) whose storage holds the
//    right results written linearly from its data pointer, as if it were
//    contiguous, gaps and all ("writes_as_contiguous"), or at its strides
//    from the storage's start, its offset ignored
//    ("writes_ignoring_offset");
//  - a written argument wrong only where it still holds what it held
//    before the call, right elsewhere: elements the kernel never wrote (a
//    result computed into a temporary not copied back)
//    ("leaves_unwritten");
//  - a returned result laid out other than row-major (channels_last,
//    permuted) whose memory, read linearly from its data pointer, holds
//    the right results in row-major order ("fills_result_as_contiguous");
//  - an input read as if it were contiguous ("reads_as_contiguous"): its
//    storage read linearly from its data pointer, numel elements, gaps
//    and expanded storage included, or its elements in the order they lie
//    in memory (a transposed or channels_last input taken as row-major; a
//    dense one reads the same both ways); or read at its strides from the
//    storage's start ("reads_ignoring_offset"); simulated by calling the
//    op on a contiguous baseline whose one argument holds those elements;
//    for a gradient, by running the backward on such a baseline, and with
//    the gradient it is given (a grad_output) read so as well;
//  - a nested input whose components are read as if each were contiguous
//    from its own offset, or as if all were, packed one after another
//    from the buffer's start ("reads_components_as_contiguous": what a
//    nested kernel does that applies a dense op to the buffer and wraps
//    the result with the components' sizes alone);
//  - an op that walks its positions in the order an argument's elements
//    lie in memory where it promises row-major order (a source consumed,
//    a running count kept, in that order): simulated by calling the op
//    with that argument permuted to its memory order, and with it the
//    arguments of its sizes the kernel walks alongside (a mask; which ones
//    is tried), and permuting results of those sizes back
//    ("walks_in_memory_order"; tried first for inputs: an op whose
//    elements do not depend on the order it walks gives its right results
//    so, which explain nothing; for a written argument, after the writes
//    above, whose name also holds for a gapped out of the same kernel; not
//    tried where an argument is an int, a dim the permutation would
//    renumber);
//  - writes with no right values to simulate, by the storage elements
//    they changed (oracles/places_written.h, Note [Mechanisms by the
//    places written]), after the simulations of writes;
//  - a result holding the gaps' poison bit pattern where the baseline has
//    a value: an element read outside every view ("reads_outside_view"),
//    named only when no simulation matched, as it says less.
// A reading that gives the layout's own elements is no explanation and is
// not tried, nor is one that reaches outside the storage. Integer inputs
// (indices, sizes) are reread only in memory order: other readings feed
// the gaps' sentinel to an op that trusts indices. A nested tensor's
// integers are values (its metadata lives apart from its buffer), reread
// as its float components are. Otherwise the wrong result stays
// unexplained: a mechanism is never guessed.
//
//   std::optional<Explanation> e = ExplainWrongValues(simulation);
//   e->mechanism  // "reads_as_contiguous"
//   e->argument   // "self"

#ifndef DPFUZZ_ORACLES_MECHANISM_H_
#define DPFUZZ_ORACLES_MECHANISM_H_

#include <ATen/ATen.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generators/case.h"
#include "generators/op_spec.h"
#include "oracles/case_tensors.h"

namespace dpfuzz {

// A wrong result and what is needed to simulate it.
struct Simulation {
  const Case* c = nullptr;               // The case the variant ran.
  const CaseTensors* variant = nullptr;  // After its call, with snapshots.
  std::vector<std::string> written;      // Arguments the call writes.
  // The results compared, in order: their names ("out", "output 0"), the
  // baseline's and the variant's.
  std::vector<std::string> names;
  std::vector<at::Tensor> expected, actual;
  Comparison comparison = Comparison::kExact;
  // The op's call on other tensors (a reread baseline): its results in the
  // same order, or nothing when it raised.
  std::function<std::optional<std::vector<at::Tensor>>(CaseTensors&)> call;
  // The results are gradients (`call` runs the op's backward): the
  // grad_outputs are read wrongly in turn too.
  bool gradient = false;
};

// The simulation of a variant's results `actual` (named `names`) against
// the baseline's `expected`, with `call` the op (or its backward) on other
// tensors.
Simulation SimulationOf(
    const Case& c, const CaseTensors& variant, std::vector<std::string> names,
    std::vector<at::Tensor> expected, std::vector<at::Tensor> actual,
    Comparison comparison,
    std::function<std::optional<std::vector<at::Tensor>>(CaseTensors&)> call);

struct Explanation {
  std::string mechanism;  // "writes_as_contiguous", ...
  std::string argument;   // The argument read or written wrongly: "self",
                          // "out", "output 0"; "" for reads_outside_view.
};

std::optional<Explanation> ExplainWrongValues(const Simulation& s);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_MECHANISM_H_
