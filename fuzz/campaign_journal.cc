#include "fuzz/campaign_journal.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/status_macros.h"

namespace dpfuzz {
namespace {

using Json = nlohmann::json;

constexpr char kFormat[] = "dpfuzz-campaign";
constexpr int kVersion = 1;

std::string PathIn(const std::string& dir) {
  return absl::StrCat(dir, "/", kJournalFile);
}

Json CountsJson(const CampaignSummary& s, const TriageCounts& t) {
  Json verdicts = Json::object();
  for (const auto& [verdict, n] : s.verdicts) {
    verdicts[std::string(VerdictName(verdict))] = n;
  }
  Json known = Json::object();
  for (const auto& [signature, k] : s.known) {
    known[signature] = {{"note", k.note}, {"hits", k.hits}};
  }
  return {{"planned", s.planned},
          {"cases", s.cases},
          {"invalid", s.invalid},
          {"errors", s.errors},
          {"culprits", s.culprits},
          {"abandoned", s.abandoned},
          {"worker_deaths", s.worker_deaths},
          {"hits", s.hits},
          {"seconds", s.seconds},
          {"verdicts", verdicts},
          {"known", known},
          {"baseline_failures", t.baseline_failures},
          {"flaky", t.flaky},
          {"overlap", t.overlap},
          {"triage_errors", t.errors},
          {"unreduced", t.unreduced}};
}

void ReadCounts(const Json& j, CampaignSummary& s, TriageCounts& t) {
  s.planned = j.at("planned").get<int64_t>();
  s.cases = j.at("cases").get<int64_t>();
  s.invalid = j.at("invalid").get<int64_t>();
  s.errors = j.at("errors").get<int64_t>();
  s.culprits = j.at("culprits").get<int64_t>();
  s.abandoned = j.at("abandoned").get<int64_t>();
  s.worker_deaths = j.at("worker_deaths").get<int64_t>();
  s.hits = j.at("hits").get<int64_t>();
  s.seconds = j.at("seconds").get<double>();
  for (const auto& [name, n] : j.at("verdicts").items()) {
    absl::StatusOr<Verdict> v = ParseVerdict(name);
    if (!v.ok()) throw std::invalid_argument(std::string(v.status().message()));
    s.verdicts[*v] = n.get<int64_t>();
  }
  for (const auto& [signature, k] : j.at("known").items()) {
    s.known[signature] = {k.at("note").get<std::string>(),
                          k.at("hits").get<int64_t>()};
  }
  t.baseline_failures = j.at("baseline_failures").get<int64_t>();
  t.flaky = j.at("flaky").get<int64_t>();
  t.overlap = j.at("overlap").get<int64_t>();
  t.errors = j.at("triage_errors").get<int64_t>();
  t.unreduced = j.at("unreduced").get<int64_t>();
}

Json BugsJson(const std::map<std::string, BugRecord>& bugs) {
  Json j = Json::object();
  for (const auto& [id, b] : bugs) {
    j[id] = {{"dir", b.dir},
             {"summary", b.summary},
             {"hits", b.hits},
             {"layout", b.layout},
             {"low_confidence", b.low_confidence},
             {"first_seen_seconds", b.first_seen_seconds},
             {"lead_oddity", b.lead_oddity}};
  }
  return j;
}

std::map<std::string, BugRecord> ReadBugs(const Json& j) {
  std::map<std::string, BugRecord> bugs;
  for (const auto& [id, b] : j.items()) {
    bugs[id] = {
        b.at("dir").get<std::string>(),     b.at("summary").get<std::string>(),
        b.at("hits").get<int64_t>(),        b.at("layout").get<bool>(),
        b.at("low_confidence").get<bool>(), b.value("first_seen_seconds", 0.0),
        b.value("lead_oddity", 0)};
  }
  return bugs;
}

}  // namespace

absl::StatusOr<std::optional<CampaignJournal>> LoadJournal(
    const std::string& findings_dir) {
  const std::string path = PathIn(findings_dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return std::optional<CampaignJournal>();
  }
  DPFUZZ_ASSIGN_OR_RETURN(std::string text, ReadFile(path, "campaign journal"));
  CampaignJournal journal;
  try {
    const Json j = Json::parse(text);
    if (j.at("format") != kFormat || j.at("version") != kVersion) {
      return absl::InvalidArgumentError(absl::StrCat(
          "campaign journal ", path, ": not a ", kFormat, " version ", kVersion,
          " file; move it away to start a new campaign there"));
    }
    journal.ops = j.at("ops").get<std::vector<std::string>>();
    journal.command = j.value("command", "");
    journal.seed = j.at("seed").get<uint64_t>();
    absl::StatusOr<Shard> shard = ParseShard(j.at("shard").get<std::string>());
    if (!shard.ok()) return shard.status();
    journal.shard = *shard;
    journal.finished = j.at("finished").get<bool>();
    journal.next_ticket = j.at("next_ticket").get<int64_t>();
    journal.in_flight = j.at("in_flight").get<std::vector<std::string>>();
    ReadCounts(j.at("counts"), journal.summary, journal.triage.counts);
    journal.triage.bugs = ReadBugs(j.at("bugs"));
    journal.triage.findings =
        j.at("findings").get<std::map<std::string, std::string>>();
    journal.triage.bug_of_signature =
        j.at("bug_of_signature").get<std::map<std::string, std::string>>();
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("campaign journal ", path, ": ", e.what(),
                     "; move it away to start a new campaign there"));
  }
  return std::optional<CampaignJournal>(std::move(journal));
}

absl::Status SaveJournal(const CampaignJournal& journal,
                         const std::string& findings_dir) {
  const Json j{{"format", kFormat},
               {"version", kVersion},
               {"ops", journal.ops},
               {"command", journal.command},
               {"seed", journal.seed},
               {"shard", ShardToString(journal.shard)},
               {"finished", journal.finished},
               {"next_ticket", journal.next_ticket},
               {"in_flight", journal.in_flight},
               {"counts", CountsJson(journal.summary, journal.triage.counts)},
               {"bugs", BugsJson(journal.triage.bugs)},
               {"findings", journal.triage.findings},
               {"bug_of_signature", journal.triage.bug_of_signature}};
  return WriteFileAtomically(PathIn(findings_dir), j.dump(1) + "\n",
                             "campaign journal");
}

}  // namespace dpfuzz
