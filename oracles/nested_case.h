// RunNestedCase: the oracles of a case whose arguments include nested
// tensors.
//
// The variant holds each nested argument with the components' layouts its
// spec gives (transposed, permuted, reordered, gapped where the LibTorch
// version allows it); the baseline holds the same values in a contiguous
// nested tensor (what torch.nested.nested_tensor builds) and every dense
// argument dense. Both run the op; then, in order: errors (an internal
// assert, one side rejecting), inputs and the gaps of their storages
// untouched, the results component by component (nested results are
// unbound; exact or with the op's tolerances), and the spec's reference
// (OpSpec::nested_reference): the unbind reference, the op on each
// component alone, a dense batch of one, must give that component of the
// contiguous baseline's result; or the padded one, a padded result holds
// each component in its corner and the padding elsewhere; or the way back,
// from padded, each component of a nested result of dense arguments is the
// corner of its row of the padded argument. A nested kernel that
// reads the buffer as if every component were contiguous fails the first
// comparison; one wrong even on contiguous components fails the second.
// Each nested result must also keep its own layout's promises
// (oracles/nested_promises.h: one row of metadata per component, each
// inside its buffer): a layout contract finding, the baseline's own failure
// when its result breaks one. As for dense ops, a random op's results, or
// a generic op's whose baseline gives other results when run again, are
// compared by sizes and dtypes only.
//
//   absl::StatusOr<CaseOutcome> o = RunNestedCase(spec, c);
//
// With grad_outputs (nested like the results, their components laid out
// as inputs' are), gradients through the op are compared too: the
// contiguous baseline's against the variant's, component by component.

#ifndef DPFUZZ_ORACLES_NESTED_CASE_H_
#define DPFUZZ_ORACLES_NESTED_CASE_H_

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "generators/op_spec.h"
#include "oracles/run_case.h"

namespace dpfuzz {

// True when any tensor argument of the case is nested. RunCase hands these
// cases, and those of a nested spec (whose arguments may all be dense), to
// RunNestedCase.
bool HasNestedTensor(const Case& c);

absl::StatusOr<CaseOutcome> RunNestedCase(const OpSpec& spec, const Case& c);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_NESTED_CASE_H_
