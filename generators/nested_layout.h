// Nested layouts: the components of a strided nested tensor.
//
// LibTorch's strided NestedTensorImpl is one flat buffer and, per
// component, sizes, strides and a storage offset into it (its nested_size,
// nested_strides and offsets). A TensorSpec with `components` describes
// exactly that: each component a StridedLayout over the shared storage, all
// of one rank. The spec's logical values are the components' elements,
// component after component, each row-major. These are pure functions of
// the components; materialization is generators/materialize.h.
//
//   ContiguousComponents({{2, 3}, {4, 3}})
//       == {[2, 3]@[3, 1]+0, [4, 3]@[3, 1]+6}   // what nested_tensor() makes
//   ComponentsToString(...) == "nested{[2, 3]@[3, 1]+0, [4, 3]@[3, 1]+6}"
//
// Which layouts a LibTorch version can build differs (Note [Nested buffers
// by version] in common/torch_compat.h): 1.13 only builds components that
// tile their buffer exactly (TilesBuffer), newer versions any disjoint
// components, gaps and offsets included.

#ifndef DPFUZZ_GENERATORS_NESTED_LAYOUT_H_
#define DPFUZZ_GENERATORS_NESTED_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "generators/rng.h"
#include "generators/strided_layout.h"

namespace dpfuzz {

using Components = std::vector<StridedLayout>;

// "nested{[2, 3]@[3, 1]+0, [4, 3]@[1, 4]+6}".
std::string ComponentsToString(const Components& components);

// The sizes of each component.
std::vector<Dims> ComponentSizes(const Components& components);

// Contiguous components of `sizes`, one after another from offset 0: the
// layout torch.nested.nested_tensor gives.
Components ContiguousComponents(const std::vector<Dims>& sizes);

// Each component with contiguous strides at its own offset: what is left
// of a layout once the dims of every component are in order and dense.
Components WithContiguousStrides(Components components);

// The same components, each strides kept, placed one after another from
// storage element 0 in the order they lie in storage: the gaps between
// components and before the first removed (components with dense strides
// then tile their buffer).
Components Repacked(Components components);

// Elements of all components together.
int64_t ComponentsNumel(const Components& components);

// Storage elements the components need: the largest extent of any.
int64_t ComponentsStorageExtent(const Components& components);

// The storage index of every logical element, component after component,
// each row-major.
std::vector<int64_t> ComponentsStorageIndices(const Components& components);

// True when the components address storage [0, numel) with every element
// exactly once: no gap, no margin, no overlap.
bool TilesBuffer(const Components& components);

// OK when the components can be a nested tensor's: at least one, each of
// the same rank (at least 1), each a valid layout. Errors name the
// component.
absl::Status ValidateComponents(const Components& components);

// Components of `sizes` with generated layouts, in disjoint regions of one
// storage in a random order: each component's dims in a random dense order
// (a transposed or permuted component), and, when `allow_gaps`, slices
// with steps, storage offsets and gaps between components too. Without
// `allow_gaps` the result tiles its buffer (TilesBuffer).
Components GenerateComponents(const std::vector<Dims>& sizes, bool allow_gaps,
                              Rng& rng);

// Ragged component sizes for a nested tensor of `rank` (component rank,
// at least 1): 1-4 components; each dim either one size for all (the dims
// an op needs regular, `regular` lists them) or ragged, with size-0 and
// size-1 components now and then.
std::vector<Dims> GenerateComponentSizes(int64_t rank,
                                         const std::vector<int64_t>& regular,
                                         Rng& rng);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_NESTED_LAYOUT_H_
