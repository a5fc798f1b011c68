// Laid: a float32 tensor argument with generated values, laid out as a
// test chooses (sizes, strides, storage offset), for tests that run or
// judge a case on a layout of their own.
//
//   c.args = {Laid("self", {3, 4}, {1, 3}), Laid("out", {3, 4}, {8, 2}, 1)};

#ifndef DPFUZZ_TESTS_ORACLES_LAID_ARGUMENT_H_
#define DPFUZZ_TESTS_ORACLES_LAID_ARGUMENT_H_

#include <cstdint>
#include <string>

#include "generators/op_args.h"
#include "generators/rng.h"

namespace dpfuzz {

inline Argument Laid(const std::string& name, Dims sizes, Dims strides,
                     int64_t offset = 0, uint64_t seed = 7) {
  Rng rng(seed);
  TensorSpec spec = Values(sizes, DType::kFloat32, rng);
  spec.layout = StridedLayout{sizes, strides, offset};
  return Arg(name, spec);
}

}  // namespace dpfuzz

#endif  // DPFUZZ_TESTS_ORACLES_LAID_ARGUMENT_H_
