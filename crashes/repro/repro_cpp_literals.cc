#include "crashes/repro/repro_cpp_literals.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "crashes/repro/repro_text.h"

namespace dpfuzz {

std::string CppScalarType(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "at::kBool";
    case DType::kUInt8:
      return "at::kByte";
    case DType::kInt8:
      return "at::kChar";
    case DType::kInt16:
      return "at::kShort";
    case DType::kInt32:
      return "at::kInt";
    case DType::kInt64:
      return "at::kLong";
    case DType::kFloat16:
      return "at::kHalf";
    case DType::kBFloat16:
      return "at::kBFloat16";
    case DType::kFloat32:
      return "at::kFloat";
    case DType::kFloat64:
      return "at::kDouble";
    case DType::kComplex64:
      return "at::kComplexFloat";
    case DType::kComplex128:
      return "at::kComplexDouble";
  }
  return "";
}

std::string CppFloat(double value) {
  if (std::isnan(value)) return std::signbit(value) ? "-kNan" : "kNan";
  if (std::isinf(value)) return value < 0 ? "-kInf" : "kInf";
  return ExactFloatText(value).text;  // Hex floats are C++17 literals.
}

std::string CppInt(int64_t value) {
  if (value == INT64_MIN) return "(-9223372036854775807LL - 1)";
  if (value > INT32_MAX || value < INT32_MIN) return absl::StrCat(value, "LL");
  return absl::StrCat(value);
}

std::string CppElement(const ReproElement& e) {
  switch (e.kind) {
    case ReproElement::Kind::kPoison:
      return "kPoison";
    case ReproElement::Kind::kInt:
      return CppInt(e.integer);
    case ReproElement::Kind::kReal:
      return CppFloat(e.real);
    case ReproElement::Kind::kComplex:
      return absl::StrCat("{", CppFloat(e.real), ", ", CppFloat(e.imag), "}");
  }
  return "";
}

std::string CppElementList(const std::vector<ReproElement>& elements,
                           absl::string_view head, absl::string_view tail) {
  const std::vector<std::string> items =
      ElementItems(elements, CppElement,
                   [](int64_t n) { return absl::StrCat("Poison(", n, ")"); });
  const std::string one_line =
      absl::StrCat("{", absl::StrJoin(items, ", "), "}");
  if (head.size() + one_line.size() + tail.size() <= 80) return one_line;
  return absl::StrCat("{\n      ", WrapItems(items, 6), "}");
}

std::string CppDims(const Dims& dims) {
  return absl::StrCat("{", absl::StrJoin(dims, ", "), "}");
}

std::string CppLayout(const StridedLayout& l) {
  return absl::StrCat("{", CppDims(l.sizes), ", ", CppDims(l.strides), ", ",
                      l.storage_offset, "}");
}

std::string CppQuoted(absl::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '\\' || ch == '"') out += '\\';
    out += ch;
  }
  return out + "\"";
}

std::string CppMemoryFormat(const std::string& name) {
  if (name == "channels_last") return "at::MemoryFormat::ChannelsLast";
  if (name == "channels_last_3d") return "at::MemoryFormat::ChannelsLast3d";
  if (name == "preserve_format") return "at::MemoryFormat::Preserve";
  return "at::MemoryFormat::Contiguous";
}

std::string CppStackValue(const ReproArg& arg) {
  const ArgValue& v = arg.value;
  switch (arg.kind) {
    case ReproArgKind::kDefault:
      return absl::StrCat("Default(op, ", CppQuoted(arg.name), ")");
    case ReproArgKind::kNone:
      return "c10::IValue()";
    case ReproArgKind::kTensor:
      return absl::StrCat("T(a, ", CppQuoted(arg.name), ")");
    case ReproArgKind::kTensorList:
      return absl::StrCat("TList(a, ", CppQuoted(arg.name), ")");
    case ReproArgKind::kOptionalTensorList:
      return absl::StrCat("OptTList(a, ", CppQuoted(arg.name), ")");
    case ReproArgKind::kInt:
      return absl::StrCat("c10::IValue(static_cast<int64_t>(",
                          CppInt(std::get<int64_t>(v)), "))");
    case ReproArgKind::kFloat:
      if (const auto* i = std::get_if<int64_t>(&v)) {
        return absl::StrCat("c10::IValue(", CppFloat(static_cast<double>(*i)),
                            ")");
      }
      return absl::StrCat("c10::IValue(", CppFloat(std::get<FloatArg>(v).value),
                          ")");
    case ReproArgKind::kBool:
      return std::get<bool>(v) ? "c10::IValue(true)" : "c10::IValue(false)";
    case ReproArgKind::kScalar:
      if (const auto* i = std::get_if<int64_t>(&v)) {
        return absl::StrCat("c10::IValue(c10::Scalar(static_cast<int64_t>(",
                            CppInt(*i), ")))");
      }
      if (const auto* b = std::get_if<bool>(&v)) {
        return absl::StrCat("c10::IValue(c10::Scalar(", *b ? "true" : "false",
                            "))");
      }
      return absl::StrCat("c10::IValue(c10::Scalar(",
                          CppFloat(std::get<FloatArg>(v).value), "))");
    case ReproArgKind::kString:
      return absl::StrCat("c10::IValue(std::string(",
                          CppQuoted(std::get<std::string>(v)), "))");
    case ReproArgKind::kDType:
      return absl::StrCat("c10::IValue(static_cast<int64_t>(",
                          CppScalarType(*ParseDType(std::get<std::string>(v))),
                          "))");
    case ReproArgKind::kMemoryFormat:
      return absl::StrCat("c10::IValue(static_cast<int64_t>(",
                          CppMemoryFormat(std::get<std::string>(v)), "))");
    case ReproArgKind::kIntList:
      return absl::StrCat("c10::IValue(std::vector<int64_t>",
                          CppDims(std::get<Dims>(v)), ")");
    case ReproArgKind::kBoolList:
      return absl::StrCat(
          "c10::IValue(c10::List<bool>({",
          absl::StrJoin(std::get<Dims>(v), ", ",
                        [](std::string* out, int64_t d) {
                          out->append(d != 0 ? "true" : "false");
                        }),
          "}))");
  }
  return "";
}

}  // namespace dpfuzz
