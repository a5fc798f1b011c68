// The ops that keep their input's memory format.
//
// Note [Ops that keep a memory format]
// A channels_last model stays channels_last only while each op returns
// its result in its input's memory format; an op that returns a
// contiguous result makes the next op pay a conversion (or take its slow
// path). PyTorch holds its modules to this in TestModule.test_memory_format
// (test/test_modules.py, over module_db in
// torch/testing/_internal/common_modules.py): a module given a 4-d
// channels_last or 5-d channels_last_3d input returns a 4-d or 5-d result
// contiguous in that format. The table below holds the ATen ops behind the
// modules for which that test runs on every device (neither skipped nor
// expected to fail), with the rank of their batched input: MaxPool2d (4)
// and MaxPool3d (5), AvgPool2d, AdaptiveAvgPool2d (its forward; the
// expected failure is a 1x1 backward) and AdaptiveMaxPool2d (4),
// BatchNorm2d and BatchNorm3d (4, 5), ZeroPad2d/3d and ConstantPad2d/3d
// (4, 5). TensorIterator ops (the activations) keep their inputs' strides
// by another rule (kRulePropagatesStrides). An op of a loaded library
// states it with OpSpec::rules (kRuleKeepsMemoryFormat), for inputs of
// rank 4 and 5.
//
// The input is `self` (pooling, padding) or `input` (batch norm), laid out
// exactly as .contiguous(memory_format=...) lays it out. An input whose
// channel dim or all of whose spatial dims have size one is contiguous in
// both formats, and one whose size-one dims have other strides may read as
// either (suggest_memory_format looks at those strides too): which format
// such an input has is not defined, and neither is judged.
//
//   FormatKeptInput(c, spec.rules)  // "self" for a max_pool2d case of a
//                                   // 4-d self; "" for a 3-d one

#ifndef DPFUZZ_GENERATORS_MEMORY_FORMAT_FAMILY_H_
#define DPFUZZ_GENERATORS_MEMORY_FORMAT_FAMILY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "generators/case.h"

namespace dpfuzz {

// The argument ("self" or "input") whose memory format the call of `c`
// keeps, by `rules` (OpSpec::rules) or the table; "" when none.
std::string FormatKeptInput(const Case& c, uint32_t rules);

// Whether a 4-d or 5-d tensor of `sizes` is contiguous in both memory
// formats when it is in one: its channel dim, or all its spatial dims,
// of size one.
bool AmbiguousMemoryFormat(const std::vector<int64_t>& sizes);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_MEMORY_FORMAT_FAMILY_H_
