// The registry of curated op specs.
//
// CuratedOps() lists every OpSpec of generators/ops_<family>.cc, in a fixed
// order (campaigns over several ops are reproducible from a seed).
// FindCuratedOp accepts "masked_select", "aten::masked_select" and
// "aten::add.Tensor" alike.
//
// A program that embeds dpfuzz may add specs of its own before it looks
// any up (AddOps: a test binary with planted ops); FindOp and AllOps see
// the curated specs first, then the added ones. FindOp then falls back on
// a generic spec made from the operator's schema (generators/schema_spec.h),
// so any registered overload is found by its full name, "aten::mean" (the
// default overload) apart from the curated "aten::mean.dim".

#ifndef DPFUZZ_GENERATORS_OP_REGISTRY_H_
#define DPFUZZ_GENERATORS_OP_REGISTRY_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "generators/op_spec.h"
#include "generators/schema_spec.h"

namespace dpfuzz {

const std::vector<OpSpec>& CuratedOps();

// nullptr when no curated spec has that name.
const OpSpec* FindCuratedOp(absl::string_view name);

// "aten::NAME" for a NAME without a namespace, else NAME.
std::string WithNamespace(absl::string_view name);

// Adds specs; the pointers FindOp and AllOps return stay valid.
void AddOps(const std::vector<OpSpec>& specs);

// The spec of exactly that overload ("aten::add.Tensor", "relu"):
// curated, then added, then generic; failing those, for a name without
// an overload ("add"), the op's curated or added spec. "nested:NAME"
// finds only nested specs (OpSpec::nested), curated, added, then generic
// (GenericNestedOpSpec), NAME only the others.
// nullptr when none has that name or the op cannot be fuzzed.
const OpSpec* FindOp(absl::string_view name);

// The spec a case is judged by: for a case with nested tensors, of a
// listed constructor of nested tensors from padded dense ones, or of an op
// with no dense spec, the op's nested spec, if any; else its overload's,
// else its op's. nullptr: none.
const OpSpec* FindOpFor(const Case& c);

// "add.Tensor" -> {"aten::add", "Tensor"}; "myns::op" -> {"myns::op", ""}.
OverloadName SplitOverload(absl::string_view name);
std::vector<const OpSpec*> AllOps();

// One per family file; CuratedOps() calls each once.
void AddPointwiseOps(std::vector<OpSpec>& ops);
void AddReductionOps(std::vector<OpSpec>& ops);
void AddIndexingOps(std::vector<OpSpec>& ops);
void AddSortingOps(std::vector<OpSpec>& ops);
void AddShapeOps(std::vector<OpSpec>& ops);
void AddLinalgOps(std::vector<OpSpec>& ops);
void AddNnOps(std::vector<OpSpec>& ops);
void AddCopyOps(std::vector<OpSpec>& ops);
void AddNestedOps(std::vector<OpSpec>& ops);
void AddSparseCompressedOps(std::vector<OpSpec>& ops);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_OP_REGISTRY_H_
