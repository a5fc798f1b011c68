// Curated specs: sorting ops.

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {

void AddSortingOps(std::vector<OpSpec>& ops) {}

}  // namespace dpfuzz
