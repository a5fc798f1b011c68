// Curated specs: shape ops.

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {

void AddShapeOps(std::vector<OpSpec>& ops) {}

}  // namespace dpfuzz
