// Reduction passes for nested tensors (generators/nested_layout.h).
//
// drop_components: drops component k of every nested argument at once
// (nested arguments of one op pair their components: bmm, add), the rest
// moved together (Repacked) where the LibTorch version needs components
// that tile their buffer (Note [Nested buffers by version]).
// shrink_components: sizes of component dims down to 1, halved or less
// one, in every nested argument at once where they agree (add's
// operands), then in one; the component keeps its dim order, dense, and
// the components are moved together (Repacked).
// contiguous_components: makes one component at a time dense at its
// place, then moves the components together (Repacked).
//
// The dense passes (reducers/reduction_passes.h) leave nested arguments
// alone: their `layout` is empty.

#ifndef DPFUZZ_REDUCERS_NESTED_PASSES_H_
#define DPFUZZ_REDUCERS_NESTED_PASSES_H_

#include "generators/case.h"
#include "reducers/reduction_passes.h"

namespace dpfuzz {

bool DropComponents(const Case& current, const Attempt& attempt);
bool ShrinkComponents(const Case& current, const Attempt& attempt);
bool ContiguousComponentsPass(const Case& current, const Attempt& attempt);

}  // namespace dpfuzz

#endif  // DPFUZZ_REDUCERS_NESTED_PASSES_H_
