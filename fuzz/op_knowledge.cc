#include "fuzz/op_knowledge.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "generators/schema_args.h"

namespace dpfuzz {
namespace {

std::string DrawKey(DType dtype, uint64_t seed) {
  return absl::StrCat(DTypeName(dtype), " ", PlanOfSeed(seed).Key());
}

nlohmann::json ToJson(const Tally& t) { return {t.tried, t.valid}; }

Tally TallyFrom(const nlohmann::json& j) {
  return Tally{j.at(0).get<int64_t>(), j.at(1).get<int64_t>()};
}

}  // namespace

double ValidRate(const Tally& t) {
  return t.tried == 0 ? 0.0 : static_cast<double>(t.valid) / t.tried;
}

absl::StatusOr<OpKnowledge> OpKnowledge::Load(const std::string& path) {
  OpKnowledge k;
  if (::access(path.c_str(), F_OK) != 0) return k;
  absl::StatusOr<std::string> text = ReadFile(path, "op stats file");
  if (!text.ok()) return text.status();
  try {
    const nlohmann::json j = nlohmann::json::parse(*text);
    for (const auto& [op, stats] : j.at("ops").items()) {
      OpStats& s = k.ops_[op];
      s.all = TallyFrom(stats.at("all"));
      if (stats.contains("seeded")) s.seeded = TallyFrom(stats.at("seeded"));
      if (stats.contains("seconds")) {
        s.seconds = stats.at("seconds").at(0).get<double>();
        s.timed = stats.at("seconds").at(1).get<int64_t>();
      }
      for (const auto& [key, tally] : stats.at("by_draw").items()) {
        s.by_draw[key] = TallyFrom(tally);
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not a dpfuzz op stats file: ", e.what()));
  }
  return k;
}

absl::Status OpKnowledge::Save(const std::string& path) const {
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [op, s] : ops_) {
    nlohmann::json by_draw = nlohmann::json::object();
    for (const auto& [key, tally] : s.by_draw) by_draw[key] = ToJson(tally);
    ops[op] = {{"all", ToJson(s.all)},
               {"seeded", ToJson(s.seeded)},
               {"seconds", {s.seconds, s.timed}},
               {"by_draw", by_draw}};
  }
  const nlohmann::json j = {{"format", "dpfuzz-op-stats"},
                            {"note",
                             "tallies are [tried, valid]; seconds are "
                             "[worker seconds, draws timed]"},
                            {"ops", ops}};
  return WriteFileAtomically(path, j.dump(1) + "\n", "op stats");
}

void OpKnowledge::Record(const std::string& op, DType dtype, uint64_t seed,
                         bool valid, bool seeded, double seconds) {
  OpStats& s = ops_[op];
  if (seconds > 0) {
    s.seconds += seconds;
    ++s.timed;
  }
  for (Tally* t :
       {&s.all, seeded ? &s.seeded : &s.by_draw[DrawKey(dtype, seed)]}) {
    ++t->tried;
    if (valid) ++t->valid;
  }
}

double OpKnowledge::Estimate(const std::string& op, DType dtype,
                             uint64_t seed) const {
  Tally t;
  if (const OpStats* s = Find(op)) {
    const auto it = s->by_draw.find(DrawKey(dtype, seed));
    if (it != s->by_draw.end()) t = it->second;
  }
  return (t.valid + 1.0) / (t.tried + 2.0);
}

const OpStats* OpKnowledge::Find(const std::string& op) const {
  const auto it = ops_.find(op);
  return it == ops_.end() ? nullptr : &it->second;
}

}  // namespace dpfuzz
