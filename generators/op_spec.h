// OpSpec: what dpfuzz knows about one curated ATen operator.
//
// A curated spec names the operator's schemas (functional, out=, in-place),
// says how to draw valid arguments for one case, which dtypes it accepts,
// whether it is differentiable, and how its results are compared. The
// arguments it draws are logical: contiguous TensorSpecs whose sizes and
// values fit together, plus non-tensor values, all named as in the
// functional schema. The engine (oracles/) varies their layouts, adds out=
// tensors and grad_outputs, and calls the schemas through the dispatcher.
//
//   OpSpec{.op = "aten::masked_select", .overload = "",
//          .out_overload = "out", .family = "indexing",
//          .comparison = Comparison::kExact, .dtypes = AllDTypes(),
//          .make_args = [](Rng& rng, DType dtype) { ... }}
//
// Specs live in generators/ops_<family>.cc; generators/op_registry.h lists
// them.

#ifndef DPFUZZ_GENERATORS_OP_SPEC_H_
#define DPFUZZ_GENERATORS_OP_SPEC_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "generators/case.h"
#include "generators/dtype.h"
#include "generators/rng.h"

namespace dpfuzz {

enum class Comparison : uint8_t {
  kExact,      // No accumulation: results must agree exactly (all NaNs
               // equal, -0.0 == 0.0).
  kTolerance,  // Accumulates: torch.testing.assert_close tolerances, with
               // slack from a float64 reference (oracles/compare.h).
};

// What PyTorch leaves undefined for an op, so it is never reported
// (oracles/ applies these; see Note [Rule table] in oracles/rules.h).
enum OpRule : uint32_t {
  // Integer index outputs may differ where values tie: they are compared by
  // the values of `self` they select along the case's `dim`.
  kRuleTiedIndices = 1u << 0,
  // A TensorIterator op: for inputs that are all non-overlapping and dense
  // with the same strides, the output takes those strides.
  kRulePropagatesStrides = 1u << 1,
  // Results may legitimately differ between runs (a random op or a
  // nondeterministic kernel): only shapes, dtypes and errors are compared.
  kRuleNondeterministic = 1u << 2,
  // Not known to be deterministic (a generic op): the baseline runs twice,
  // and when the two runs differ the case is judged as kRuleNondeterministic.
  kRuleCheckDeterminism = 1u << 3,
  // Keeps a channels_last (4-d) or channels_last_3d (5-d) input's memory
  // format in its result (Note [Ops that keep a memory format] in
  // generators/memory_format_family.h, whose table gives it to ATen ops).
  kRuleKeepsMemoryFormat = 1u << 4,
};

// The reference a nested op's result is checked against, beside the
// contiguous nested baseline.
enum class NestedReference : uint8_t {
  kNone,          // None: only layouts are compared.
  kPerComponent,  // The op on each component alone (a dense batch of one)
                  // gives that component of the result.
  kPadded,        // A dense result holds each component of `self` in its
                  // corner and `padding` everywhere else
                  // (nested_to_padded_tensor).
  kFromPadded,    // The way back: component i of a nested result is the
                  // corner of row i of the first tensor argument, the
                  // padded one (_nested_from_padded, _nested_tensor_from_mask).
};

struct OpSpec {
  std::string op;            // "aten::add"
  std::string overload;      // Functional overload: "Tensor"; "" none.
  std::string out_overload;  // "out" for aten::add.out; "" when none.
  bool has_inplace = false;  // aten::add_ with the functional overload.
  // `op` exists only in place (myns::scale_, no functional overload): it
  // is its own in-place variant, the only one, and its contiguous baseline
  // is the same op on a contiguous copy of self.
  bool inplace_only = false;
  // `op` reads no tensor (a factory: arange, eye, full): only its out=
  // variant has a layout to vary, the out tensor's; it is the only variant,
  // and its baseline is the functional op.
  bool out_only = false;
  std::string family;           // "pointwise", "reduction", ...
  bool differentiable = false;  // Backward is checked for float dtypes.
  Comparison comparison = Comparison::kExact;
  uint32_t rules = 0;         // Bit set of OpRule.
  std::vector<DType> dtypes;  // Dtypes make_args accepts.
  // Tensor arguments that keep the contiguous layout: the op addresses
  // their storage through explicit strides it is given (as_strided_scatter's
  // self), so another layout means other elements by definition.
  std::vector<std::string> fixed_layout = {};
  // Tensor arguments whose layouts never overlap (no stride 0, no elements
  // sharing memory), as written ones: their values hold a structure that
  // repeating an element breaks (a compressed sparse tensor's indices,
  // which start at 0, end at nnz and never decrease), so a variant that
  // reads one element twice would call the op on other, invalid arguments.
  std::vector<std::string> never_overlap = {};
  // Nested-tensor spec (generators/ops_nested.cc): make_args draws nested
  // TensorSpecs; the engine varies their components' layouts and judges
  // with oracles/nested_case.h. Listed as "nested:<op>" (NestedSpecName),
  // beside the op's dense spec.
  bool nested = false;
  // With `nested`: what the contiguous nested baseline's result must equal
  // (oracles/nested_case.h).
  NestedReference nested_reference = NestedReference::kNone;
  // Not empty: why make_args cannot draw the arguments (an argument of a
  // type the generators do not draw, such as linalg_norm.ord_str's str
  // ord), so that cases come only from recorded seeds
  // (generators/seed_corpus.h), which give one; make_args is then unset.
  std::string seeds_only = {};
  // Logical arguments of one case for `dtype`, named as in the schema.
  std::function<std::vector<Argument>(Rng& rng, DType dtype)> make_args;
};

// The prefix that names a nested spec: "nested:aten::relu".
inline constexpr char kNestedPrefix[] = "nested:";

// The name a spec is listed, selected and ticketed by: "aten::add.Tensor",
// "aten::relu", "nested:aten::relu" (FindOp finds it again).
inline std::string SpecName(const OpSpec& spec) {
  return (spec.nested ? kNestedPrefix : "") + spec.op +
         (spec.overload.empty() ? "" : ".") + spec.overload;
}

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_OP_SPEC_H_
