#include "generators/seed_corpus.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/files.h"
#include "generators/case_json.h"
#include "generators/op_args.h"
#include "generators/op_registry.h"
#include "generators/schema_spec.h"

namespace dpfuzz {
namespace {

using Json = nlohmann::json;

// Op names without the namespace, leading "_" and a "_forward" or "_copy"
// suffix: the same op's private and derived forms.
std::string OpStem(const std::string& op) {
  absl::string_view stem = op;
  if (const size_t colons = stem.find("::"); colons != stem.npos) {
    stem.remove_prefix(colons + 2);
  }
  while (absl::ConsumePrefix(&stem, "_")) {
  }
  if (!absl::ConsumeSuffix(&stem, "_forward")) {
    absl::ConsumeSuffix(&stem, "_copy");
  }
  return std::string(stem);
}

bool SameOp(const OverloadName& a, const OverloadName& b) {
  return OpStem(a.op) == OpStem(b.op);
}

// How well a donor's seeds fit a target (SeedCorpus::SourceFor); greater
// is better.
struct SeedFit {
  bool same_op;
  bool same_reads;  // The very arguments the target reads.
  int optional_given;
  int extra;  // Negated: the fewer the better.

  friend bool operator<(const SeedFit& a, const SeedFit& b) {
    return std::tie(a.same_op, a.same_reads, a.optional_given, a.extra) <
           std::tie(b.same_op, b.same_reads, b.optional_given, b.extra);
  }
};

// nullopt when `donor`'s seeds cannot be drawn for `target`: it must give
// every argument `target` reads (of the same op: every required one), none
// of another type (but a tensor for an int[], which its values may give).
std::optional<SeedFit> FitOf(const std::vector<ReadArgument>& target,
                             const std::vector<ReadArgument>& donor,
                             bool same_op) {
  if (target.empty()) return std::nullopt;
  SeedFit fit{same_op, true, 0, 0};
  fit.same_reads = target.size() == donor.size();
  int shared = 0;
  for (size_t i = 0; i < target.size(); ++i) {
    const ReadArgument& t = target[i];
    auto d =
        std::find_if(donor.begin(), donor.end(),
                     [&t](const ReadArgument& a) { return a.name == t.name; });
    if (d == donor.end()) {
      if (t.required || !same_op) return std::nullopt;
      fit.same_reads = false;
      continue;
    }
    if (d->type != t.type && !(d->type == "Tensor" && t.type == "int[]")) {
      return std::nullopt;
    }
    fit.same_reads =
        fit.same_reads && d == donor.begin() + i && d->required == t.required;
    ++shared;
    if (!t.required) ++fit.optional_given;
  }
  if (shared == 0) return std::nullopt;
  fit.extra = -static_cast<int>(donor.size() - shared);
  return fit;
}

// `args` without those not in `reads`.
void KeepReadArguments(const std::vector<ReadArgument>& reads,
                       std::vector<Argument>& args) {
  args.erase(std::remove_if(args.begin(), args.end(),
                            [&reads](const Argument& a) {
                              return std::none_of(reads.begin(), reads.end(),
                                                  [&a](const ReadArgument& r) {
                                                    return r.name == a.name;
                                                  });
                            }),
             args.end());
}

// `c`'s arguments fitted to `reads`: the others dropped, a 1-d integer
// tensor with explicit values given for an int[] turned into that list;
// nullopt when an argument `reads` requires is missing or cannot be turned,
// or one not optional is None (native_batch_norm's running_mean, which
// _native_batch_norm_legit_functional must be given).
std::optional<std::vector<Argument>> FittedArguments(
    const std::vector<ReadArgument>& reads, std::vector<Argument> args) {
  KeepReadArguments(reads, args);
  for (const ReadArgument& r : reads) {
    auto a = std::find_if(args.begin(), args.end(),
                          [&r](const Argument& x) { return x.name == r.name; });
    if (a == args.end()) {
      if (r.required) return std::nullopt;
      continue;
    }
    if (!r.optional && std::holds_alternative<std::monostate>(a->value)) {
      return std::nullopt;
    }
    const auto* t = std::get_if<TensorSpec>(&a->value);
    if (r.type != "int[]" || t == nullptr) continue;
    if (t->dim() != 1 || IsFloating(t->dtype) || IsComplex(t->dtype) ||
        t->values.distribution != Distribution::kExplicit ||
        static_cast<int64_t>(t->values.data.size()) != t->numel()) {
      return std::nullopt;
    }
    a->value = Dims(t->values.data.begin(), t->values.data.end());
  }
  return args;
}

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
  if (auto it = sources_.find(overload); it != sources_.end()) {
    return it->second;
  }
  if (seeded_reads_.empty()) {
    for (const auto& [name, entry] : index_) {
      seeded_reads_[name] = ReadArgumentsOf(SplitOverload(name));
    }
  }
  const OverloadName target = SplitOverload(overload);
  const std::vector<ReadArgument> reads = ReadArgumentsOf(target);
  std::vector<std::pair<SeedFit, std::string>> donors;
  for (const auto& [name, donor] : seeded_reads_) {
    std::optional<SeedFit> fit =
        FitOf(reads, donor, SameOp(target, SplitOverload(name)));
    if (fit.has_value()) donors.emplace_back(*fit, name);
  }
  std::sort(donors.begin(), donors.end(), [](const auto& a, const auto& b) {
    return b.first < a.first || (!(a.first < b.first) && a.second < b.second);
  });
  // The best donor with a case that fits: its schema may let it leave out
  // what `overload` must be given (clamp's max for clamp_max).
  std::string& source = sources_[overload];
  for (const auto& [fit, name] : donors) {
    const std::vector<Case>* cases = CasesOf(name);
    if (cases == nullptr) continue;
    for (const Case& c : *cases) {
      if (FittedArguments(reads, c.args).has_value()) return source = name;
    }
  }
  return source;
}

std::vector<Case> SeedCorpus::CasesFor(const std::string& overload) {
  const std::string source = SourceFor(overload);
  const std::vector<Case>* cases = source.empty() ? nullptr : CasesOf(source);
  std::vector<Case> out;
  if (cases == nullptr) return out;
  const std::vector<ReadArgument> reads =
      ReadArgumentsOf(SplitOverload(overload));
  for (const Case& c : *cases) {
    std::optional<std::vector<Argument>> args = FittedArguments(reads, c.args);
    if (!args.has_value()) continue;
    Case fitted = c;
    fitted.args = std::move(*args);
    out.push_back(std::move(fitted));
  }
  return out;
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
