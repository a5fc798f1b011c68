#include "fuzz/replay.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/finding_json.h"
#include "generators/case_json.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<ReplayItem> ItemFor(const std::string& case_path) {
  ReplayItem item{case_path, std::nullopt};
  DPFUZZ_RETURN_IF_ERROR(LoadCaseFile(case_path).status());
  const std::string finding =
      (fs::path(case_path).parent_path() / "finding.json").string();
  std::error_code ec;
  if (fs::exists(finding, ec)) {
    DPFUZZ_ASSIGN_OR_RETURN(std::string text, ReadFile(finding, "finding"));
    DPFUZZ_ASSIGN_OR_RETURN(item.expected, FindingFromJson(text, finding));
  }
  return item;
}

enum class Status { kFixed, kReproduces, kDiffers, kError };

bool IsDeath(Verdict v) {
  return v == Verdict::kCrash || v == Verdict::kTimeout || v == Verdict::kOom;
}

bool SameBug(const Finding& expected, const Finding& got) {
  if (expected.signature == got.signature) return true;
  return IsDeath(expected.outcome.verdict) &&
         expected.outcome.verdict == got.outcome.verdict;
}

}  // namespace

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

ReplaySummary RunReplay(const std::vector<ReplayItem>& items,
                        SupervisorOptions isolation, std::ostream& log) {
  ReplaySummary summary;
  isolation.malloc_check = true;
  absl::StatusOr<std::unique_ptr<Supervisor>> sup =
      Supervisor::Start(isolation);
  if (!sup.ok()) {
    log << "ERROR: " << sup.status().message() << "\n";
    summary.errors = static_cast<int>(items.size());
    return summary;
  }
  std::map<std::string, const ReplayItem*> by_path;
  for (const ReplayItem& item : items) {
    by_path[item.case_path] = &item;
    (*sup)->Submit(FileTicket(item.case_path));
  }
  // The last word on each case (a late culprit overrides "ran").
  std::map<std::string, std::string> lines;
  std::map<std::string, Status> kinds;
  std::vector<TicketResult> results;
  while ((*sup)->Outstanding() > 0) {
    if (absl::Status s = (*sup)->Poll(0.1, results); !s.ok()) {
      log << "ERROR: " << s.message() << "\n";
      break;
    }
    for (TicketResult& r : results) {
      const std::string& path = r.ticket.path;
      const ReplayItem& item = *by_path.at(path);
      if (r.kind == TicketResult::Kind::kError) {
        kinds[path] = Status::kError;
        lines[path] = absl::StrCat("ERROR: ", path, ": ", r.error);
      } else if (!r.finding.has_value()) {
        kinds[path] = Status::kFixed;
        lines[path] = absl::StrCat("FIXED: ", path);
      } else if (!item.expected.has_value() ||
                 SameBug(*item.expected, *r.finding)) {
        kinds[path] = Status::kReproduces;
        lines[path] =
            absl::StrCat("REPRODUCES: ", path, " (", r.finding->signature, ")");
      } else {
        kinds[path] = Status::kDiffers;
        lines[path] = absl::StrCat("DIFFERS: ", path, ": expected ",
                                   item.expected->signature, ", got ",
                                   r.finding->signature);
      }
    }
    results.clear();
  }
  for (const ReplayItem& item : items) {
    const auto it = lines.find(item.case_path);
    if (it == lines.end()) {
      log << "ERROR: " << item.case_path << ": no result\n";
      ++summary.errors;
      continue;
    }
    log << it->second << "\n";
    switch (kinds[item.case_path]) {
      case Status::kFixed:
        ++summary.fixed;
        break;
      case Status::kReproduces:
        ++summary.reproduces;
        break;
      case Status::kDiffers:
        ++summary.differs;
        break;
      case Status::kError:
        ++summary.errors;
        break;
    }
  }
  return summary;
}

}  // namespace dpfuzz
