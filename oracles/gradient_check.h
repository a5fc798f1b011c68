// CheckBackward: the gradient oracle, a case's backward on both sides.
//
// Autograd runs on the baseline's outputs and on the variant's, each with
// its own grad_outputs (oracles/backward.h), and the gradient of every
// input is compared as results are: within the dtype's tolerance, else
// against the float64 reference and, only then, its magnitudes
// (oracles/reference.h). A leaf whose elements share memory has its
// gradients compared summed per memory location. A gradient that differs
// is a kGradMismatch, unless the contiguous baseline does not give it
// twice alike (Note [Unsteady baseline gradients]); the finding says when
// the op's own instability may explain it (oracles/conditioning.h) and,
// where a simulation reproduces it, the mechanism (oracles/mechanism.h).
//
//   if (std::optional<CaseOutcome> grad =
//           CheckBackward(op, c, baseline, variant, b, v, reference)) ...

#ifndef DPFUZZ_ORACLES_GRADIENT_CHECK_H_
#define DPFUZZ_ORACLES_GRADIENT_CHECK_H_

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>

#include "generators/case.h"
#include "oracles/case_tensors.h"
#include "oracles/invoke.h"
#include "oracles/reference.h"
#include "oracles/run_case.h"

namespace dpfuzz {

// `b` and `v`: the baseline's and the variant's forward calls, whose
// outputs are differentiated. nullopt when the gradients agree, when both
// backwards raise, and when a result was read densified (its gradient
// would flow through to_dense's backward, not only the op's).
std::optional<CaseOutcome> CheckBackward(
    const c10::OperatorHandle& op, const Case& c, const CaseTensors& baseline,
    const CaseTensors& variant, const CallResult& b, const CallResult& v,
    Reference& reference);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_GRADIENT_CHECK_H_
