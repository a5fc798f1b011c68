#include "crashes/findings_store.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "generators/case_json.h"
#include "generators/layout_features.h"

namespace dpfuzz {
namespace {

using Json = nlohmann::json;

Json EvidenceToJson(const Evidence& e) {
  Json j{{"where", e.where}, {"detail", e.detail}};
  if (!e.index.empty()) {
    j["first_difference"] = {
        {"index", e.index}, {"expected", e.expected}, {"actual", e.actual}};
    j["max_error"] = e.max_error;
  }
  if (!e.error.empty()) j["error"] = e.error;
  return j;
}

std::string FindingJson(const Finding& f, int64_t hits) {
  Json layouts = Json::array();
  for (const Argument& arg : f.c.args) {
    if (const auto* t = std::get_if<TensorSpec>(&arg.value)) {
      layouts.push_back(absl::StrCat(
          arg.name, ": ", TensorSpecLayoutString(*t), " (",
          LayoutFeaturesToString(ComputeLayoutFeatures(t->layout)), ")"));
    }
  }
  const Json j{
      {"op", f.c.op},
      {"overload", f.c.overload},
      {"variant", std::string(VariantName(f.c.variant))},
      {"verdict", std::string(VerdictName(f.outcome.verdict))},
      {"signature", f.signature},
      {"evidence", EvidenceToJson(f.outcome.evidence)},
      {"layouts", layouts},
      {"hits", hits},
      {"libtorch_version", LibTorchVersion()},
      {"dpfuzz_version", DpfuzzVersion()},
  };
  return j.dump(2) + "\n";
}

// The hits and case recorded so far in `path`, if any.
struct Stored {
  int64_t hits = 0;
  std::optional<Case> c;
};

Stored ReadStored(const std::string& path) {
  Stored stored;
  absl::StatusOr<std::string> text =
      ReadFile(path + "/finding.json", "finding");
  if (text.ok()) {
    const Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("hits") && j["hits"].is_number_integer()) {
      stored.hits = j["hits"].get<int64_t>();
    }
  }
  absl::StatusOr<Case> c = LoadCaseFile(path + "/case.json");
  if (c.ok()) stored.c = *c;
  return stored;
}

}  // namespace

int64_t CaseSize(const Case& c) {
  int64_t size = 0;
  for (const TensorSpec* spec : TensorSpecsOf(c)) size += spec->numel();
  for (const TensorSpec& g : c.grad_outputs) size += g.numel();
  return size;
}

absl::StatusOr<FindingsStore> FindingsStore::Open(const std::string& dir) {
  DPFUZZ_RETURN_IF_ERROR(MakeDirectories(dir, "findings directory"));
  return FindingsStore(dir);
}

std::string FindingsStore::PathFor(const Finding& finding) const {
  std::string op = finding.c.op.substr(finding.c.op.rfind(':') + 1);
  return absl::StrFormat("%s/%s-%s-%016x", dir_,
                         VerdictName(finding.outcome.verdict), op,
                         SignatureHash(finding.signature));
}

absl::StatusOr<Recorded> FindingsStore::Record(const Finding& finding) {
  Recorded r;
  r.path = PathFor(finding);
  const Stored stored = ReadStored(r.path);
  r.is_new = !stored.c.has_value();
  r.hits = stored.hits + 1;
  DPFUZZ_RETURN_IF_ERROR(MakeDirectories(r.path, "finding directory"));
  if (r.is_new || CaseSize(finding.c) < CaseSize(*stored.c)) {
    DPFUZZ_RETURN_IF_ERROR(SaveCaseFile(finding.c, r.path + "/case.json"));
    DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(
        r.path + "/finding.json", FindingJson(finding, r.hits), "finding"));
    return r;
  }
  // Keep the stored (smaller) case and its evidence; count the hit.
  absl::StatusOr<std::string> text =
      ReadFile(r.path + "/finding.json", "finding");
  Json j = text.ok() ? Json::parse(*text, nullptr, false) : Json();
  if (!j.is_object()) j = Json::parse(FindingJson(finding, r.hits));
  j["hits"] = r.hits;
  DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(r.path + "/finding.json",
                                             j.dump(2) + "\n", "finding"));
  return r;
}

}  // namespace dpfuzz
