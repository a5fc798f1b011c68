// The rule table: what PyTorch leaves undefined or promises about layouts.
//
// Note [Rule table]
// dpfuzz reports only behaviour PyTorch defines. What it leaves undefined is
// kept out in two ways. Some of it is never generated: written tensors
// (out=, in-place self) never overlap themselves, and index tensors of ops
// whose duplicate writes race (scatter, index_put, index_copy) have no
// duplicates (generators/op_args.h, Indices(..., unique)). The rest is
// judged here:
//  - ties (kRuleTiedIndices): index outputs of argmax/sort/topk/kthvalue/
//    median are compared by the values of `self` they select along `dim`;
//  - nondeterminism (kRuleNondeterministic): only shapes, dtypes and errors
//    are compared;
//  - aliasing (Case::aliases): PyTorch may reject a call whose output
//    shares memory with an input; a rejection there is not a finding, a
//    wrong answer is;
//  - what ops do by design without saying so in their schemas
//    (generators/contract_rules.h, exact entries with reasons): arguments
//    mutated in place (the running statistics of the batch norms while
//    training) are treated as written: never drawn overlapping, their
//    change is no input_modified, their values after the call are
//    compared as results; ops unsafe by contract (the *_unsafe
//    constructors, functorch internals, test-only ops) are left out of
//    `--op=all` and run only when named;
//  - gradients of an input whose elements share memory (expanded) are
//    compared summed per memory location: how a layout-aware backward
//    splits one location's gradient among its elements is not defined
//    (Note [Gradients of overlapping leaves], oracles/grad_per_location.h);
//  - rounding (oracles/compare.h): accumulating ops may differ by the
//    roundings of an accumulation, and overflow where partial sums reach
//    the dtype's range (Note [Accumulation error]).
// What PyTorch promises about layouts is checked as layout_contract:
//  - an op with a memory_format argument returns a tensor contiguous in that
//    format, or for preserve_format (and None) self's strides when self is
//    non-overlapping and dense, else a dense tensor (the docs promise
//    contiguous_format there; LibTorch keeps self's dim order, and dpfuzz
//    holds it to what both agree on);
//  - a TensorIterator op (kRulePropagatesStrides) whose tensor inputs are
//    all non-overlapping and dense with one and the same geometry returns
//    that geometry;
//  - an op that keeps its input's memory format (kRuleKeepsMemoryFormat,
//    Note [Ops that keep a memory format] in
//    generators/memory_format_family.h) given a 4-d channels_last or 5-d
//    channels_last_3d input returns a result of that rank in that format.

#ifndef DPFUZZ_ORACLES_RULES_H_
#define DPFUZZ_ORACLES_RULES_H_

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>
#include <string>
#include <vector>

#include "generators/case.h"
#include "generators/op_spec.h"
#include "oracles/compare.h"
#include "oracles/invoke.h"

namespace dpfuzz {

// Compares output `index` of a run with the baseline's, applying the tie
// and nondeterminism rules of `spec`. `self` is the baseline's self (for
// ties), `reference` an optional float64 result, `magnitude` an optional
// float64 result on |inputs| for sums of up to `terms` terms
// (oracles/compare.h).
std::optional<Difference> CompareOutput(const OpSpec& spec, const Case& c,
                                        const at::Tensor& self,
                                        const at::Tensor& expected,
                                        const at::Tensor& actual,
                                        const at::Tensor& reference,
                                        const at::Tensor& magnitude = {},
                                        int64_t terms = 1);

// True when the variant may raise where the baseline does not: the case
// makes an output share memory with an input, or gives an argument mutated
// by design (generators/contract_rules.h) elements that share memory.
bool RejectionAllowed(const Case& c);

// What the functional call of `op` broke of PyTorch's layout promises for
// these (variant) inputs and outputs, or nothing.
std::optional<std::string> CheckLayoutPromises(
    const OpSpec& spec, const Case& c, const c10::OperatorHandle& op,
    const NamedTensors& inputs, const std::vector<at::Tensor>& outputs);

// A memory format the functional call dropped: the input that had it and
// what came back.
struct DroppedFormat {
  std::string argument;  // "self" or "input".
  std::string detail;
};

// Where the call of `c` keeps its input's memory format (FormatKeptInput)
// and that input is a 4-d tensor laid out exactly channels_last or a 5-d
// one channels_last_3d, of no ambiguous sizes: output 0, of that rank, not
// contiguous in that format. Nothing otherwise.
std::optional<DroppedFormat> CheckKeepsMemoryFormat(
    const OpSpec& spec, const Case& c, const NamedTensors& inputs,
    const std::vector<at::Tensor>& outputs);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_RULES_H_
