#include "fuzz/replay.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/bugs/bug.h"
#include "crashes/findings/finding_json.h"
#include "crashes/isolation/isolated_runs.h"
#include "generators/aten_bridge.h"
#include "generators/case_json.h"
#include "oracles/resource_oracles.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<ReplayItem> ItemFor(const std::string& case_path) {
  ReplayItem item{case_path, std::nullopt};
  DPFUZZ_ASSIGN_OR_RETURN(Case c, LoadCaseFile(case_path));
  item.device = CaseDevice(c);
  const std::string finding =
      (fs::path(case_path).parent_path() / "finding.json").string();
  std::error_code ec;
  if (fs::exists(finding, ec)) {
    DPFUZZ_ASSIGN_OR_RETURN(std::string text, ReadFile(finding, "finding"));
    DPFUZZ_ASSIGN_OR_RETURN(item.expected, FindingFromJson(text, finding));
  }
  return item;
}

}  // namespace

bool ShowsSameBug(const Finding& expected, const Finding& got) {
  if (expected.signature == got.signature) return true;
  if (expected.outcome.kind == FindingKind::kBaselineFailure) {
    return got.outcome.kind == FindingKind::kBaselineFailure ||
           IsDeath(got.outcome.verdict);
  }
  return IsDeath(expected.outcome.verdict) &&
         expected.outcome.verdict == got.outcome.verdict;
}

absl::StatusOr<std::vector<ReplayItem>> CollectReplayItems(
    const std::vector<std::string>& paths) {
  if (paths.empty()) {
    return absl::InvalidArgumentError(
        "replay: name case files or findings directories (dpfuzz replay "
        "findings/)");
  }
  std::vector<std::string> cases;
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status)) {
      return absl::NotFoundError(
          absl::StrCat("replay: ", path, ": no such file or directory"));
    }
    if (!fs::is_directory(status)) {
      cases.push_back(path);
      continue;
    }
    const size_t before = cases.size();
    for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->path().filename() == "case.json") {
        cases.push_back(it->path().string());
      }
    }
    if (ec) {
      return absl::InternalError(
          absl::StrCat("replay: ", path, ": ", ec.message()));
    }
    if (cases.size() == before) {
      return absl::NotFoundError(
          absl::StrCat("replay: ", path, ": no case.json below it"));
    }
  }
  std::sort(cases.begin(), cases.end());
  cases.erase(std::unique(cases.begin(), cases.end()), cases.end());
  std::vector<ReplayItem> items;
  for (const std::string& c : cases) {
    DPFUZZ_ASSIGN_OR_RETURN(ReplayItem item, ItemFor(c));
    items.push_back(std::move(item));
  }
  return items;
}

absl::Status CheckRunsHere(absl::string_view command, const ReplayItem& item) {
  const Device device = item.device;
  if (absl::Status s = CheckDeviceAvailable(device); !s.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        command, ": ", item.case_path, " runs on ", DeviceName(device), ": ",
        s.message(), "; run it where one is"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ReplayItem> OneReplayItem(const std::string& command,
                                         const std::vector<std::string>& args) {
  if (args.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        command, ": name one case file or finding directory (dpfuzz ", command,
        " findings/mismatch-cat-0123456789abcdef)"));
  }
  DPFUZZ_ASSIGN_OR_RETURN(std::vector<ReplayItem> items,
                          CollectReplayItems(args));
  if (items.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(command, ": ", args[0],
                                                   " holds ", items.size(),
                                                   " cases; name one of them"));
  }
  return std::move(items[0]);
}

ReplaySummary RunReplay(const std::vector<ReplayItem>& items,
                        SupervisorOptions isolation, std::ostream& log) {
  ReplaySummary summary;
  isolation.malloc_check = true;
  std::vector<std::string> paths;
  for (const ReplayItem& item : items) {
    paths.push_back(item.case_path);
    if (item.expected.has_value()) {
      TurnOnOracleOf(item.expected->outcome.verdict,
                     isolation.worker.resources);
    }
  }
  absl::StatusOr<std::map<std::string, TicketResult>> results =
      RunCaseFiles(paths, std::move(isolation));
  if (!results.ok()) {
    log << "ERROR: " << results.status().message() << "\n";
    summary.errors = static_cast<int>(items.size());
    return summary;
  }
  for (const ReplayItem& item : items) {
    const std::string& path = item.case_path;
    const auto it = results->find(path);
    if (it == results->end()) {
      log << "ERROR: " << path << ": no result\n";
      ++summary.errors;
      continue;
    }
    const TicketResult& r = it->second;
    if (r.kind == TicketResult::Kind::kError) {
      log << "ERROR: " << path << ": " << r.error << "\n";
      ++summary.errors;
    } else if (!r.finding.has_value()) {
      // Every layout rejecting the arguments reads as fixed too: an op that
      // checks them now, or arguments dpfuzz now rejects before the call
      // (Note [The forward decides a backward's domain]).
      log << "FIXED: " << path
          << (r.verdict == Verdict::kBothRejected
                  ? " (every layout's arguments are rejected now)"
                  : "")
          << "\n";
      ++summary.fixed;
    } else if (!item.expected.has_value() ||
               ShowsSameBug(*item.expected, *r.finding)) {
      const Evidence& e = r.finding->outcome.evidence;
      log << "REPRODUCES: " << path << " (" << r.finding->signature << ")";
      if (!e.mechanism.empty()) {
        log << " mechanism: " << e.mechanism << " of " << e.mechanism_argument;
      }
      if (r.finding->outcome.kind == FindingKind::kBaselineFailure) {
        log << " baseline failure: " << e.detail;
      } else if (const ConfidenceJudgement c = ConfidenceOf(*r.finding);
                 c.confidence == Confidence::kLow) {
        log << " low confidence: " << c.reason;
      }
      log << "\n";
      ++summary.reproduces;
    } else {
      log << "DIFFERS: " << path << ": expected " << item.expected->signature
          << ", got " << r.finding->signature << "\n";
      ++summary.differs;
    }
  }
  return summary;
}

}  // namespace dpfuzz
