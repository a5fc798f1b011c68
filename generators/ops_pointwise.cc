// Curated specs: pointwise ops.

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {

void AddPointwiseOps(std::vector<OpSpec>& ops) {}

}  // namespace dpfuzz
