// Probes of the contiguous baseline's own behaviour: whether the baseline
// reads or writes past its arguments, leaves part of its result unwritten,
// or differs from the variant only with the NaN the inputs were drawn with
// (paid for by findings only; a finding they explain is a baseline failure,
// or low confidence); and whether a backward op's arguments are inside its
// forward's domain (every case of a backward op, before its calls).
//
//   absl::StatusOr<std::string> why =
//       BaselineFault(op, c, variant, written, outcome.evidence.where, device);
//   if (why.ok() && !why->empty()) outcome = BaselineFailure(outcome, *why);
//
// Note [Baselines that read outside]
// Drawn arguments can fit each other's sizes in ways the op never checks:
// a batch norm weight shorter than the channels, saved statistics of
// another input, offsets past the end of indices, a grad_output of another
// shape than the input. The op then reads or writes past the end of an
// argument. The contiguous baseline reaches heap memory there, the strided
// variant dpfuzz's poisoned gaps, so the two differ and the difference
// looks like a layout bug. It is not one: no layout of these arguments is
// right. Before a layout-bug finding is returned, the baseline runs twice
// more with other values after each argument's last element
// (MaterializeTailFilledBaseline: still contiguous, offset 0): the gaps'
// poison (a NaN, which survives 0 * x) and a finite sentinel. When the two
// runs' results differ, the baseline reads past an argument's end; when a
// tail changed in the call (of an argument the op did not resize), it
// writes past one. Either way the finding is a baseline failure
// (FindingKind::kBaselineFailure), kept and reported apart with both
// differences. Only deterministic ops are judged so (the first repeat run
// agreed), and only findings pay for the extra calls: the tail-filled
// baselines are built then, from the variant's storage snapshots. Fresh
// memory holds zeros in these runs (oracles/filled_allocations.h), so
// that what the next note looks for cannot pass for this.
//
// Note [Baselines that read unwritten memory]
// Arguments that do not fit each other can also make an op leave part of
// its result unwritten: an out= the kernel fills only partly
// (_convert_indices_from_csr_to_coo on indices that are not a CSR matrix),
// an out= it resizes, a workspace read before it is written. Such elements
// hold what the out= held before or what the allocator's fresh memory
// held, the same from run to run more often than not, and another layout
// gives other leftovers. So, for a finding about a result, the baseline
// runs again: for an out= call, with its out= tensors filled with zeros
// and then with ones before the call (an out= result never depends on what
// out held); on the CPU, with fresh memory filled with junk instead of
// zeros (the sentinel-tailed run of the note above is the other). When the
// result changes, the baseline's own result is undefined there and the
// finding is a baseline failure. A layout that leaves elements unwritten
// which the contiguous baseline writes (Verdict::kMismatch of a strided
// out=) is not touched: the baseline's result does not change.
//
// Note [Out= tensors the baseline resizes]
// dpfuzz sizes an out= tensor as the functional call's result. When the
// contiguous baseline's out= call still resizes it (LibTorch warns "An
// output with one or more elements was resized since it had shape [2, 1],
// which does not match the required output shape []"), either the out=
// kernel uses a right-size out as scratch for another shape (huber_loss,
// mse_loss and soft_margin_loss with a mean reduction write the unreduced
// loss into a 0-dim out, past its end: a bug), or the arguments are ones
// the op does not take (a linalg_matrix_rank `tol` that does not broadcast
// to the singular values), resized in ways no layout survives. The second
// shows in the functional call too, whose own out= path inside resizes
// (and warns) on those arguments. So, for an out= finding, the baseline's
// out= call runs once more with its warnings read, and when it resized,
// the functional call with its warnings read; both resizing is a baseline
// failure. Only the out= call resizing is the kernel's bug: its writes past
// the out= tensor's end are then no sign of arguments that do not fit
// (Note [Baselines that read outside]).
//
// Note [Findings that need NaN]
// dpfuzz draws some inputs with NaN among its special values because
// kernels mishandle it. How a kernel treats NaN may differ between its
// paths by design: hardtanh_backward at a NaN input gives 0 on the
// vectorized path and the incoming gradient on the scalar one, even on a
// contiguous input. A wrong value, gradient or one-sided rejection that
// shows only with NaN is such a difference more often than a layout bug,
// which reads a wrong element whatever the values. So the case runs once
// more with every NaN of its floating inputs replaced by 0 (the same
// layouts and the same other values, spelled out: kExplicit); when every
// layout agrees there, the finding is low confidence (another finding
// there, a baseline failure among them, decides nothing). Other special
// values stay: a bug may need them (_saturate_weight_to_fp16 returns its
// strided input unclamped, which only values past half's range show). A finding
// a mechanism explains (a gap's poison in the result, a simulated layout
// mistake) is a layout bug whatever the values and is not run again, nor is one
// of an op reading outside its storage, whose rerun may agree by chance.
//
// Note [The forward decides a backward's domain]
// A backward op (aten::huber_loss_backward) is called by autograd only
// with arguments its forward (aten::huber_loss) accepted and with a
// grad_output of the shape the forward returned. Drawn or reduced, a case
// can give it others: a huber delta of -1, which the forward rejects and
// the backward never checks; a 0-dim grad_output for a self of [2]; a
// grad_output [1, 1, 1, 2] for a max_pool3d whose result is [1, 1, 1, 1],
// on which the kernel writes past grad_input and dies. What the kernel does
// with them is undefined, and a difference between its layouts there, or a
// crash, is no bug a maintainer accepts. So, for an op named X_backward
// where an op X exists whose every argument without a default the case
// gives by name, X runs first on the contiguous arguments (a baseline-side
// call: a death there is the arguments'); when it rejects them, or returns
// a first result of other sizes than the backward's grad_output
// ("grad_output", "grad_out", "grad"), the case is rejected before the
// backward is called (both_rejected, an invalid draw, which the reducer
// never reduces to). Backward ops whose forward takes arguments they lack
// (native_batch_norm_backward has no momentum) are not judged so.

#ifndef DPFUZZ_ORACLES_BASELINE_PROBES_H_
#define DPFUZZ_ORACLES_BASELINE_PROBES_H_

#include <ATen/core/dispatch/Dispatcher.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "generators/op_spec.h"
#include "oracles/case_tensors.h"
#include "oracles/run_case.h"
#include "oracles/verdict.h"

namespace dpfuzz {

// `outcome` as a baseline failure: `why` the baseline itself is wrong,
// then the layout variant's difference.
CaseOutcome BaselineFailure(CaseOutcome outcome, const std::string& why);

// Why the contiguous baseline itself misbehaves on the case's arguments,
// "" when it does not: Note [Baselines that read outside], Note
// [Baselines that read unwritten memory] and Note [Out= tensors the
// baseline resizes]. `where` names the result the finding is about.
absl::StatusOr<std::string> BaselineFault(
    const c10::OperatorHandle& op, const Case& c, const CaseTensors& variant,
    const std::vector<std::string>& written, const std::string& where,
    Device device);

// Why the case's arguments are outside its backward op's domain, "" when
// they are not or the op is no backward with a forward to ask (Note [The
// forward decides a backward's domain]). Before any call of the case.
absl::StatusOr<std::string> ForwardFault(const Case& c,
                                         const CaseTensors& variant);

// True when the case's finding (`verdict`) shows only with the NaN its
// floating inputs were drawn with (Note [Findings that need NaN]): the
// case with every NaN replaced by 0 agrees.
bool NeedsNaN(const OpSpec& spec, const Case& c, Verdict verdict);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_BASELINE_PROBES_H_
