#include "crashes/repro/repro_plan.h"

#include <ATen/core/function_schema.h>
#include <ATen/core/jit_type.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "generators/materialize.h"
#include "generators/memory_format_family.h"
#include "generators/poison.h"
#include "generators/schema_args.h"
#include "oracles/case_tensors.h"
#include "oracles/invoke.h"
#include "oracles/run_case.h"

namespace dpfuzz {
namespace {

template <typename T>
T Load(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

ReproElement RealElement(double value) {
  ReproElement e;
  e.kind = ReproElement::Kind::kReal;
  e.real = value;
  return e;
}

ReproElement IntElement(int64_t value) {
  ReproElement e;
  e.kind = ReproElement::Kind::kInt;
  e.integer = value;
  return e;
}

ReproElement Complex(double re, double im) {
  ReproElement e;
  e.kind = ReproElement::Kind::kComplex;
  e.real = re;
  e.imag = im;
  return e;
}

ReproElement Decode(DType dtype, const uint8_t* p) {
  if (IsPoison(dtype, p)) return ReproElement{ReproElement::Kind::kPoison};
  switch (dtype) {
    case DType::kBool:
    case DType::kUInt8:
      return IntElement(p[0]);
    case DType::kInt8:
      return IntElement(Load<int8_t>(p));
    case DType::kInt16:
      return IntElement(Load<int16_t>(p));
    case DType::kInt32:
      return IntElement(Load<int32_t>(p));
    case DType::kInt64:
      return IntElement(Load<int64_t>(p));
    case DType::kFloat16:
      return RealElement(static_cast<float>(Load<c10::Half>(p)));
    case DType::kBFloat16:
      return RealElement(static_cast<float>(Load<c10::BFloat16>(p)));
    case DType::kFloat32:
      return RealElement(Load<float>(p));
    case DType::kFloat64:
      return RealElement(Load<double>(p));
    case DType::kComplex64:
      return Complex(Load<float>(p), Load<float>(p + 4));
    case DType::kComplex128:
      return Complex(Load<double>(p), Load<double>(p + 8));
  }
  return IntElement(0);
}

std::vector<ReproElement> DecodeAll(DType dtype,
                                    const std::vector<uint8_t>& bytes) {
  const int64_t size = ElementSize(dtype);
  std::vector<ReproElement> out;
  out.reserve(bytes.size() / size);
  for (size_t i = 0; i + size <= bytes.size(); i += size) {
    out.push_back(Decode(dtype, bytes.data() + i));
  }
  return out;
}

// An argument name with every character outside [A-Za-z0-9_] replaced.
std::string RawIdentifier(absl::string_view name) {
  std::string id;
  for (char ch : name) id += absl::ascii_isalnum(ch) ? ch : '_';
  if (id.empty() || absl::ascii_isdigit(id[0])) id = "t" + id;
  return id;
}

// A C++ and Python identifier for an argument name: "self" -> "self_".
std::string Identifier(absl::string_view name) {
  // Python keywords and builtins, C++ keywords, and the names the repro
  // preludes use.
  static const std::set<std::string>* reserved = new std::set<std::string>{
      "self",     "input",       "from",     "in",       "is",      "not",
      "and",      "or",          "type",     "list",     "dict",    "min",
      "max",      "sum",         "abs",      "all",      "any",     "len",
      "range",    "print",       "id",       "float",    "int",     "bool",
      "str",      "lambda",      "global",   "class",    "def",     "if",
      "else",     "for",         "while",    "return",   "import",  "None",
      "True",     "False",       "case",     "default",  "delete",  "new",
      "this",     "union",       "signed",   "unsigned", "char",    "short",
      "long",     "double",      "auto",     "const",    "static",  "struct",
      "args",     "a",           "view",     "dense",    "storage", "call",
      "main",     "variant",     "baseline", "wide",     "names",   "inputs",
      "storages", "grad_outputs"};
  std::string id = RawIdentifier(name);
  if (reserved->count(id) > 0) id += "_";
  return id;
}

// "tensors[1]" -> {"tensors", 1}; "self" -> {"self", -1}.
std::pair<std::string, int64_t> SplitGroupName(const std::string& name) {
  const size_t bracket = name.find('[');
  if (bracket == std::string::npos) return {name, -1};
  return {name.substr(0, bracket),
          std::stoll(name.substr(bracket + 1, name.size() - bracket - 2))};
}

std::string TensorName(const std::string& arg, int64_t index) {
  return index < 0 ? Identifier(arg)
                   : absl::StrCat(Identifier(arg), "_", index);
}

const TensorSpec* SpecOf(const Case& c, const std::string& arg, int64_t index) {
  const Argument* a = FindArgument(c, arg);
  if (a == nullptr) return nullptr;
  if (index < 0) return std::get_if<TensorSpec>(&a->value);
  const auto* list = std::get_if<std::vector<TensorSpec>>(&a->value);
  return list != nullptr && index < static_cast<int64_t>(list->size())
             ? &(*list)[index]
             : nullptr;
}

// The variant's storages and views, with the baseline's values.
absl::Status AddTensors(const Case& c, ReproPlan& plan) {
  Case cpu = c;  // The values are the same bits on any device.
  PlaceOnDevice(cpu, Device::kCpu);
  DPFUZZ_ASSIGN_OR_RETURN(CaseTensors variant, MaterializeVariant(cpu));
  const CaseTensors baseline = MaterializeBaseline(variant);
  std::vector<ReproTensor> by_group;
  for (const StorageGroup& group : variant.groups) {
    const TensorSpec& first = group.specs.front();
    const auto [base_arg, base_index] = SplitGroupName(group.args.back());
    ReproStorage storage;
    storage.name = absl::StrCat(
        RawIdentifier(base_arg),
        base_index < 0 ? "" : absl::StrCat("_", base_index), "_storage");
    storage.dtype = first.dtype;
    const TensorSpec* original = SpecOf(c, base_arg, base_index);
    storage.device = original != nullptr ? original->device : Device::kCpu;
    storage.elements = DecodeAll(first.dtype, group.before);
    plan.storages.push_back(std::move(storage));
    for (size_t i = 0; i < group.args.size(); ++i) {
      const auto [arg, index] = SplitGroupName(group.args[i]);
      ReproTensor t;
      t.arg = arg;
      t.index = index;
      t.name = TensorName(arg, index);
      t.storage = static_cast<int>(plan.storages.size()) - 1;
      t.dtype = group.specs[i].dtype;
      t.layout = group.specs[i].layout;
      t.components = group.specs[i].components;
      t.requires_grad = group.specs[i].requires_grad;
      const at::Tensor& dense = baseline.args.at(arg).at(index < 0 ? 0 : index);
      t.baseline = DecodeAll(t.dtype, ReadLogicalBytes(dense));
      by_group.push_back(std::move(t));
    }
  }
  // Case order: plain tensors and Tensor[] elements as the case lists them.
  for (const Argument& arg : c.args) {
    for (const ReproTensor& t : by_group) {
      if (t.arg == arg.name) plan.tensors.push_back(t);
    }
  }
  for (size_t i = 0; i < c.grad_outputs.size(); ++i) {
    const TensorSpec& spec = c.grad_outputs[i];
    ReproStorage storage;
    storage.name = absl::StrCat("grad_output_", i, "_storage");
    storage.dtype = spec.dtype;
    storage.device = spec.device;
    storage.elements =
        DecodeAll(spec.dtype, ReadStorageBytes(variant.grad_outputs[i]));
    plan.storages.push_back(std::move(storage));
    ReproTensor t;
    t.arg = "grad_outputs";
    t.index = static_cast<int64_t>(i);
    t.name = absl::StrCat("grad_output_", i);
    t.storage = static_cast<int>(plan.storages.size()) - 1;
    t.dtype = spec.dtype;
    t.layout = spec.layout;
    t.components = spec.components;
    t.baseline =
        DecodeAll(spec.dtype, ReadLogicalBytes(baseline.grad_outputs[i]));
    plan.grad_outputs.push_back(std::move(t));
  }
  return absl::OkStatus();
}

absl::Status Unfit(const c10::Argument& schema_arg, absl::string_view got) {
  return absl::InvalidArgumentError(
      absl::StrCat("argument \"", schema_arg.name(), "\" of type ",
                   schema_arg.real_type()->str(), " cannot take ", got));
}

// The kind of a case's non-tensor value for a schema type (as Invoke's
// conversion decides it).
absl::StatusOr<ReproArgKind> LiteralKind(const c10::Argument& schema_arg,
                                         const c10::TypePtr& type,
                                         const ArgValue& value) {
  if (std::holds_alternative<std::monostate>(value)) {
    if (type->kind() == c10::TypeKind::OptionalType ||
        type->kind() == c10::TypeKind::NoneType) {
      return ReproArgKind::kNone;
    }
    return Unfit(schema_arg, "None");
  }
  const bool is_int = std::holds_alternative<int64_t>(value);
  const bool is_float = std::holds_alternative<FloatArg>(value);
  const bool is_string = std::holds_alternative<std::string>(value);
  switch (type->kind()) {
    case c10::TypeKind::OptionalType:
      return LiteralKind(schema_arg,
                         type->castRaw<c10::OptionalType>()->getElementType(),
                         value);
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
      if (is_int) return ReproArgKind::kInt;
      return Unfit(schema_arg, "a non-integer");
    case c10::TypeKind::FloatType:
      if (is_int || is_float) return ReproArgKind::kFloat;
      return Unfit(schema_arg, "a non-number");
    case c10::TypeKind::BoolType:
      if (std::holds_alternative<bool>(value)) return ReproArgKind::kBool;
      return Unfit(schema_arg, "a non-bool");
    case c10::TypeKind::NumberType:
      if (is_int || is_float || std::holds_alternative<bool>(value)) {
        return ReproArgKind::kScalar;
      }
      return Unfit(schema_arg, "a non-number");
    case c10::TypeKind::StringType:
      if (is_string) return ReproArgKind::kString;
      return Unfit(schema_arg, "a non-string");
    case c10::TypeKind::ScalarTypeType:
      if (is_string && ParseDType(std::get<std::string>(value)).ok()) {
        return ReproArgKind::kDType;
      }
      return Unfit(schema_arg, "a value that is not a dtype name");
    case c10::TypeKind::MemoryFormatType: {
      static const std::set<std::string> kFormats = {
          "contiguous_format", "channels_last", "channels_last_3d",
          "preserve_format"};
      if (is_string && kFormats.count(std::get<std::string>(value)) > 0) {
        return ReproArgKind::kMemoryFormat;
      }
      return Unfit(schema_arg, "a value that is not a memory format");
    }
    case c10::TypeKind::ListType: {
      const c10::TypePtr element =
          type->castRaw<c10::ListType>()->getElementType();
      if (std::holds_alternative<Dims>(value) &&
          (element->kind() == c10::TypeKind::IntType ||
           element->kind() == c10::TypeKind::SymIntType)) {
        return ReproArgKind::kIntList;
      }
      if (std::holds_alternative<Dims>(value) &&
          element->kind() == c10::TypeKind::BoolType) {
        return ReproArgKind::kBoolList;
      }
      return Unfit(schema_arg, "this list");
    }
    default:
      return Unfit(schema_arg, "any value dpfuzz generates");
  }
}

absl::StatusOr<ReproArg> PlanArgument(const c10::Argument& schema_arg,
                                      const Case& c) {
  ReproArg out;
  out.name = schema_arg.name();
  out.kwarg_only = schema_arg.kwarg_only();
  const Argument* arg = FindArgument(c, schema_arg.name());
  const c10::TypePtr& type = schema_arg.real_type();
  if (arg != nullptr && IsTensorLike(type) &&
      (std::holds_alternative<TensorSpec>(arg->value) ||
       std::holds_alternative<std::vector<TensorSpec>>(arg->value))) {
    if (type->kind() != c10::TypeKind::ListType) {
      if (!std::holds_alternative<TensorSpec>(arg->value)) {
        return Unfit(schema_arg, "a list of tensors");
      }
      out.kind = ReproArgKind::kTensor;
    } else {
      const c10::TypePtr element =
          type->castRaw<c10::ListType>()->getElementType();
      out.kind = element->kind() == c10::TypeKind::OptionalType
                     ? ReproArgKind::kOptionalTensorList
                     : ReproArgKind::kTensorList;
    }
    return out;
  }
  if (arg != nullptr && !std::holds_alternative<TensorSpec>(arg->value) &&
      !std::holds_alternative<std::vector<TensorSpec>>(arg->value)) {
    DPFUZZ_ASSIGN_OR_RETURN(out.kind,
                            LiteralKind(schema_arg, type, arg->value));
    out.value = arg->value;
    return out;
  }
  if (schema_arg.default_value().has_value()) {
    out.kind = ReproArgKind::kDefault;
  } else if (type->kind() == c10::TypeKind::OptionalType) {
    out.kind = ReproArgKind::kNone;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("case for ", QualifiedOpName(c), " has no argument \"",
                     schema_arg.name(), "\" required by the schema"));
  }
  return out;
}

// See MemoryFormatArgument in oracles/rules.cc.
std::string MemoryFormatPromise(const Case& c, const c10::FunctionSchema& s) {
  for (const c10::Argument& arg : s.arguments()) {
    if (arg.name() != "memory_format") continue;
    if (const Argument* given = FindArgument(c, "memory_format")) {
      const auto* name = std::get_if<std::string>(&given->value);
      if (name == nullptr || *name == "preserve_format")
        return "preserve_format";
      if (*name == "channels_last" || *name == "channels_last_3d") return *name;
      return "contiguous_format";
    }
    if (arg.default_value().has_value() && arg.default_value()->isInt()) {
      switch (static_cast<at::MemoryFormat>(arg.default_value()->toInt())) {
        case at::MemoryFormat::Contiguous:
          return "contiguous_format";
        case at::MemoryFormat::ChannelsLast:
          return "channels_last";
        case at::MemoryFormat::ChannelsLast3d:
          return "channels_last_3d";
        default:
          return "preserve_format";
      }
    }
    return "preserve_format";
  }
  return "";
}

}  // namespace

FloatText ExactFloatText(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string shortest(buffer, end);
  int digits = 0;
  for (char ch : shortest) {
    if (ch == 'e') break;
    if (absl::ascii_isdigit(ch)) ++digits;
  }
  if (digits <= 12) {
    // A Python float and a C++ double literal need a '.' or an exponent.
    if (shortest.find_first_of(".e") == std::string::npos) shortest += ".0";
    return {shortest, false};
  }
  auto [hex_end, hex_ec] =
      std::to_chars(buffer, buffer + sizeof(buffer), std::fabs(value),
                    std::chars_format::hex);
  return {absl::StrCat(std::signbit(value) ? "-" : "", "0x",
                       std::string(buffer, hex_end)),
          true};
}

absl::StatusOr<ReproCheck> CheckFor(Verdict verdict) {
  switch (verdict) {
    case Verdict::kMismatch:
    case Verdict::kNanIntroduced:
      return ReproCheck::kValues;
    case Verdict::kRejectionMismatch:
      return ReproCheck::kRejection;
    case Verdict::kInternalAssert:
      return ReproCheck::kInternalAssert;
    case Verdict::kInputModified:
    case Verdict::kOutsideWrite:
      return ReproCheck::kStorage;
    case Verdict::kGradMismatch:
      return ReproCheck::kGrads;
    case Verdict::kLayoutContract:
      return ReproCheck::kLayout;
    case Verdict::kDeviceMismatch:
      return ReproCheck::kDevice;
    case Verdict::kCrash:
    case Verdict::kTimeout:
    case Verdict::kOom:
      return ReproCheck::kCall;
    case Verdict::kLeak:
    case Verdict::kMemoryAmplification:
    case Verdict::kPerfCliff:
      return ReproCheck::kCost;
    case Verdict::kAgree:
    case Verdict::kBothRejected:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("verdict \"", VerdictName(verdict),
                   "\" is not a finding; there is nothing to reproduce"));
}

absl::StatusOr<ReproPlan> BuildReproPlan(const Case& c, const OpSpec& spec,
                                         Verdict verdict) {
  ReproPlan plan;
  plan.c = c;
  plan.verdict = verdict;
  DPFUZZ_ASSIGN_OR_RETURN(plan.check, CheckFor(verdict));
  DPFUZZ_ASSIGN_OR_RETURN(c10::OperatorHandle op, OperatorFor(spec, c.variant));
  const c10::FunctionSchema& schema = op.schema();
  plan.schema_name = schema.name();
  plan.overload = schema.overload_name();
  plan.schema = c10::toString(schema);
  for (const c10::Argument& schema_arg : schema.arguments()) {
    DPFUZZ_ASSIGN_OR_RETURN(ReproArg arg, PlanArgument(schema_arg, c));
    plan.args.push_back(std::move(arg));
  }
  plan.written = WrittenArguments(op);
  DPFUZZ_RETURN_IF_ERROR(AddTensors(c, plan));
  for (const std::string& name : plan.written) {
    const Argument* arg = FindArgument(c, name);
    if (arg == nullptr || !std::holds_alternative<TensorSpec>(arg->value)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "case for ", QualifiedOpName(c), " ", VariantName(c.variant),
          " has no tensor argument \"", name, "\" for the schema to write"));
    }
  }
  plan.backward = !c.grad_outputs.empty() && plan.written.empty();
  plan.exact = spec.comparison == Comparison::kExact;
  plan.per_component =
      spec.nested && spec.nested_reference == NestedReference::kPerComponent;
  plan.tied_indices = (spec.rules & kRuleTiedIndices) != 0;
  if (const Argument* dim = FindArgument(c, "dim")) {
    if (const auto* d = std::get_if<int64_t>(&dim->value)) plan.tie_dim = *d;
  }
  plan.nondeterministic = (spec.rules & kRuleNondeterministic) != 0;
  plan.propagates_strides = (spec.rules & kRulePropagatesStrides) != 0;
  plan.keeps_memory_format = !FormatKeptInput(c, spec.rules).empty();
  plan.rejection_allowed = !c.aliases.empty();
  plan.memory_format = MemoryFormatPromise(c, schema);
  return plan;
}

}  // namespace dpfuzz
