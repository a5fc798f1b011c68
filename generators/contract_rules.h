// Contract rules: what ops do by design that their schemas do not say.
//
// Two kinds, each an exact entry (op name, and argument name) with its
// reason; a name pattern never excludes an op or an argument:
//  - arguments an op mutates by design without a "!" annotation: the
//    running statistics of the batch norms, updated in place while
//    training, and the noise rrelu_with_noise draws its slopes into. dpfuzz
//    treats such an argument as written when the rule's condition holds
//    (oracles/: its layout never overlaps itself, its change is not
//    input_modified, its values after the call are compared between baseline
//    and variant, so a wrong update of a strided running_var is still found);
//  - ops that are unsafe by contract: they skip argument checks on purpose
//    (the *_unsafe constructors, functorch's batching internals, views of
//    raw buffers) or exist only to test PyTorch itself, so a crash or
//    assert on drawn arguments is not a bug. They are left out of
//    `--op=all` and globs, with the reason `dpfuzz list-ops` prints, and
//    run when named exactly (`--op=aten::_add_batch_dim`).
//  - outputs an op computes from an argument or from its transpose,
//    whichever the argument's layout makes cheaper: the LU factors and
//    pivots that _linalg_det, _linalg_slogdet and _linalg_solve_ex return
//    for their backward are of A for a column-major A and of A^T for a
//    row-major one (det(A) = det(A^T); the backward knows which); and
//    workspaces an op returns for its backward, filled as the kernel's
//    path needs them (embedding_bag's offset2bag, left empty by the fast
//    path a layout turns on or off). Those outputs are not compared; the
//    others are, and the gradients check what the backward reads.
//  - arguments an op assumes contiguous by a documented precondition it
//    does not check, because its public wrapper makes them so:
//    native_functions.yaml's NOTE [ embedding_bag Native Functions ] says
//    the `_embedding_bag` ops assume every input but `weight` contiguous
//    (embedding_bag calls .contiguous() on them, the backward ops get the
//    forward's). A finding that needs such an argument strided is low
//    confidence (crashes/bugs/confidence.h), not dropped.
// Ops of all kinds may be missing from a LibTorch: the tables hold the
// names of 1.13 and 2.x alike. See Note [Rule table] in oracles/rules.h.
//
//   MutatedByDesign(c)       // {"running_mean", "running_var"} for a
//                            // training aten::batch_norm case
//   UnsafeByContract("aten::_sparse_coo_tensor_unsafe")  // its reason
//   OutputChosenByLayout("aten::_linalg_det", 1)          // true: LU
//   AssumedContiguous("aten::_embedding_bag", "indices")  // its reason

#ifndef DPFUZZ_GENERATORS_CONTRACT_RULES_H_
#define DPFUZZ_GENERATORS_CONTRACT_RULES_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "generators/case.h"

namespace dpfuzz {

// An argument `op` mutates in place without a schema annotation.
struct MutatedArgument {
  std::string op;      // Full op name, no overload: "aten::batch_norm".
  std::string arg;     // "running_var".
  std::string when;    // A bool argument that must be true for the
                       // mutation ("training"); empty: always.
  std::string reason;  // One line for people.
};

// The table; then the added rules.
std::vector<MutatedArgument> MutatedArgumentRules();

// The tensor arguments of `c` its op mutates by design, in case order: the
// rule matches c.op exactly, the argument is a tensor in the case, and
// its `when` argument is true.
std::vector<std::string> MutatedByDesign(const Case& c);

// Why `op` (full name, no overload: "aten::_add_batch_dim") is unsafe by
// contract; empty when it is not.
std::string UnsafeByContract(absl::string_view op);

// The exclusion `dpfuzz list-ops` shows for such an op.
std::string UnsafeExclusion(absl::string_view op);

// Whether output `index` of `op` (full name, no overload) depends by design
// on the path a layout picks (computed from a transpose chosen by layout; a
// workspace for the backward filled as the path needs), and so is not
// compared.
bool OutputChosenByLayout(absl::string_view op, size_t index);

// Why `op` (full name, no overload) may assume argument `arg` contiguous
// without checking it; empty when it may not.
std::string AssumedContiguous(absl::string_view op, absl::string_view arg);

// Rules for the ops of a loaded library (a program that embeds dpfuzz, a
// test); call before cases are built.
void AddMutatedArgumentRules(const std::vector<MutatedArgument>& rules);
void AddUnsafeOp(const std::string& op, const std::string& reason);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_CONTRACT_RULES_H_
