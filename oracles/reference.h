// Reference: the float64 runs that a failed comparison is judged against.
//
// When a low-precision result differs from the baseline's by more than the
// dtype's tolerance, RunCase asks how far apart the two may be. Reference
// answers with runs of the case's call in float64 (complex128), each made
// once, on the first question, never on the per-case path:
//  - the value run, on float64 copies of the baseline's inputs: results,
//    input gradients, and the arguments the op mutates by design
//    (generators/contract_rules.h) after the call;
//  - the magnitude of each element (Note [Accumulation error] in
//    oracles/compare.h): the largest of the op on |inputs|, |coefficients|
//    and |grad_outputs| (the sum of |terms| of a sum, a matmul, a
//    convolution), its sensitivity, how much the element moves when every
//    floating input moves by a relative h (a normalization, whose terms
//    cancel by design), and the size of the terms a float32 run rounded
//    (Note [Sensitivity probes]). Dtype arguments ("dtype": "bf16") follow
//    the reference's precision.
// RunCase asks for a magnitude only when the value run alone does not
// settle a comparison (Note [Magnitudes last], ValueThenMagnitude).
// A Reference is constructed before the baseline runs: a call that writes
// or mutates its inputs overwrites them, so those (and only those) are
// copied at once; the float64 copies are made on the first question.
//
//   Reference reference(op, c, baseline, written);
//   ... Invoke(op, c, baseline.args) ...
//   CompareValues(b, v, Comparison::kTolerance, reference.Results()[0],
//                 reference.MagnitudeResults()[0], reference.Terms());

#ifndef DPFUZZ_ORACLES_REFERENCE_H_
#define DPFUZZ_ORACLES_REFERENCE_H_

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generators/case.h"
#include "oracles/case_tensors.h"
#include "oracles/compare.h"

namespace dpfuzz {

class Reference {
 public:
  // Keeps references to all four: they must outlive it.
  Reference(const c10::OperatorHandle& op, const Case& c,
            const CaseTensors& baseline,
            const std::vector<std::string>& written);

  // Of the value run; empty when the float64 call failed. Results are the
  // written arguments for out= and in-place calls, else the outputs.
  const std::vector<at::Tensor>& Results() { return Value().results; }
  const std::vector<at::Tensor>& Grads() { return Value().grads; }
  // The arguments of MutatedByDesign(c), in its order.
  const std::vector<at::Tensor>& Mutated() { return Value().mutated; }

  // Non-negative magnitudes of the same, element by element.
  const std::vector<at::Tensor>& MagnitudeResults() {
    return Magnitude().results;
  }
  const std::vector<at::Tensor>& MagnitudeGrads() { return Magnitude().grads; }
  const std::vector<at::Tensor>& MagnitudeMutated() {
    return Magnitude().mutated;
  }

  // A bound on the terms an element of a result or gradient sums: the
  // elements of the largest floating input or grad_output.
  int64_t Terms() const;

 private:
  struct Run {
    std::vector<at::Tensor> results;
    std::vector<at::Tensor> grads;
    std::vector<at::Tensor> mutated;
  };

  // Whether the call writes or mutates any argument.
  bool Overwrites() const { return !written_.empty() || !mutated_.empty(); }
  const Run& Value();
  const Run& Magnitude();
  Run RunOn(const Case& c, NamedTensors& args,
            const std::vector<at::Tensor>& grad_outputs);

  const c10::OperatorHandle& op_;
  const Case& c_;
  const CaseTensors& baseline_;
  const std::vector<std::string>& written_;
  const std::vector<std::string> mutated_;
  // When the call Overwrites(), its arguments before the call: copies of
  // those it writes or mutates, the others shared.
  NamedTensors inputs_;
  NamedTensors wide_;
  NamedTensors pristine_;  // wide_ before the value run.
  std::optional<Run> value_;
  std::optional<Run> magnitude_;
};

// Element i of `tensors` (a Reference's runs) if it has `like`'s shape,
// else undefined: the reference of a result that has one.
at::Tensor Matching(const std::vector<at::Tensor>& tensors, size_t i,
                    const at::Tensor& like);

// Note [Magnitudes last]
// A magnitude (Reference::Magnitude*: up to six more runs of the op) only
// widens what CompareValues counts as the same: a difference within the
// roundings of an accumulation, an overflow or a NaN where partial sums
// may reach the dtype's range. A comparison that passes against the
// float64 value alone passes with the magnitude too, so the magnitude is
// computed only when that one fails; the verdict is the same either way.
// `compare(magnitude)` compares against the value run, with the magnitude
// when it is defined.
std::optional<Difference> ValueThenMagnitude(
    const std::function<std::optional<Difference>(const at::Tensor&)>& compare,
    const std::function<at::Tensor()>& magnitude);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_REFERENCE_H_
