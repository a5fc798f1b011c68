#include "oracles/invoke.h"

#include <ATen/core/function_schema.h>
#include <ATen/core/jit_type.h>
#include <ATen/core/stack.h>
#include <c10/util/Logging.h>
#include <torch/cuda.h>

#include <exception>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "generators/aten_bridge.h"
#include "generators/schema_args.h"
#include "oracles/call_phase.h"
#include "oracles/device_sync.h"

namespace dpfuzz {
namespace {

absl::Status Mismatch(const c10::Argument& schema_arg, absl::string_view got) {
  return absl::InvalidArgumentError(
      absl::StrCat("argument \"", schema_arg.name(), "\" of type ",
                   schema_arg.real_type()->str(), " cannot take ", got));
}

// Converts the case value of one non-tensor argument to the IValue that
// `type` expects.
absl::StatusOr<c10::IValue> ToIValue(const c10::Argument& schema_arg,
                                     const c10::TypePtr& type,
                                     const ArgValue& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    if (type->kind() == c10::TypeKind::OptionalType ||
        type->kind() == c10::TypeKind::NoneType) {
      return c10::IValue();
    }
    return Mismatch(schema_arg, "None");
  }
  switch (type->kind()) {
    case c10::TypeKind::OptionalType:
      return ToIValue(schema_arg,
                      type->castRaw<c10::OptionalType>()->getElementType(),
                      value);
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
      if (const auto* i = std::get_if<int64_t>(&value)) return c10::IValue(*i);
      return Mismatch(schema_arg, "a non-integer");
    case c10::TypeKind::FloatType:
      if (const auto* f = std::get_if<FloatArg>(&value))
        return c10::IValue(f->value);
      if (const auto* i = std::get_if<int64_t>(&value)) {
        return c10::IValue(static_cast<double>(*i));
      }
      return Mismatch(schema_arg, "a non-number");
    case c10::TypeKind::BoolType:
      if (const auto* b = std::get_if<bool>(&value)) return c10::IValue(*b);
      return Mismatch(schema_arg, "a non-bool");
    case c10::TypeKind::NumberType:  // Scalar
      if (const auto* i = std::get_if<int64_t>(&value)) {
        return c10::IValue(c10::Scalar(*i));
      }
      if (const auto* f = std::get_if<FloatArg>(&value)) {
        return c10::IValue(c10::Scalar(f->value));
      }
      if (const auto* b = std::get_if<bool>(&value)) {
        return c10::IValue(c10::Scalar(*b));
      }
      return Mismatch(schema_arg, "a non-number");
    case c10::TypeKind::StringType:
      if (const auto* s = std::get_if<std::string>(&value))
        return c10::IValue(*s);
      return Mismatch(schema_arg, "a non-string");
    case c10::TypeKind::ScalarTypeType: {
      const auto* s = std::get_if<std::string>(&value);
      if (s == nullptr) return Mismatch(schema_arg, "a non-string");
      DPFUZZ_ASSIGN_OR_RETURN(DType dtype, ParseDType(*s));
      return c10::IValue(static_cast<int64_t>(ToScalarType(dtype)));
    }
    case c10::TypeKind::MemoryFormatType: {
      const auto* s = std::get_if<std::string>(&value);
      if (s == nullptr) return Mismatch(schema_arg, "a non-string");
      if (*s == "contiguous_format") {
        return c10::IValue(static_cast<int64_t>(at::MemoryFormat::Contiguous));
      }
      if (*s == "channels_last") {
        return c10::IValue(
            static_cast<int64_t>(at::MemoryFormat::ChannelsLast));
      }
      if (*s == "channels_last_3d") {
        return c10::IValue(
            static_cast<int64_t>(at::MemoryFormat::ChannelsLast3d));
      }
      if (*s == "preserve_format") {
        return c10::IValue(static_cast<int64_t>(at::MemoryFormat::Preserve));
      }
      return Mismatch(schema_arg, absl::StrCat("memory format \"", *s, "\""));
    }
    case c10::TypeKind::ListType: {
      const auto* dims = std::get_if<Dims>(&value);
      const c10::TypePtr element =
          type->castRaw<c10::ListType>()->getElementType();
      if (dims != nullptr && (element->kind() == c10::TypeKind::IntType ||
                              element->kind() == c10::TypeKind::SymIntType)) {
        return c10::IValue(std::vector<int64_t>(*dims));
      }
      if (dims != nullptr && element->kind() == c10::TypeKind::BoolType) {
        c10::List<bool> flags;
        for (int64_t d : *dims) flags.push_back(d != 0);
        return c10::IValue(flags);
      }
      return Mismatch(schema_arg, "this list");
    }
    default:
      return Mismatch(schema_arg, "any value dpfuzz generates");
  }
}

// The IValue of one tensor argument (Tensor, Tensor?, Tensor[], Tensor?[]).
absl::StatusOr<c10::IValue> TensorIValue(
    const c10::Argument& schema_arg, const std::vector<at::Tensor>& tensors) {
  c10::TypePtr type = schema_arg.real_type();
  if (type->kind() == c10::TypeKind::ListType) {
    const c10::TypePtr element =
        type->castRaw<c10::ListType>()->getElementType();
    if (element->kind() == c10::TypeKind::OptionalType) {
      c10::List<c10::optional<at::Tensor>> list;
      for (const at::Tensor& t : tensors) list.push_back(t);
      return c10::IValue(list);
    }
    return c10::IValue(c10::List<at::Tensor>(tensors));
  }
  if (tensors.size() != 1) return Mismatch(schema_arg, "a list of tensors");
  return c10::IValue(tensors[0]);
}

void CollectOutputs(const c10::IValue& v, std::vector<at::Tensor>& out) {
  if (v.isTensor()) {
    out.push_back(v.toTensor());
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorVector()) out.push_back(t);
  } else if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements())
      CollectOutputs(e, out);
  } else if (v.isInt()) {
    out.push_back(at::scalar_tensor(v.toInt(), at::kLong));
  } else if (v.isDouble()) {
    out.push_back(at::scalar_tensor(v.toDouble(), at::kDouble));
  } else if (v.isBool()) {
    out.push_back(at::scalar_tensor(v.toBool(), at::kBool));
  }
}

}  // namespace

