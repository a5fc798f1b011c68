#include "crashes/findings/finding_json.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "generators/case_json.h"
#include "generators/layout_features.h"

namespace dpfuzz {
namespace {

using Json = nlohmann::json;

std::string StringOr(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

Evidence EvidenceFromJson(const Json& j) {
  Evidence e;
  e.where = StringOr(j, "where");
  e.detail = StringOr(j, "detail");
  e.error = StringOr(j, "error");
  e.layout = StringOr(j, "layout");
  const auto first = j.find("first_difference");
  if (first != j.end() && first->is_object()) {
    e.index = StringOr(*first, "index");
    e.expected = StringOr(*first, "expected");
    e.actual = StringOr(*first, "actual");
  }
  const auto mechanism = j.find("mechanism");
  if (mechanism != j.end() && mechanism->is_object()) {
    e.mechanism = StringOr(*mechanism, "name");
    e.mechanism_argument = StringOr(*mechanism, "argument");
  }
  e.ill_conditioned = StringOr(j, "ill_conditioned");
  const auto measured = j.find("measured");
  if (measured != j.end() && measured->is_object()) {
    for (const auto& [name, value] : measured->items()) {
      if (value.is_number()) e.measured[name] = value.get<double>();
    }
  }
  const auto max_error = j.find("max_error");
  if (max_error != j.end() && max_error->is_number()) {
    e.max_error = max_error->get<double>();
  }
  return e;
}

}  // namespace

Json EvidenceToJson(const Evidence& e) {
  Json j{{"where", e.where}, {"detail", e.detail}};
  if (!e.index.empty()) {
    j["first_difference"] = {
        {"index", e.index}, {"expected", e.expected}, {"actual", e.actual}};
    j["max_error"] = e.max_error;
  }
  if (!e.error.empty()) j["error"] = e.error;
  if (!e.layout.empty()) j["layout"] = e.layout;
  if (!e.mechanism.empty()) {
    j["mechanism"] = {{"name", e.mechanism},
                      {"argument", e.mechanism_argument}};
  }
  if (!e.ill_conditioned.empty()) j["ill_conditioned"] = e.ill_conditioned;
  if (!e.measured.empty()) j["measured"] = e.measured;
  return j;
}

Json FindingToJson(const Finding& f, bool with_case) {
  Json layouts = Json::array();
  for (const Argument& arg : f.c.args) {
    if (const auto* t = std::get_if<TensorSpec>(&arg.value)) {
      layouts.push_back(absl::StrCat(
          arg.name, ": ", TensorSpecLayoutString(*t), " (",
          LayoutFeaturesToString(ComputeLayoutFeatures(t->layout)), ")"));
    }
  }
  Json j{
      {"op", f.c.op},
      {"overload", f.c.overload},
      {"variant", std::string(VariantName(f.c.variant))},
      {"verdict", std::string(VerdictName(f.outcome.verdict))},
      {"signature", f.signature},
      {"evidence", EvidenceToJson(f.outcome.evidence)},
      {"layouts", layouts},
      {"kind", std::string(FindingKindName(f.outcome.kind))},
      {"culprit", f.blame.culprit},
      {"feature", f.blame.feature},
      {"flaky", f.dismissal == Dismissal::kFlaky},  // Older readers.
      {"dismissal", std::string(DismissalName(f.dismissal))},
      {"libtorch_version", LibTorchVersion()},
      {"dpfuzz_version", DpfuzzVersion()},
  };
  if (with_case) j["case"] = CaseToJson(f.c);
  return j;
}

absl::StatusOr<Finding> FindingFromJson(absl::string_view text,
                                        absl::string_view source) {
  const Json j = Json::parse(text.begin(), text.end(), nullptr,
                             /*allow_exceptions=*/false);
  if (!j.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": not a JSON object"));
  }
  Finding f;
  absl::StatusOr<Verdict> verdict = ParseVerdict(StringOr(j, "verdict"));
  if (!verdict.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": ", verdict.status().message()));
  }
  f.outcome.verdict = *verdict;
  // Findings written before kinds existed are layout bugs.
  if (const std::string kind = StringOr(j, "kind"); !kind.empty()) {
    absl::StatusOr<FindingKind> k = ParseFindingKind(kind);
    if (!k.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": ", k.status().message()));
    }
    f.outcome.kind = *k;
  }
  f.blame.culprit = StringOr(j, "culprit");
  f.blame.feature = StringOr(j, "feature");
  const auto flaky = j.find("flaky");  // All that older findings have.
  if (flaky != j.end() && flaky->is_boolean() && flaky->get<bool>()) {
    f.dismissal = Dismissal::kFlaky;
  }
  for (Dismissal d : {Dismissal::kFlaky, Dismissal::kOverlap}) {
    if (StringOr(j, "dismissal") == DismissalName(d)) f.dismissal = d;
  }
  f.signature = StringOr(j, "signature");
  if (f.signature.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": no \"signature\""));
  }
  const auto evidence = j.find("evidence");
  if (evidence != j.end() && evidence->is_object()) {
    f.outcome.evidence = EvidenceFromJson(*evidence);
  }
  if (j.contains("case")) {
    DPFUZZ_ASSIGN_OR_RETURN(f.c, CaseFromJson(StringOr(j, "case"), source));
  }
  return f;
}

}  // namespace dpfuzz
