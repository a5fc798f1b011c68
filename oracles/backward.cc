#include "oracles/backward.h"

#include <torch/csrc/autograd/autograd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "oracles/call_phase.h"

namespace dpfuzz {

std::vector<at::Tensor> GradInputs(const NamedTensors& args) {
  std::vector<at::Tensor> inputs;
  for (const auto& [name, tensors] : args) {
    for (const at::Tensor& t : tensors) {
      if (t.defined() && t.requires_grad()) inputs.push_back(t);
    }
  }
  return inputs;
}

std::vector<std::string> GradInputNames(const NamedTensors& args) {
  std::vector<std::string> names;
  for (const auto& [name, tensors] : args) {
    for (const at::Tensor& t : tensors) {
      if (t.defined() && t.requires_grad())
        names.push_back(absl::StrCat("grad of ", name));
    }
  }
  return names;
}

std::vector<at::Tensor> DifferentiableOutputs(
    const std::vector<at::Tensor>& outputs) {
  std::vector<at::Tensor> out;
  for (const at::Tensor& t : outputs) {
    if (t.defined() && t.requires_grad()) out.push_back(t);
  }
  return out;
}

CallResult RunBackward(const std::vector<at::Tensor>& outputs,
                       const std::vector<at::Tensor>& inputs,
                       const std::vector<at::Tensor>& grad_outputs) {
  const std::vector<at::Tensor> differentiable = DifferentiableOutputs(outputs);
  const bool on_cuda =
      std::any_of(inputs.begin(), inputs.end(),
                  [](const at::Tensor& t) { return t.is_cuda(); });
  return CallGuarded(on_cuda ? Device::kCuda : Device::kCpu,
                     [&](std::vector<at::Tensor>& grads) {
                       TORCH_CHECK(differentiable.size() == grad_outputs.size(),
                                   "dpfuzz: ", differentiable.size(),
                                   " outputs require grad but the case has ",
                                   grad_outputs.size(), " grad_outputs");
                       grads = torch::autograd::grad(differentiable, inputs,
                                                     grad_outputs,
                                                     /*retain_graph=*/false,
                                                     /*create_graph=*/false,
                                                     /*allow_unused=*/true);
                       for (size_t i = 0; i < grads.size(); ++i) {
                         if (!grads[i].defined())
                           grads[i] = at::zeros_like(inputs[i]);
                       }
                     });
}

std::optional<std::vector<at::Tensor>> GradientsOn(
    const c10::OperatorHandle& op, const Case& c, CaseTensors& tensors) {
  absl::StatusOr<CallResult> r = Invoke(op, c, tensors.args);
  if (!r.ok() || r->outcome != CallOutcome::kOk) return std::nullopt;
  CallResult g =
      RunBackward(r->outputs, GradInputs(tensors.args), tensors.grad_outputs);
  if (g.outcome != CallOutcome::kOk) return std::nullopt;
  return std::move(g.outputs);
}

Gradients RunBothBackward(const CaseTensors& baseline,
                          const CaseTensors& variant, const CallResult& b,
                          const CallResult& v) {
  Gradients g;
  g.baseline =
      RunBackward(b.outputs, GradInputs(baseline.args), baseline.grad_outputs);
  const CallSideScope side(CallSide::kVariant);
  g.variant =
      RunBackward(v.outputs, GradInputs(variant.args), variant.grad_outputs);
  return g;
}

}  // namespace dpfuzz
