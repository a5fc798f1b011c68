// LayoutFeature: the layout classes a strided geometry belongs to.
//
// Computed from the geometry alone (never from how a generator meant to
// build it), so that the reachability test and campaign statistics report
// what the fuzzer really produced. A layout usually has several features:
// a channels_last view with a storage offset and gaps is
// kFeatureChannelsLast | kFeatureOffset | kFeatureGapped.
//
//   ComputeLayoutFeatures({{2, 3}, {1, 2}, 0})  -> kFeaturePermuted
//   LayoutFeaturesToString(kFeatureGapped | kFeatureOffset)  -> "gapped+offset"

#ifndef DPFUZZ_GENERATORS_LAYOUT_FEATURES_H_
#define DPFUZZ_GENERATORS_LAYOUT_FEATURES_H_

#include <cstdint>
#include <string>

#include "generators/strided_layout.h"

namespace dpfuzz {

enum LayoutFeature : uint32_t {
  kFeatureContiguous = 1u << 0,      // is_contiguous() (row-major, dense).
  kFeaturePermuted = 1u << 1,        // Dims of size > 1 out of row-major
                                     // stride order, and not channels-last.
  kFeatureChannelsLast = 1u << 2,    // suggest_memory_format: channels_last.
  kFeatureChannelsLast3d = 1u << 3,  // suggest_memory_format: ..._3d.
  kFeatureAmbiguous = 1u << 4,       // Contiguous in two memory formats.
  kFeatureGapped = 1u << 5,          // No overlap, but holes between elements.
  kFeatureOffset = 1u << 6,          // storage_offset > 0.
  kFeatureZeroStride = 1u << 7,      // A dim of size > 1 has stride 0.
  kFeatureOverlapping = 1u << 8,     // Elements alias through non-zero strides.
  kFeatureEmpty = 1u << 9,           // A dim of size 0.
  kFeatureOddUnitStride = 1u << 10,  // A size-0/1 dim's stride is not the
                                     // contiguous one (c10 ignores it).
  kFeatureScalar = 1u << 11,         // 0-dim.
};
inline constexpr int kNumLayoutFeatures = 12;

uint32_t ComputeLayoutFeatures(const StridedLayout& layout);

// Names joined by '+', in bit order: "permuted+offset"; "none" for 0.
std::string LayoutFeaturesToString(uint32_t features);

// The name of one feature bit: "channels_last", "zero_stride", ...
std::string LayoutFeatureName(LayoutFeature feature);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_LAYOUT_FEATURES_H_
