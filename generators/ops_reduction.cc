// Curated specs: reduction ops.

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {

void AddReductionOps(std::vector<OpSpec>& ops) {}

}  // namespace dpfuzz
