// Curated specs: nn ops.

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {

void AddNnOps(std::vector<OpSpec>& ops) {}

}  // namespace dpfuzz
