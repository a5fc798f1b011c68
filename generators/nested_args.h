// NestArguments: the arguments of a nested op, made from a dense draw.
//
// The schema-driven nested path (generators/schema_spec.h:
// GenericNestedOpSpec) draws an op's arguments as for dense tensors
// (generators/schema_args.h), then nests them: the first tensor becomes a
// nested tensor of 1-4 components of its shape, half the time ragged in one
// dim, and every other tensor of that same shape (the other operand of a
// pointwise op, a Tensor[]'s other members) a nested tensor of the same
// components; tensors of other shapes stay dense (linear's weight). Dim
// arguments ("dim", "dims", "dim0", ...) count dims of the components; a
// nested tensor's dims count the component dim in front, so their
// non-negative values move up by one. Value recipes are kept (an index
// tensor's range, a mask's bools).
//
//   std::vector<Argument> args = *DrawSchemaArgs(schema, dtype, rng);
//   NestArguments(args, rng);  // args' first tensor is nested now

#ifndef DPFUZZ_GENERATORS_NESTED_ARGS_H_
#define DPFUZZ_GENERATORS_NESTED_ARGS_H_

#include <vector>

#include "generators/case.h"
#include "generators/rng.h"

namespace dpfuzz {

// Nests `args` as above. Returns false, leaving them as they were, when
// they hold no tensor.
bool NestArguments(std::vector<Argument>& args, Rng& rng);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_NESTED_ARGS_H_
