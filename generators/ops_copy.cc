// Curated specs: copy ops.

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {

void AddCopyOps(std::vector<OpSpec>& ops) {}

}  // namespace dpfuzz
