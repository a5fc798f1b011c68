// Backward: gradients of a case's outputs with respect to its inputs.
//
// The outputs that require grad are paired, in order, with the case's
// grad_outputs (themselves strided in variants, since kernels often assume
// a contiguous grad_output); autograd computes the gradient of every input
// that requires grad. Exceptions are classified by CallGuarded like any
// other call into LibTorch.

#ifndef DPFUZZ_ORACLES_BACKWARD_H_
#define DPFUZZ_ORACLES_BACKWARD_H_

#include <ATen/ATen.h>

#include <optional>
#include <string>
#include <vector>

#include "oracles/case_tensors.h"
#include "oracles/invoke.h"

namespace dpfuzz {

// outputs: the tensors an op returned (only those requiring grad are
// used); inputs: tensors requiring grad. CallResult::outputs holds one
// gradient per input, zeros where an input was unused.
// The tensors of `args` that require grad, in argument order: what
// RunBackward differentiates with respect to.
std::vector<at::Tensor> GradInputs(const NamedTensors& args);

// "grad of NAME" for each tensor GradInputs returns, in the same order.
std::vector<std::string> GradInputNames(const NamedTensors& args);

CallResult RunBackward(const std::vector<at::Tensor>& outputs,
                       const std::vector<at::Tensor>& inputs,
                       const std::vector<at::Tensor>& grad_outputs);

// Backward on both sides of a case: the baseline's outputs `b` with its
// grad_outputs, then the variant's `v` with its own, as the variant's call
// (oracles/call_phase.h), for crash attribution.
struct Gradients {
  CallResult baseline;
  CallResult variant;
};
Gradients RunBothBackward(const CaseTensors& baseline,
                          const CaseTensors& variant, const CallResult& b,
                          const CallResult& v);

// Gradients of the op's outputs on `tensors` (forward, then backward with
// their grad_outputs); nullopt when either fails.
std::optional<std::vector<at::Tensor>> GradientsOn(
    const c10::OperatorHandle& op, const Case& c, CaseTensors& tensors);

// The outputs of an op that backward differentiates: those requiring grad.
std::vector<at::Tensor> DifferentiableOutputs(
    const std::vector<at::Tensor>& outputs);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_BACKWARD_H_
