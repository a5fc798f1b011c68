#include "generators/seed_corpus.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/files.h"
#include "generators/case_json.h"
#include "generators/op_args.h"
#include "generators/op_registry.h"
#include "generators/schema_spec.h"

namespace dpfuzz {
namespace {

using Json = nlohmann::json;

const TensorSpec* FirstTensor(const Case& c) {
  const std::vector<const TensorSpec*> specs = TensorSpecsOf(c);
  return specs.empty() ? nullptr : specs[0];
}

}  // namespace

std::string SeedFileName(absl::string_view overload) {
  return absl::StrCat(absl::StrReplaceAll(overload, {{"::", "__"}}), ".jsonl");
}

absl::StatusOr<SeedCorpus> SeedCorpus::Open(const std::string& dir) {
  const std::string path = absl::StrCat(dir, "/", kSeedIndexFile);
  absl::StatusOr<std::string> text = ReadFile(path, "seed index");
  if (!text.ok()) {
    return absl::NotFoundError(
        absl::StrCat("no seeds in ", dir, " (", text.status().message(),
                     "); scripts/harvest_seeds.py makes them"));
  }
  const Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("format", "") != "dpfuzz-seeds" ||
      !j.contains("ops") || !j["ops"].is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path,
                     " is not a dpfuzz seed index (format "
                     "\"dpfuzz-seeds\" with an \"ops\" object)"));
  }
  SeedCorpus corpus;
  corpus.dir_ = dir;
  corpus.torch_version_ = j.value("torch", "");
  for (const auto& [name, entry] : j["ops"].items()) {
    SeedIndexEntry e;
    e.cases = entry.value("cases", int64_t{0});
    for (const Json& d : entry.value("dtypes", Json::array())) {
      if (!d.is_string()) continue;
      absl::StatusOr<DType> dtype = ParseDType(d.get<std::string>());
      if (dtype.ok()) e.dtypes.push_back(*dtype);
    }
    if (e.cases > 0) corpus.index_[name] = std::move(e);
  }
  return corpus;
}

const SeedIndexEntry* SeedCorpus::Find(const std::string& overload) const {
  auto it = index_.find(overload);
  return it == index_.end() ? nullptr : &it->second;
}

std::string SeedCorpus::SourceFor(const std::string& overload) {
  if (Find(overload) != nullptr) return overload;
  if (by_signature_.empty()) {
    for (const auto& [name, entry] : index_) {
      const std::string signature = ReadSignature(SplitOverload(name));
      if (!signature.empty()) by_signature_.try_emplace(signature, name);
    }
  }
  const std::string signature = ReadSignature(SplitOverload(overload));
  auto it = by_signature_.find(signature);
  return signature.empty() || it == by_signature_.end() ? "" : it->second;
}

const std::vector<Case>* SeedCorpus::CasesOf(const std::string& overload) {
  if (Find(overload) == nullptr) return nullptr;
  auto [it, inserted] = loaded_.try_emplace(overload);
  if (inserted) {
    const std::string path = absl::StrCat(dir_, "/", SeedFileName(overload));
    absl::StatusOr<std::string> text = ReadFile(path, "seed file");
    if (text.ok()) {
      for (absl::string_view line : absl::StrSplit(*text, '\n')) {
        if (line.empty()) continue;
        absl::StatusOr<Case> c = CaseFromJson(line, path);
        if (c.ok()) it->second.push_back(std::move(*c));
      }
    }
  }
  return it->second.empty() ? nullptr : &it->second;
}

std::vector<Argument> DrawSeedArgs(const std::vector<Case>& seeds, DType dtype,
                                   Rng& rng) {
  std::vector<const Case*> same_kind, same_dtype;
  for (const Case& c : seeds) {
    const TensorSpec* first = FirstTensor(c);
    if (first == nullptr || KindOf(first->dtype) != KindOf(dtype)) continue;
    same_kind.push_back(&c);
    if (first->dtype == dtype) same_dtype.push_back(&c);
  }
  const Case* chosen =
      !same_dtype.empty() && rng.OneIn(2) ? rng.Pick(same_dtype)
      : !same_kind.empty()
          ? rng.Pick(same_kind)
          : &seeds[rng.Uniform(0, static_cast<int64_t>(seeds.size()) - 1)];
  Case drawn = *chosen;
  const TensorSpec* first = FirstTensor(drawn);
  const DType recorded = first != nullptr ? first->dtype : dtype;
  const bool move = KindOf(recorded) == KindOf(dtype);
  const bool fresh_values = rng.OneIn(4);
  for (TensorSpec* t : AllTensorSpecsOf(drawn)) {
    if (move && t->dtype == recorded) t->dtype = dtype;
    if (fresh_values && IsFloating(t->dtype)) {
      t->values = Values(t->layout.sizes, t->dtype, rng).values;
    }
  }
  return drawn.args;
}

}  // namespace dpfuzz
