#include "generators/case.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <variant>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/named_values.h"
#include "generators/dtype.h"
#include "generators/geometry.h"

namespace dpfuzz {
namespace {

constexpr NameTable<Variant, 4> kVariants = {{
    {Variant::kFunctional, "functional"},
    {Variant::kOut, "out"},
    {Variant::kInplace, "inplace"},
    {Variant::kMethod, "method"},
}};

// The printed form of one argument value.
struct ArgPrinter {
  std::string operator()(std::monostate) const { return "None"; }
  std::string operator()(bool b) const { return b ? "True" : "False"; }
  std::string operator()(int64_t i) const { return absl::StrCat(i); }
  std::string operator()(const FloatArg& f) const {
    return absl::StrCat(f.value);
  }
  std::string operator()(const std::string& s) const {
    return absl::StrCat("\"", s, "\"");
  }
  std::string operator()(const Dims& d) const { return DimsToString(d); }
  std::string operator()(const TensorSpec& t) const {
    return TensorSpecToString(t);
  }
  std::string operator()(const std::vector<TensorSpec>& ts) const {
    std::vector<std::string> parts;
    for (const TensorSpec& t : ts) parts.push_back(TensorSpecToString(t));
    return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
  }
};

}  // namespace

absl::string_view VariantName(Variant variant) {
  return NameOf(kVariants, variant);
}

absl::StatusOr<Variant> ParseVariant(absl::string_view name) {
  return ParseNamed(kVariants, "variant", name);
}

std::vector<const TensorSpec*> TensorSpecsOf(const Case& c) {
  std::vector<const TensorSpec*> specs;
  specs.reserve(c.args.size() + c.grad_outputs.size());
  for (const Argument& arg : c.args) {
    if (const auto* spec = std::get_if<TensorSpec>(&arg.value)) {
      specs.push_back(spec);
    } else if (const auto* list =
                   std::get_if<std::vector<TensorSpec>>(&arg.value)) {
      for (const TensorSpec& s : *list) specs.push_back(&s);
    }
  }
  return specs;
}

std::vector<const TensorSpec*> AllTensorSpecsOf(const Case& c) {
  std::vector<const TensorSpec*> specs = TensorSpecsOf(c);
  for (const TensorSpec& g : c.grad_outputs) specs.push_back(&g);
  return specs;
}

std::vector<TensorSpec*> AllTensorSpecsOf(Case& c) {
  std::vector<TensorSpec*> specs;
  specs.reserve(c.args.size() + c.grad_outputs.size());
  for (const TensorSpec* spec : AllTensorSpecsOf(static_cast<const Case&>(c))) {
    specs.push_back(const_cast<TensorSpec*>(spec));  // `c` is not const.
  }
  return specs;
}

const Argument* FindArgument(const Case& c, absl::string_view name) {
  for (const Argument& arg : c.args) {
    if (arg.name == name) return &arg;
  }
  return nullptr;
}

Device CaseDevice(const Case& c) {
  for (const TensorSpec* t : AllTensorSpecsOf(c)) {
    if (t->device == Device::kCuda) return Device::kCuda;
  }
  return Device::kCpu;
}

namespace {

bool OnExactGrid(double x) {
  if (!std::isfinite(x)) return true;
  const double eighths = x * 8;
  return std::abs(x) <= 4096 && std::floor(eighths) == eighths;
}

}  // namespace

bool HoldsExactValues(const Case& c) {
  for (const Argument& arg : c.args) {
    const FloatArg* scalar = std::get_if<FloatArg>(&arg.value);
    if (scalar != nullptr && !OnExactGrid(scalar->value)) return false;
  }
  for (const TensorSpec* spec : AllTensorSpecsOf(c)) {
    if (!IsFloating(spec->dtype) && !IsComplex(spec->dtype)) continue;
    if (!std::all_of(spec->values.data.begin(), spec->values.data.end(),
                     OnExactGrid)) {
      return false;
    }
  }
  return true;
}

void PlaceOnDevice(Case& c, Device device) {
  for (TensorSpec* t : AllTensorSpecsOf(c)) t->device = device;
}

Case PlainCase(const Case& c) {
  Case plain = c;
  plain.aliases.clear();
  for (TensorSpec* t : AllTensorSpecsOf(plain)) {
    if (t->is_nested()) {
      t->components = ContiguousComponents(ComponentSizes(t->components));
      continue;
    }
    t->layout.strides = ComputeContiguousStrides(t->layout.sizes);
    t->layout.storage_offset = 0;
  }
  return plain;
}

std::string QualifiedOpName(const Case& c) {
  return c.overload.empty() ? c.op : absl::StrCat(c.op, ".", c.overload);
}

std::string CaseToString(const Case& c) {
  std::string out = absl::StrCat(QualifiedOpName(c), " ",
                                 VariantName(c.variant), " seed ", c.seed);
  for (const Argument& arg : c.args) {
    absl::StrAppend(&out, "\n  ", arg.name, ": ",
                    std::visit(ArgPrinter{}, arg.value));
  }
  for (const Alias& alias : c.aliases) {
    absl::StrAppend(&out, "\n  ", alias.arg, " shares the storage of ",
                    alias.base);
  }
  for (size_t i = 0; i < c.grad_outputs.size(); ++i) {
    absl::StrAppend(&out, "\n  grad_outputs[", i,
                    "]: ", TensorSpecToString(c.grad_outputs[i]));
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << CaseToString(c);
}

}  // namespace dpfuzz
