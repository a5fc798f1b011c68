// SummaryLine and SummaryJson (fuzz/campaign.h): a campaign's counts as
// its last line and as --summary_json.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "fuzz/campaign.h"

namespace dpfuzz {
namespace {

int64_t LowConfidenceBugs(const CampaignSummary& s) {
  return std::count_if(s.bugs.begin(), s.bugs.end(), [](const auto& bug) {
    return bug.second.low_confidence;
  });
}

}  // namespace

std::string SummaryLine(const CampaignSummary& s) {
  // What a person acts on; every other count is in SummaryJson.
  std::string line = absl::StrFormat(
      "SUMMARY: bugs=%d low_confidence=%d findings=%d known=%d "
      "baseline_failures=%d flaky=%d cases=%d seconds=%.1f",
      s.bugs.size(), LowConfidenceBugs(s), s.findings.size(), s.known.size(),
      s.baseline_failures, s.flaky, s.cases, s.seconds);
  if (s.untriaged > 0) absl::StrAppend(&line, " untriaged=", s.untriaged);
  if (s.interrupted) absl::StrAppend(&line, " interrupted");
  return line;
}

std::string SummaryJson(const CampaignSummary& s) {
  nlohmann::json verdicts = nlohmann::json::object();
  for (Verdict v : AllVerdicts()) {
    const auto it = s.verdicts.find(v);
    verdicts[std::string(VerdictName(v))] =
        it == s.verdicts.end() ? 0 : it->second;
  }
  nlohmann::json dirs = nlohmann::json::array();
  for (const auto& [signature, dir] : s.findings) {
    dirs.push_back({{"signature", signature}, {"dir", dir}});
  }
  nlohmann::json known = nlohmann::json::array();
  for (const auto& [signature, k] : s.known) {
    known.push_back(
        {{"signature", signature}, {"note", k.note}, {"hits", k.hits}});
  }
  nlohmann::json bugs = nlohmann::json::array();
  for (const auto& [id, bug] : s.bugs) {
    bugs.push_back({{"id", id},
                    {"summary", bug.summary},
                    {"dir", bug.dir},
                    {"hits", bug.hits},
                    {"low_confidence", bug.low_confidence},
                    {"first_seen_seconds", bug.first_seen_seconds}});
  }
  nlohmann::json quarantined = nlohmann::json::array();
  for (const Quarantined& q : s.quarantined) {
    quarantined.push_back(
        {{"op", q.op}, {"deaths", q.deaths}, {"reason", q.reason}});
  }
  const nlohmann::json j{{"planned", s.planned},
                         {"cases", s.cases},
                         {"ops", s.ops},
                         {"ops_with_cases", s.ops_with_cases},
                         {"bugs", s.bugs.size()},
                         {"low_confidence_bugs", LowConfidenceBugs(s)},
                         {"bug_list", bugs},
                         {"baseline_failures", s.baseline_failures},
                         {"flaky", s.flaky},
                         {"overlap", s.overlap},
                         {"untriaged", s.untriaged},
                         {"quarantined", quarantined},
                         {"findings", s.findings.size()},
                         {"hits", s.hits},
                         {"invalid", s.invalid},
                         {"errors", s.errors},
                         {"culprits", s.culprits},
                         {"abandoned", s.abandoned},
                         {"worker_deaths", s.worker_deaths},
                         {"seconds", s.seconds},
                         {"start_seconds", s.start_seconds},
                         {"steady_cases_per_second", s.steady_cases_per_second},
                         {"verdicts", verdicts},
                         {"finding_dirs", dirs},
                         {"known", known},
                         {"interrupted", s.interrupted}};
  return j.dump(2) + "\n";
}

}  // namespace dpfuzz
