// Logical values: drawing the elements a ValueRecipe describes.
//
// GenerateValues returns the raw little-endian bytes of the elements of a
// tensor of `sizes` and `dtype` in row-major logical order, the same bytes for
// the same arguments on every machine. No value equals the dtype's poison
// pattern (Note [Poisoned gaps]). Materialization (generators/materialize.h)
// places these bytes into strided storage.
//
//   std::vector<uint8_t> bytes =
//       GenerateValues({.seed = 3, .distribution = Distribution::kDyadic},
//                      DType::kFloat16, {2, 3});   // 12 bytes

#ifndef DPFUZZ_GENERATORS_VALUES_H_
#define DPFUZZ_GENERATORS_VALUES_H_

#include <cstdint>
#include <vector>

#include "generators/dtype.h"
#include "generators/strided_layout.h"
#include "generators/value_recipe.h"

namespace dpfuzz {

std::vector<uint8_t> GenerateValues(const ValueRecipe& recipe, DType dtype,
                                    const Dims& sizes);

// The specials of `recipe` that `dtype` can hold (see Special).
uint32_t ApplicableSpecials(uint32_t specials, DType dtype);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_VALUES_H_
