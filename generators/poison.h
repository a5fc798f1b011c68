// Poison: the bit pattern that fills every storage element outside a view.
//
// Note [Poisoned gaps]
// Materialized tensors live in a storage larger than their view: elements
// before the storage offset, between strided elements and after the last
// element ("gaps and margins") hold poison. A kernel that reads a gap pulls
// a NaN (floating, complex) or an odd sentinel (integers, bool) into its
// result, which no correct layout produces; a kernel that writes a gap
// destroys the pattern, which the integrity check sees. The floating poison
// is a quiet NaN with a payload (0xA5 bytes) that arithmetic does not
// produce, so poison is told apart from a computed NaN by its bits. Value
// generators never emit a poison pattern as a logical value.

#ifndef DPFUZZ_GENERATORS_POISON_H_
#define DPFUZZ_GENERATORS_POISON_H_

#include <cstdint>
#include <vector>

#include "generators/dtype.h"

namespace dpfuzz {

// The ElementSize(dtype) bytes of one poisoned element, little-endian.
std::vector<uint8_t> PoisonElement(DType dtype);

// True when `element` (ElementSize(dtype) bytes) is the poison pattern.
bool IsPoison(DType dtype, const uint8_t* element);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_POISON_H_