absl::StatusOr<c10::OperatorHandle> FindOperator(const std::string& name,
                                                 const std::string& overload) {
  c10::optional<c10::OperatorHandle> op =
      c10::Dispatcher::singleton().findSchema({name, overload});
  if (!op.has_value()) {
    return absl::NotFoundError(
        absl::StrCat("operator ", name, overload.empty() ? "" : ".", overload,
                     " is not registered with this LibTorch"));
  }
  return *op;
}

void SkipErrorBacktraces() {
  c10::SetStackTraceFetcher(
      std::function<std::string()>([] { return std::string(); }));
}

std::vector<std::string> WrittenArguments(const c10::OperatorHandle& op) {
  std::vector<std::string> names;
  for (const c10::Argument& arg : op.schema().arguments()) {
    if (arg.alias_info() != nullptr && arg.alias_info()->isWrite()) {
      names.push_back(arg.name());
    }
  }
  return names;
}

absl::StatusOr<CallResult> Invoke(const c10::OperatorHandle& op, const Case& c,
                                  const NamedTensors& tensors) {
  torch::jit::Stack stack;
  for (const c10::Argument& schema_arg : op.schema().arguments()) {
    const auto tensor = tensors.find(schema_arg.name());
    if (tensor != tensors.end() && IsTensorLike(schema_arg.real_type())) {
      DPFUZZ_ASSIGN_OR_RETURN(c10::IValue v,
                              TensorIValue(schema_arg, tensor->second));
      stack.push_back(std::move(v));
      continue;
    }
    const Argument* arg = FindArgument(c, schema_arg.name());
    if (arg != nullptr && !std::holds_alternative<TensorSpec>(arg->value) &&
        !std::holds_alternative<std::vector<TensorSpec>>(arg->value)) {
      DPFUZZ_ASSIGN_OR_RETURN(
          c10::IValue v,
          ToIValue(schema_arg, schema_arg.real_type(), arg->value));
      stack.push_back(std::move(v));
    } else if (schema_arg.default_value().has_value()) {
      stack.push_back(*schema_arg.default_value());
    } else if (schema_arg.real_type()->kind() == c10::TypeKind::OptionalType) {
      stack.push_back(c10::IValue());
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "case for ", QualifiedOpName(c), " has no argument \"",
          schema_arg.name(), "\" required by ", c10::toString(op.schema())));
    }
  }
  std::string densified;
  CallResult result =
      CallGuarded(CaseDevice(c), [&](std::vector<at::Tensor>& outputs) {
        op.callBoxed(&stack);
        for (const c10::IValue& v : stack) CollectOutputs(v, outputs);
        // A sparse or compressed result is read as its dense values, within the
        // call: one an op built from arguments it did not check (2.x's
        // sparse_csr_tensor) and that cannot be densified is the op's failure.
        for (at::Tensor& t : outputs) {
          if (t.defined() && !t.is_nested() && t.layout() != at::kStrided) {
            densified = c10::str(t.layout());
            MarkResultDensified();
            t = t.to_dense();
          }
          // A result with the negative or conjugate bit is read resolved;
          // one that cannot be (_neg_view of a bool) is the op's failure.
          if (t.defined() && (t.is_neg() || t.is_conj())) {
            (void)t.resolve_conj().resolve_neg();
          }
        }
      });
  result.densified = densified;
  return result;
}

CallResult CallGuarded(
    Device device,
    const std::function<void(std::vector<at::Tensor>& outputs)>& body) {
  CallResult result;
  const InCallScope in_call;  // See Note [Call phases].
  try {
    body(result.outputs);
    // See Note [Sticky device errors]: a kernel's error is its call's.
    if (device == Device::kCuda) torch::cuda::synchronize();
    return result;
  } catch (const c10::Error& e) {
    result.error = e.what_without_backtrace();
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  DieIfDeviceLost(device, result.error);
  result.outputs.clear();
  result.outcome = absl::StrContains(result.error, "INTERNAL ASSERT FAILED")
                       ? CallOutcome::kInternalAssert
                       : CallOutcome::kRejected;
  return result;
}

}  // namespace dpfuzz
