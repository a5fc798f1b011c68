#include "generators/case_json.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/files.h"
#include "common/status_macros.h"

namespace dpfuzz {
namespace {

using Json = nlohmann::json;

constexpr absl::string_view kFormat = "dpfuzz-case";

// ---- Writing ----------------------------------------------------------

Json FloatToJson(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

Json SpecToJson(const TensorSpec& spec) {
  Json specials = Json::array();
  for (uint32_t bit = 1; bit <= kAllSpecials; bit <<= 1) {
    if (spec.values.specials & bit) {
      specials.push_back(std::string(SpecialName(static_cast<Special>(bit))));
    }
  }
  Json values{
      {"seed", spec.values.seed},
      {"distribution", std::string(DistributionName(spec.values.distribution))},
      {"specials", specials}};
  if (spec.values.high != 0) values["high"] = spec.values.high;
  if (!spec.values.data.empty()) {
    Json data = Json::array();
    for (double v : spec.values.data) data.push_back(FloatToJson(v));
    values["data"] = data;
  }
  Json out{
      {"dtype", std::string(DTypeName(spec.dtype))},
      {"device", std::string(DeviceName(spec.device))},
      {"requires_grad", spec.requires_grad},
      {"values", values},
  };
  if (!spec.is_nested()) {
    out["sizes"] = spec.layout.sizes;
    out["strides"] = spec.layout.strides;
    out["storage_offset"] = spec.layout.storage_offset;
    return out;
  }
  Json components = Json::array();
  for (const StridedLayout& c : spec.components) {
    components.push_back(Json{{"sizes", c.sizes},
                              {"strides", c.strides},
                              {"storage_offset", c.storage_offset}});
  }
  out["components"] = components;
  return out;
}

struct ArgToJson {
  Json& out;
  void operator()(std::monostate) const { out["none"] = nullptr; }
  void operator()(bool b) const { out["bool"] = b; }
  void operator()(int64_t i) const { out["int"] = i; }
  void operator()(const FloatArg& f) const {
    out["float"] = FloatToJson(f.value);
  }
  void operator()(const std::string& s) const { out["string"] = s; }
  void operator()(const Dims& d) const { out["ints"] = d; }
  void operator()(const TensorSpec& t) const { out["tensor"] = SpecToJson(t); }
  void operator()(const std::vector<TensorSpec>& ts) const {
    Json list = Json::array();
    for (const TensorSpec& t : ts) list.push_back(SpecToJson(t));
    out["tensors"] = list;
  }
};

// Objects one key per line; arrays of scalars on one line, so that sizes
// and strides read like c10 prints them and diff line by line.
void Pretty(const Json& j, int indent, std::string& out) {
  const std::string pad(indent + 2, ' ');
  if (j.is_object() && !j.empty()) {
    out += "{\n";
    size_t i = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++i) {
      absl::StrAppend(&out, pad, Json(it.key()).dump(), ": ");
      Pretty(it.value(), indent + 2, out);
      out += i + 1 < j.size() ? ",\n" : "\n";
    }
    absl::StrAppend(&out, std::string(indent, ' '), "}");
    return;
  }
  const bool scalars =
      j.is_array() && std::all_of(j.begin(), j.end(), [](const Json& e) {
        return !e.is_structured();
      });
  if (j.is_array() && !scalars) {
    out += "[\n";
    for (size_t i = 0; i < j.size(); ++i) {
      out += pad;
      Pretty(j[i], indent + 2, out);
      out += i + 1 < j.size() ? ",\n" : "\n";
    }
    absl::StrAppend(&out, std::string(indent, ' '), "]");
    return;
  }
  if (j.is_array()) {
    std::vector<std::string> items;
    for (const Json& e : j) items.push_back(e.dump());
    absl::StrAppend(&out, "[", absl::StrJoin(items, ", "), "]");
    return;
  }
  out += j.dump();
}

// ---- Reading ----------------------------------------------------------

// Reads JSON values with the path and source that errors must name.
class Reader {
 public:
  explicit Reader(absl::string_view source) : source_(source) {}

  absl::Status Error(absl::string_view path, absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(
        "case file ", source_, ": field \"", path, "\" ", message));
  }

