// Curated specs: linalg ops.

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {

void AddLinalgOps(std::vector<OpSpec>& ops) {}

}  // namespace dpfuzz
