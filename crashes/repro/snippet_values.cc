#include "crashes/repro/snippet_values.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "crashes/repro/repro_text.h"
#include "generators/geometry.h"
#include "generators/poison.h"

namespace dpfuzz {

using absl::StrCat;
using absl::StrJoin;

namespace {

// The nested list of `v`'s elements from dimension `dim`, element `at` on.
std::string Nested(const Values& v, size_t dim, size_t& at) {
  if (dim == v.shape.size()) return Element(v.elements[at++], v.dtype);
  std::vector<std::string> parts;
  for (int64_t i = 0; i < v.shape[dim]; ++i) {
    parts.push_back(Nested(v, dim + 1, at));
  }
  return StrCat("[", StrJoin(parts, ", "), "]");
}

}  // namespace

std::string Kwargs(DType dtype, absl::string_view device,
                   bool complex_literals) {
  const bool inferred = dtype == DType::kBool || dtype == DType::kInt64 ||
                        dtype == DType::kFloat32 ||
                        (dtype == DType::kComplex64 && complex_literals);
  return StrCat(inferred ? "" : ", dtype=" + TorchDType(dtype), device);
}

std::string Real(double v) {
  if (std::isnan(v)) return "torch.nan";
  if (std::isinf(v)) return v < 0 ? "-torch.inf" : "torch.inf";
  const FloatText t = ExactFloatText(v);
  return t.is_hex ? StrCat("float.fromhex(\"", t.text, "\")") : t.text;
}

std::string Fill(DType dtype) {
  if (IsFloating(dtype) || IsComplex(dtype)) return "torch.nan";
  if (dtype == DType::kBool) return "True";
  const std::vector<uint8_t> bytes = PoisonElement(dtype);
  uint64_t bits = 0;
  std::memcpy(&bits, bytes.data(), bytes.size());
  if (dtype == DType::kUInt8) return StrCat(bits);
  const int unused = 64 - 8 * static_cast<int>(bytes.size());
  return StrCat(static_cast<int64_t>(bits << unused) >> unused);
}

std::string Element(const ReproElement& e, DType dtype) {
  switch (e.kind) {
    case ReproElement::Kind::kPoison:
      return Fill(dtype);
    case ReproElement::Kind::kInt:
      if (dtype == DType::kBool) return e.integer != 0 ? "True" : "False";
      return StrCat(e.integer);
    case ReproElement::Kind::kReal:
      return Real(e.real);
    case ReproElement::Kind::kComplex:  // NaN, inf, hex: complex(re, im).
      if (Real(e.imag).find_first_of("tf") != std::string::npos) {
        return StrCat("complex(", Real(e.real), ", ", Real(e.imag), ")");
      }
      return StrCat("(", Real(e.real), std::signbit(e.imag) ? "-" : "+",
                    Real(std::fabs(e.imag)), "j)");
  }
  return "";
}

std::string Tuple(const Dims& dims) {
  return StrCat("(", StrJoin(dims, ", "), dims.size() == 1 ? ",)" : ")");
}

std::string DeviceKwarg(const ReproStorage& s) {
  return s.device == Device::kCpu ? "" : ", device=\"cuda\"";
}

std::string Literal(const ReproArg& arg) {
  const ArgValue& v = arg.value;
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (const auto* f = std::get_if<FloatArg>(&v)) return Real(f->value);
  if (const auto* i = std::get_if<int64_t>(&v)) {
    return arg.kind == ReproArgKind::kFloat ? Real(static_cast<double>(*i))
                                            : StrCat(*i);
  }
  if (const auto* dims = std::get_if<Dims>(&v)) {
    if (arg.kind != ReproArgKind::kBoolList) {
      return StrCat("[", StrJoin(*dims, ", "), "]");
    }
    std::vector<std::string> flags;
    for (int64_t d : *dims) flags.push_back(d != 0 ? "True" : "False");
    return StrCat("[", StrJoin(flags, ", "), "]");
  }
  if (const auto* s = std::get_if<std::string>(&v)) {
    if (arg.kind == ReproArgKind::kDType) return TorchDType(*ParseDType(*s));
    if (arg.kind == ReproArgKind::kMemoryFormat) return "torch." + *s;
    return StrCat(
        "\"", absl::StrReplaceAll(*s, {{"\\", "\\\\"}, {"\"", "\\\""}}), "\"");
  }
  return "None";
}

std::optional<std::string> Constant(const Values& v) {
  if (v.elements.empty()) return std::nullopt;
  const std::string first = Element(v.elements[0], v.dtype);
  for (const ReproElement& e : v.elements) {
    if (Element(e, v.dtype) != first) return std::nullopt;
  }
  return first;
}

bool IsArange(const Values& v) {
  bool arange = v.dtype != DType::kBool;
  for (size_t i = 0; arange && i < v.elements.size(); ++i) {
    const ReproElement& e = v.elements[i];
    arange = e.kind == ReproElement::Kind::kInt
                 ? e.integer == static_cast<int64_t>(i)
                 : e.kind == ReproElement::Kind::kReal &&
                       e.real == static_cast<double>(i) &&
                       !std::signbit(e.real);
  }
  return arange;
}

std::string ValuesStatement(const std::string& head, const Values& v,
                            const std::string& tail, Spelling spelling,
                            bool& changed) {
  const std::string kw = Kwargs(v.dtype, v.device);
  const std::string shape = StrJoin(v.shape, ", ");
  std::string expr;
  // Values a fill or arange gives exactly read better so at any size
  // (torch.zeros(4, 12), not four rows of zeros).
  const bool exact = v.elements.size() > 1 && (Constant(v) || IsArange(v));
  if (v.shape.empty()) {
    expr = StrCat("torch.tensor(", Element(v.elements[0], v.dtype), kw, ")");
  } else if (spelling == Spelling::kList && !exact) {
    std::vector<std::string> items;
    size_t at = 0;
    for (int64_t i = 0; i < v.shape[0]; ++i) items.push_back(Nested(v, 1, at));
    const bool flat = std::any_of(items.begin(), items.end(), [](auto& item) {
      return item.size() > kWidth - 8;
    });
    for (size_t i = 0; flat && i < v.elements.size(); ++i) {
      if (i == 0) items.clear();
      items.push_back(Element(v.elements[i], v.dtype));
    }
    const std::string close =
        StrCat("]", kw, ")", flat ? ".reshape(" + shape + ")" : "", tail);
    const std::string one =
        StrCat(head, "torch.tensor([", StrJoin(items, ", "), close);
    if (one.size() <= kWidth) return one + "\n";
    return StrCat(head, "torch.tensor([\n    ", WrapItems(items, 4), close,
                  "\n");
  } else if (const std::optional<std::string> c = Constant(v)) {
    const std::string typed = StrCat(
        v.dtype == DType::kFloat32 ? "" : ", dtype=" + TorchDType(v.dtype),
        v.device);
    expr = *c == "0" || *c == "0.0" || *c == "False"
               ? StrCat("torch.zeros(", shape, typed, ")")
           : *c == "1" || *c == "1.0" || *c == "True"
               ? StrCat("torch.ones(", shape, typed, ")")
               : StrCat("torch.full(", Tuple(v.shape), ", ", *c, kw, ")");
  } else {
    changed = changed || !IsArange(v);
    // arange(n.) is float32's; other dtypes convert int64's.
    const bool f32 = v.dtype == DType::kFloat32;
    expr = StrCat("torch.arange(", v.elements.size(), f32 ? "." : "", v.device,
                  ")", v.shape.size() == 1 ? "" : ".reshape(" + shape + ")");
    expr = v.dtype == DType::kBool ? StrCat("(", expr, " % 2 == 0)")
           : v.dtype == DType::kInt64 || f32
               ? expr
               : StrCat(expr, ".to(", TorchDType(v.dtype), ")");
  }
  return StrCat(head, expr, tail, "\n");
}

Values ValuesAt(const ReproStorage& s, DType dtype, const StridedLayout& l) {
  Values v{dtype, l.sizes, {}, DeviceKwarg(s)};
  for (int64_t i : ComputeStorageIndices(l))
    v.elements.push_back(s.elements[i]);
  return v;
}

}  // namespace dpfuzz