  // `j` must be an object with all of `required` and only `allowed` keys.
  absl::Status CheckObject(const Json& j, absl::string_view path,
                           const std::vector<std::string>& required,
                           const std::vector<std::string>& optional) const {
    if (!j.is_object()) return Error(path, Expected("an object", j));
    for (const std::string& key : required) {
      if (!j.contains(key)) {
        return Error(Join(path, key), "is missing");
      }
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      const bool known =
          std::count(required.begin(), required.end(), it.key()) > 0 ||
          std::count(optional.begin(), optional.end(), it.key()) > 0;
      if (!known) {
        std::vector<std::string> all = required;
        all.insert(all.end(), optional.begin(), optional.end());
        return Error(Join(path, it.key()),
                     absl::StrCat("is not a known field; expected one of ",
                                  absl::StrJoin(all, ", ")));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int64_t> Int(const Json& j, absl::string_view path) const {
    if (j.is_number_unsigned() &&
        j.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return Error(path, absl::StrCat("is ", j.dump(), ", beyond int64"));
    }
    if (!j.is_number_integer()) return Error(path, Expected("an integer", j));
    return j.get<int64_t>();
  }

  absl::StatusOr<uint64_t> Uint(const Json& j, absl::string_view path) const {
    if (!j.is_number_integer() ||
        (!j.is_number_unsigned() && j.get<int64_t>() < 0)) {
      return Error(path, Expected("a non-negative integer", j));
    }
    return j.get<uint64_t>();
  }

  absl::StatusOr<bool> Bool(const Json& j, absl::string_view path) const {
    if (!j.is_boolean()) return Error(path, Expected("true or false", j));
    return j.get<bool>();
  }

  absl::StatusOr<std::string> String(const Json& j,
                                     absl::string_view path) const {
    if (!j.is_string()) return Error(path, Expected("a string", j));
    return j.get<std::string>();
  }

  absl::StatusOr<double> Float(const Json& j, absl::string_view path) const {
    if (j.is_string()) {
      const std::string s = j.get<std::string>();
      if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
      if (s == "inf") return std::numeric_limits<double>::infinity();
      if (s == "-inf") return -std::numeric_limits<double>::infinity();
    }
    if (!j.is_number()) {
      return Error(path, Expected("a number or \"nan\", \"inf\", \"-inf\"", j));
    }
    return j.get<double>();
  }

  absl::StatusOr<Dims> IntList(const Json& j, absl::string_view path) const {
    if (!j.is_array()) return Error(path, Expected("an array of integers", j));
    Dims out;
    for (size_t i = 0; i < j.size(); ++i) {
      DPFUZZ_ASSIGN_OR_RETURN(int64_t v,
                              Int(j[i], absl::StrCat(path, "[", i, "]")));
      out.push_back(v);
    }
    return out;
  }

  // Wraps a parse error of a name ("unknown dtype ...") with the path.
  template <typename T>
  absl::StatusOr<T> Named(const Json& j, absl::string_view path,
                          absl::StatusOr<T> (*parse)(absl::string_view)) const {
    DPFUZZ_ASSIGN_OR_RETURN(std::string name, String(j, path));
    absl::StatusOr<T> value = parse(name);
    if (!value.ok()) return Error(path, value.status().message());
    return value;
  }

  static std::string Join(absl::string_view path, absl::string_view key) {
    return path.empty() ? std::string(key) : absl::StrCat(path, ".", key);
  }

 private:
  static std::string Expected(absl::string_view what, const Json& got) {
    std::string text = got.dump();
    if (text.size() > 60) text = text.substr(0, 57) + "...";
    return absl::StrCat("must be ", what, ", not ", text);
  }

  std::string source_;
};

absl::StatusOr<ValueRecipe> RecipeFromJson(const Reader& r, const Json& j,
                                           const std::string& path) {
  DPFUZZ_RETURN_IF_ERROR(r.CheckObject(j, path, {"seed", "distribution"},
                                       {"specials", "high", "data"}));
  ValueRecipe recipe;
  DPFUZZ_ASSIGN_OR_RETURN(recipe.seed,
                          r.Uint(j["seed"], Reader::Join(path, "seed")));
  DPFUZZ_ASSIGN_OR_RETURN(
      recipe.distribution,
      r.Named(j["distribution"], Reader::Join(path, "distribution"),
              &ParseDistribution));
  if (j.contains("high")) {
    DPFUZZ_ASSIGN_OR_RETURN(recipe.high,
                            r.Int(j["high"], Reader::Join(path, "high")));
    if (recipe.high < 0)
      return r.Error(Reader::Join(path, "high"), "must be >= 0");
  }
  if (j.contains("data")) {
    const std::string data_path = Reader::Join(path, "data");
    if (!j["data"].is_array()) {
      return r.Error(data_path, "must be an array of numbers");
    }
    recipe.data.reserve(j["data"].size());
    for (size_t i = 0; i < j["data"].size(); ++i) {
      DPFUZZ_ASSIGN_OR_RETURN(
          double v,
          r.Float(j["data"][i], absl::StrCat(data_path, "[", i, "]")));
      recipe.data.push_back(v);
    }
  }
  if (j.contains("specials")) {
    const std::string specials_path = Reader::Join(path, "specials");
    if (!j["specials"].is_array()) {
      return r.Error(specials_path, "must be an array of special value names");
    }
    for (size_t i = 0; i < j["specials"].size(); ++i) {
      DPFUZZ_ASSIGN_OR_RETURN(
          Special s,
          r.Named(j["specials"][i], absl::StrCat(specials_path, "[", i, "]"),
                  &ParseSpecial));
      recipe.specials |= s;
    }
  }
  return recipe;
}

absl::StatusOr<StridedLayout> LayoutFromJson(const Reader& r, const Json& j,
                                             const std::string& path) {
  StridedLayout layout;
  DPFUZZ_ASSIGN_OR_RETURN(layout.sizes,
                          r.IntList(j["sizes"], Reader::Join(path, "sizes")));
  DPFUZZ_ASSIGN_OR_RETURN(
      layout.strides, r.IntList(j["strides"], Reader::Join(path, "strides")));
  if (j.contains("storage_offset")) {
    DPFUZZ_ASSIGN_OR_RETURN(
        layout.storage_offset,
        r.Int(j["storage_offset"], Reader::Join(path, "storage_offset")));
  }
  return layout;
}

// A nested tensor's "components": one {sizes, strides, storage_offset} each.
absl::StatusOr<Components> ComponentsFromJson(const Reader& r, const Json& j,
                                              const std::string& path) {
  if (!j.is_array()) return r.Error(path, "must be an array of layouts");
  Components components;
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string at = absl::StrCat(path, "[", i, "]");
    DPFUZZ_RETURN_IF_ERROR(
        r.CheckObject(j[i], at, {"sizes", "strides"}, {"storage_offset"}));
    DPFUZZ_ASSIGN_OR_RETURN(StridedLayout c, LayoutFromJson(r, j[i], at));
    components.push_back(std::move(c));
  }
  return components;
}

absl::StatusOr<TensorSpec> SpecFromJson(const Reader& r, const Json& j,
                                        const std::string& path) {
  const bool nested = j.is_object() && j.contains("components");
  DPFUZZ_RETURN_IF_ERROR(
      nested ? r.CheckObject(j, path, {"dtype", "components"},
                             {"device", "requires_grad", "values"})
             : r.CheckObject(
                   j, path, {"dtype", "sizes", "strides"},
                   {"device", "storage_offset", "requires_grad", "values"}));
  TensorSpec spec;
  DPFUZZ_ASSIGN_OR_RETURN(
      spec.dtype,
      r.Named(j["dtype"], Reader::Join(path, "dtype"), &ParseDType));
  if (j.contains("device")) {
    DPFUZZ_ASSIGN_OR_RETURN(
        spec.device,
        r.Named(j["device"], Reader::Join(path, "device"), &ParseDevice));
  }
  if (nested) {
    DPFUZZ_ASSIGN_OR_RETURN(
        spec.components, ComponentsFromJson(r, j["components"],
                                            Reader::Join(path, "components")));
  } else {
    DPFUZZ_ASSIGN_OR_RETURN(spec.layout, LayoutFromJson(r, j, path));
  }
  if (j.contains("requires_grad")) {
    DPFUZZ_ASSIGN_OR_RETURN(
        spec.requires_grad,
        r.Bool(j["requires_grad"], Reader::Join(path, "requires_grad")));
  }
  if (j.contains("values")) {
    DPFUZZ_ASSIGN_OR_RETURN(
        spec.values,
        RecipeFromJson(r, j["values"], Reader::Join(path, "values")));
  }
  if (absl::Status valid = ValidateTensorSpec(spec); !valid.ok()) {
    return r.Error(path,
                   absl::StrCat("is not a valid tensor: ", valid.message()));
  }
  return spec;
}

const std::vector<std::string>& ArgKinds() {
  static const auto* kinds = new std::vector<std::string>{
      "none", "bool", "int", "float", "string", "ints", "tensor", "tensors"};
  return *kinds;
}

absl::StatusOr<ArgValue> ArgValueFromJson(const Reader& r, const Json& j,
                                          const std::string& path) {
  std::string kind;
  for (const std::string& k : ArgKinds()) {
    if (!j.contains(k)) continue;
    if (!kind.empty()) {
      return r.Error(path, absl::StrCat("has both \"", kind, "\" and \"", k,
                                        "\"; an argument holds one value"));
    }
    kind = k;
  }
  if (kind.empty()) {
    return r.Error(path, absl::StrCat("has no value; expected one of ",
                                      absl::StrJoin(ArgKinds(), ", ")));
  }
  DPFUZZ_RETURN_IF_ERROR(r.CheckObject(j, path, {"name", kind}, {}));
  const Json& v = j[kind];
  const std::string value_path = Reader::Join(path, kind);
  if (kind == "none") {
    if (!v.is_null()) return r.Error(value_path, "must be null");
    return ArgValue{std::monostate{}};
  }
  if (kind == "bool") {
    DPFUZZ_ASSIGN_OR_RETURN(bool b, r.Bool(v, value_path));
    return ArgValue{b};
  }
  if (kind == "int") {
    DPFUZZ_ASSIGN_OR_RETURN(int64_t i, r.Int(v, value_path));
    return ArgValue{i};
  }
  if (kind == "float") {
    DPFUZZ_ASSIGN_OR_RETURN(double f, r.Float(v, value_path));
    return ArgValue{FloatArg{f}};
  }
  if (kind == "string") {
    DPFUZZ_ASSIGN_OR_RETURN(std::string s, r.String(v, value_path));
    return ArgValue{s};
  }
  if (kind == "ints") {
    DPFUZZ_ASSIGN_OR_RETURN(Dims d, r.IntList(v, value_path));
    return ArgValue{d};
  }
  if (kind == "tensor") {
    DPFUZZ_ASSIGN_OR_RETURN(TensorSpec t, SpecFromJson(r, v, value_path));
    return ArgValue{t};
  }
  if (!v.is_array()) return r.Error(value_path, "must be an array of tensors");
  std::vector<TensorSpec> list;
  for (size_t i = 0; i < v.size(); ++i) {
    DPFUZZ_ASSIGN_OR_RETURN(
        TensorSpec t,
        SpecFromJson(r, v[i], absl::StrCat(value_path, "[", i, "]")));
    list.push_back(t);
  }
  return ArgValue{list};
}

// "line 3, column 7" for a byte offset into `text`.
std::string Position(absl::string_view text, size_t byte) {
  size_t line = 1;
  size_t column = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return absl::StrCat("line ", line, ", column ", column);
}

}  // namespace

std::string CaseToJson(const Case& c) {
  Json args = Json::array();
  for (const Argument& arg : c.args) {
    Json a{{"name", arg.name}};
    std::visit(ArgToJson{a}, arg.value);
    args.push_back(a);
  }
  Json root{
      {"format", kFormat},
      {"version", kCaseFormatVersion},
      {"op", c.op},
      {"overload", c.overload},
      {"variant", std::string(VariantName(c.variant))},
      {"seed", c.seed},
      {"args", args},
  };
  if (!c.aliases.empty()) {
    Json aliases = Json::array();
    for (const Alias& a : c.aliases) {
      aliases.push_back(Json{{"arg", a.arg}, {"base", a.base}});
    }
    root["aliases"] = aliases;
  }
  if (!c.grad_outputs.empty()) {
    Json grads = Json::array();
    for (const TensorSpec& g : c.grad_outputs) grads.push_back(SpecToJson(g));
    root["grad_outputs"] = grads;
  }
  std::string out;
  Pretty(root, 0, out);
  return out + "\n";
}

absl::StatusOr<Case> CaseFromJson(absl::string_view text,
                                  absl::string_view source) {
  Json root;
  try {
    root = Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // nlohmann's byte is one past the offending character.
    return absl::InvalidArgumentError(absl::StrCat(
        "case file ", source, ": not valid JSON at ",
        Position(text, e.byte > 0 ? e.byte - 1 : 0), " (", e.what(), ")"));
  }
  const Reader r(source);
  DPFUZZ_RETURN_IF_ERROR(
      r.CheckObject(root, "", {"format", "version", "op", "variant", "args"},
                    {"overload", "seed", "aliases", "grad_outputs"}));
  DPFUZZ_ASSIGN_OR_RETURN(std::string format,
                          r.String(root["format"], "format"));
  if (format != kFormat) {
    return r.Error("format", absl::StrCat("is \"", format, "\"; expected \"",
                                          kFormat, "\""));
  }
  DPFUZZ_ASSIGN_OR_RETURN(int64_t version, r.Int(root["version"], "version"));
  if (version != kCaseFormatVersion) {
    return r.Error("version",
                   absl::StrCat("is ", version, "; this dpfuzz reads version ",
                                kCaseFormatVersion));
  }
  Case c;
  DPFUZZ_ASSIGN_OR_RETURN(c.op, r.String(root["op"], "op"));
  const size_t colons = c.op.find("::");
  if (colons == std::string::npos || colons == 0 || colons + 2 == c.op.size()) {
    return r.Error("op", absl::StrCat("is \"", c.op,
                                      "\"; expected a qualified name such as "
                                      "\"aten::masked_select\""));
  }
  if (root.contains("overload")) {
    DPFUZZ_ASSIGN_OR_RETURN(c.overload, r.String(root["overload"], "overload"));
  }
  DPFUZZ_ASSIGN_OR_RETURN(c.variant,
                          r.Named(root["variant"], "variant", &ParseVariant));
  if (root.contains("seed")) {
    DPFUZZ_ASSIGN_OR_RETURN(c.seed, r.Uint(root["seed"], "seed"));
  }
  if (!root["args"].is_array()) {
    return r.Error("args", "must be an array of arguments");
  }
  std::set<std::string> names;
  for (size_t i = 0; i < root["args"].size(); ++i) {
    const std::string path = absl::StrCat("args[", i, "]");
    const Json& a = root["args"][i];
    if (!a.is_object()) return r.Error(path, "must be an object");
    if (!a.contains("name"))
      return r.Error(Reader::Join(path, "name"), "is missing");
    Argument arg;
    DPFUZZ_ASSIGN_OR_RETURN(arg.name,
                            r.String(a["name"], Reader::Join(path, "name")));
    if (arg.name.empty() || !names.insert(arg.name).second) {
      return r.Error(Reader::Join(path, "name"),
                     absl::StrCat("is \"", arg.name,
                                  "\"; names must be non-empty and unique"));
    }
    DPFUZZ_ASSIGN_OR_RETURN(arg.value, ArgValueFromJson(r, a, path));
    c.args.push_back(std::move(arg));
  }
  if (root.contains("aliases")) {
    if (!root["aliases"].is_array()) {
      return r.Error("aliases", "must be an array of {arg, base} objects");
    }
    for (size_t i = 0; i < root["aliases"].size(); ++i) {
      const std::string path = absl::StrCat("aliases[", i, "]");
      const Json& a = root["aliases"][i];
      DPFUZZ_RETURN_IF_ERROR(r.CheckObject(a, path, {"arg", "base"}, {}));
      Alias alias;
      DPFUZZ_ASSIGN_OR_RETURN(alias.arg,
                              r.String(a["arg"], Reader::Join(path, "arg")));
      DPFUZZ_ASSIGN_OR_RETURN(alias.base,
                              r.String(a["base"], Reader::Join(path, "base")));
      for (const std::string* name : {&alias.arg, &alias.base}) {
        const Argument* target = FindArgument(c, *name);
        if (target == nullptr ||
            !std::holds_alternative<TensorSpec>(target->value)) {
          return r.Error(path,
                         absl::StrCat("names \"", *name,
                                      "\", which is not a tensor argument"));
        }
      }
      if (std::get<TensorSpec>(FindArgument(c, alias.arg)->value).dtype !=
          std::get<TensorSpec>(FindArgument(c, alias.base)->value).dtype) {
        return r.Error(path,
                       "shares storage between tensors of different dtypes");
      }
      c.aliases.push_back(alias);
    }
  }
  if (root.contains("grad_outputs")) {
    if (!root["grad_outputs"].is_array()) {
      return r.Error("grad_outputs", "must be an array of tensors");
    }
    for (size_t i = 0; i < root["grad_outputs"].size(); ++i) {
      DPFUZZ_ASSIGN_OR_RETURN(
          TensorSpec g, SpecFromJson(r, root["grad_outputs"][i],
                                     absl::StrCat("grad_outputs[", i, "]")));
      c.grad_outputs.push_back(g);
    }
  }
  return c;
}

absl::StatusOr<Case> LoadCaseFile(const std::string& path) {
  DPFUZZ_ASSIGN_OR_RETURN(std::string text, ReadFile(path, "case file"));
  return CaseFromJson(text, path);
}

absl::Status SaveCaseFile(const Case& c, const std::string& path) {
  return WriteFileAtomically(path, CaseToJson(c), "case file");
}

}  // namespace dpfuzz
