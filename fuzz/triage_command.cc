#include "fuzz/triage_command.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "crashes/bugs/bug.h"
#include "crashes/bugs/findings_store.h"
#include "crashes/findings/finding.h"
#include "fuzz/campaign_journal.h"
#include "fuzz/report.h"
#include "fuzz/repro_checker.h"
#include "fuzz/triage.h"
#include "oracles/resource_oracles.h"

namespace dpfuzz {

absl::Status RunTriageCommand(const std::vector<std::string>& args,
                              const SupervisorOptions& isolation,
                              const std::atomic<bool>* stop,
                              std::ostream& log) {
  if (args.size() != 1) {
    return absl::InvalidArgumentError(
        "triage takes one findings directory: dpfuzz triage FINDINGS");
  }
  const std::string& dir = args[0];
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::NotFoundError(
        absl::StrCat("triage: ", dir, " is not a findings directory"));
  }
  absl::StatusOr<std::vector<StoredFinding>> stored = ReadFindingsDir(dir);
  if (!stored.ok()) return stored.status();
  std::vector<StoredFinding> todo;
  for (StoredFinding& s : *stored) {
    if (s.untriaged && s.finding.outcome.kind == FindingKind::kLayoutBug &&
        s.finding.dismissal == Dismissal::kNone) {
      todo.push_back(std::move(s));
    }
  }
  const auto rank = [](const StoredFinding& s) {
    return std::make_pair(
        TriageOrder(s.finding, s.first_seen_seconds.value_or(0.0)), s.dir);
  };
  std::sort(todo.begin(), todo.end(),
            [&rank](const StoredFinding& a, const StoredFinding& b) {
              return rank(a) < rank(b);
            });
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(dir);
  if (!store.ok()) return store.status();
  absl::StatusOr<std::optional<CampaignJournal>> journal = LoadJournal(dir);
  const std::string command =
      journal.ok() && journal->has_value() && !(*journal)->command.empty()
          ? (*journal)->command
          : absl::StrCat("dpfuzz triage ", dir);
  log << "INFO: " << todo.size() << " untriaged root cause(s) in " << dir
      << std::endl;
  {
    ReproChecker checker(*store, command);
    TriageOptions options;
    options.isolation = isolation;
    options.budget_share = 1;  // Findings met on the way are triaged too.
    options.isolation.worker.corpus_dir.clear();
    for (const StoredFinding& s : todo) {
      TurnOnOracleOf(s.finding.outcome.verdict,
                     options.isolation.worker.resources);
    }
    Triage triage(options, &*store, &checker, log);
    const auto start = std::chrono::steady_clock::now();
    size_t done = 0;
    for (const StoredFinding& s : todo) {
      if (stop != nullptr && *stop) break;
      const double elapsed = std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - start)
                                 .count();
      triage.Retriage(s, elapsed, /*remaining=*/1e9);
      ++done;
      for (const ReproCheckDone& d : checker.TakeDone()) {
        log << "INFO: " << d.dir << ": " << d.result << std::endl;
      }
    }
    if (!(stop != nullptr && *stop)) {
      absl::StatusOr<size_t> unchecked = CheckBugLeads(dir, checker);
      if (!unchecked.ok()) return unchecked.status();
      if (*unchecked > 0) {
        log << "INFO: checking the issue.md of " << *unchecked
            << " more bug lead(s) that have none of their own" << std::endl;
      }
    }
    const size_t dropped = checker.Finish(stop != nullptr && *stop ? 0 : 1e9);
    for (const ReproCheckDone& d : checker.TakeDone()) {
      log << "INFO: " << d.dir << ": " << d.result << std::endl;
    }
    log << "INFO: triaged " << done << " of " << todo.size() << " root cause(s)"
        << (done < todo.size() ? "; run again to go on" : "")
        << (dropped > 0
                ? absl::StrCat("; ", dropped, " Python check(s) not run")
                : "")
        << std::endl;
  }
  if (absl::Status s = WriteReports(dir); !s.ok()) return s;
  log << "INFO: report: " << dir << "/report.md, report.html, report.json"
      << std::endl;
  return absl::OkStatus();
}

}  // namespace dpfuzz
