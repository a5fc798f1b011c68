// The layout generator: from a seed and a logical shape, a strided layout.
//
// Given the sizes an op needs, GenerateLayout picks one of two strategies:
//
//  - direct: a dense storage in some dim order (row-major, a random
//    permutation, channels_last, channels_last_3d), sliced with steps and
//    padding (gaps), shifted by a storage offset, optionally with expanded
//    (stride 0) or overlapping dims, and size-0/1 dims with arbitrary
//    strides;
//  - view chain: a contiguous base that, through 1-4 real view ops
//    (transpose, permute, narrow, slice, select, unfold, diagonal, expand,
//    view_as_real), lands exactly on the requested sizes. The chain is
//    planned backwards from the target sizes, then applied forwards with
//    the geometry of generators/view_ops.h.
//
// Both are deterministic in the Rng. Layouts that alias (zero strides,
// overlap) are produced only when options.allow_overlap is set: they are
// valid inputs but never valid outputs. The reachability test
// (tests/generators/layout_generator_test.cc) checks that a fixed seed
// reaches every LayoutFeature alone and in combination.
//
//   Rng rng(7);
//   GeneratedLayout g = GenerateLayout({2, 3, 4, 5}, DType::kFloat32, {}, rng);
//   g.layout;       // e.g. [2, 3, 4, 5]@[120, 1, 30, 6]+3
//   g.description;  // how it was built, for people

#ifndef DPFUZZ_GENERATORS_LAYOUT_GENERATOR_H_
#define DPFUZZ_GENERATORS_LAYOUT_GENERATOR_H_

#include <string>
#include <vector>

#include "generators/dtype.h"
#include "generators/rng.h"
#include "generators/strided_layout.h"
#include "generators/tensor_spec.h"
#include "generators/view_ops.h"

namespace dpfuzz {

struct LayoutOptions {
  bool allow_overlap = true;      // Zero strides and overlapping strides.
  bool allow_view_chains = true;  // The view-chain strategy.
  int64_t max_offset = 7;         // Largest extra storage offset.
};

struct GeneratedLayout {
  StridedLayout layout;
  std::vector<ViewStep> steps;  // The view chain, empty for direct layouts.
  std::string description;      // "dense order [0, 2, 3, 1], steps ..." or
                                // "contiguous [4, 6] -> transpose(0, 1)".
};

GeneratedLayout GenerateLayout(const Dims& sizes, DType dtype,
                               const LayoutOptions& options, Rng& rng);

// A random logical shape: rank 0-5, sizes mostly 2-5, with 0 and 1 often.
Dims GenerateSizes(Rng& rng, int max_rank = 5, int64_t max_size = 5);

// A random value recipe suited to dtype (exact distributions favoured).
ValueRecipe GenerateValueRecipe(Rng& rng);

// A spec of `sizes` and `dtype` on CPU with a generated layout and values.
TensorSpec GenerateTensorSpec(const Dims& sizes, DType dtype,
                              const LayoutOptions& options, Rng& rng);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_LAYOUT_GENERATOR_H_
