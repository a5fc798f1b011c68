// ReproPlan: everything a standalone repro of one finding has to do, in no
// particular language.
//
// A repro rebuilds the case exactly as dpfuzz ran it, then performs the one
// check that shows the finding's verdict. The plan holds the literal data
// for that: every storage of the strided variant element by element (the
// poison of gaps and margins included, Note [Poisoned gaps]; aliased
// arguments share one storage), the views over them (sizes, strides,
// storage offset), the dense baseline's logical values, the schema the
// variant calls with each argument's value or "the schema's default", and
// the check that mirrors the oracle that produced the verdict. The Python
// and C++ emitters (crashes/repro/repro_python.h, crashes/repro/repro_cpp.h)
// only print a plan.
//
//   absl::StatusOr<ReproPlan> plan =
//       BuildReproPlan(c, *FindCuratedOp("aten::tril"),
//       Verdict::kOutsideWrite);
//   plan->check == ReproCheck::kStorage;
//   plan->storages[0].elements[0].kind == ReproElement::Kind::kPoison;
//
// Building a plan materializes the case on the CPU (a CUDA case's values are
// the same bits; the repro moves each storage to the device as one dense
// block, as dpfuzz does), so it needs LibTorch but no device, and runs no op.

#ifndef DPFUZZ_CRASHES_REPRO_REPRO_PLAN_H_
#define DPFUZZ_CRASHES_REPRO_REPRO_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "generators/op_spec.h"
#include "oracles/verdict.h"

namespace dpfuzz {

// How long a timeout repro lets the call run before it reports the hang.
inline constexpr int kReproTimeoutSeconds = 60;

// One element of a storage or of a dense tensor, exactly.
struct ReproElement {
  enum class Kind : uint8_t {
    kPoison,   // dpfuzz's poison pattern for the dtype.
    kInt,      // Integers, and bool as 0 or 1 (any other byte as itself).
    kReal,     // f16, bf16, f32, f64: `real` holds the value exactly.
    kComplex,  // c64, c128: `real` and `imag`.
  };
  Kind kind = Kind::kInt;
  int64_t integer = 0;
  double real = 0;
  double imag = 0;
};

// A floating value as text that reads back bit for bit: the shortest
// round-trip decimal ("1.5", "-0.0", "3e-08") when it has at most 12
// significant digits, else C99 hex ("0x1.99999ap-4", is_hex). NaN and the
// infinities are left to the emitter (their text is "nan", "inf", "-inf").
struct FloatText {
  std::string text;
  bool is_hex = false;
};
FloatText ExactFloatText(double value);

// One storage of the variant: a dense 1-d block of `dtype` on `device`.
struct ReproStorage {
  std::string name;  // An identifier: "out_storage".
  DType dtype = DType::kFloat32;
  Device device = Device::kCpu;
  std::vector<ReproElement> elements;
};

// One tensor argument (or Tensor[] element, or grad_output) of the case.
struct ReproTensor {
  std::string arg;     // Schema argument name: "self", "tensors".
  int64_t index = -1;  // Element of a Tensor[] / grad_outputs; -1: none.
  std::string name;    // An identifier: "self_", "tensors_1".
  int storage = 0;     // Index into ReproPlan::storages (variant only).
  DType dtype = DType::kFloat32;
  StridedLayout layout;   // The variant's view.
  Components components;  // A nested tensor's (then `layout` is empty).
  bool requires_grad = false;
  // The contiguous baseline: the logical values the variant's view holds
  // before the op runs, row-major (oracles/case_tensors.h), on the
  // variant's device.
  std::vector<ReproElement> baseline;
};

// How a repro passes one schema argument.
enum class ReproArgKind : uint8_t {
  kDefault,             // Not in the case: the schema's default.
  kNone,                // None.
  kTensor,              // A tensor of ReproPlan::tensors.
  kTensorList,          // Tensor[]: the tensors with this arg, in order.
  kOptionalTensorList,  // Tensor?[], all present.
  kInt,                 // int, SymInt.
  kFloat,               // float.
  kBool,                // bool.
  kScalar,              // Scalar: an int, float or bool value.
  kString,              // str.
  kDType,               // ScalarType: a dpfuzz dtype name in `value`.
  kMemoryFormat,        // MemoryFormat: "channels_last", ...
  kIntList,             // int[], SymInt[].
  kBoolList,            // bool[]: Dims of 0 and 1 in the case.
};

struct ReproArg {
  std::string name;
  ReproArgKind kind = ReproArgKind::kDefault;
  bool kwarg_only = false;  // After `*` in the schema.
  ArgValue value;           // The case's value, for the literal kinds.
};

// The check a repro performs: the oracle that produces the verdict.
enum class ReproCheck : uint8_t {
  kValues,          // mismatch, nan_introduced: results vs the baseline's.
  kRejection,       // rejection_mismatch: one side raises, the other not.
  kInternalAssert,  // internal_assert: "INTERNAL ASSERT FAILED".
  kStorage,         // input_modified, outside_write: storage snapshots.
  kGrads,           // grad_mismatch: gradients vs the baseline's.
  kLayout,          // layout_contract: out= kept, or the layout promises.
  kDevice,          // device_mismatch: the contiguous baseline on its
                    // device vs the same values on the CPU.
  kCall,            // crash, timeout, oom: only the variant's call.
  kCost,            // leak, memory_amplification, perf_cliff: what both
                    // sides' calls allocate or take (Python only).
};

absl::StatusOr<ReproCheck> CheckFor(Verdict verdict);

struct ReproPlan {
  Case c;
  Verdict verdict = Verdict::kMismatch;
  ReproCheck check = ReproCheck::kValues;
  std::string schema_name;     // The schema the variant calls: "aten::add_".
  std::string overload;        // "Tensor"; "" for the default overload.
  std::string schema;          // Its signature, for comments.
  std::vector<ReproArg> args;  // In schema order.
  std::vector<std::string> written;  // Arguments the schema writes.
  std::vector<ReproStorage> storages;
  std::vector<ReproTensor> tensors;       // Tensor arguments, case order.
  std::vector<ReproTensor> grad_outputs;  // Each in a storage of its own.
  bool backward = false;  // grad_outputs given and nothing written.
  bool exact = true;      // Comparison::kExact (else kTolerance).
  // A nested spec's unbind reference (Note [Unbind reference] in
  // oracles/nested_case.cc) is checked too.
  bool per_component = false;
  bool tied_indices = false;        // kRuleTiedIndices.
  std::optional<int64_t> tie_dim;   // The case's `dim`, for ties.
  bool nondeterministic = false;    // kRuleNondeterministic.
  bool propagates_strides = false;  // kRulePropagatesStrides.
  // The call keeps its input's memory format (FormatKeptInput).
  bool keeps_memory_format = false;
  bool rejection_allowed = false;  // Aliased arguments (rules.h).
  // The memory format the functional call promises (rules.h): empty when
  // the schema has no memory_format argument, else "preserve_format",
  // "contiguous_format", "channels_last" or "channels_last_3d".
  std::string memory_format;
};

absl::StatusOr<ReproPlan> BuildReproPlan(const Case& c, const OpSpec& spec,
                                         Verdict verdict);

// Whether the plan's tensors are on CUDA (a case's tensors share one
// device, CaseDevice).
inline bool OnCuda(const ReproPlan& plan) {
  return !plan.storages.empty() && plan.storages[0].device == Device::kCuda;
}

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_REPRO_PLAN_H_
