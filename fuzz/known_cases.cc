#include "fuzz/known_cases.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"
#include "crashes/isolation/isolated_runs.h"
#include "fuzz/replay.h"
#include "generators/case_json.h"
#include "generators/op_registry.h"

namespace dpfuzz {

// Signature fields (crashes/findings/finding.h):
// op|variant|verdict|dtypes|devices, then |aliased, |nested, then a death's
// crash key (crashes/isolation/supervisor.cc).
constexpr size_t kDtypesField = 3;
constexpr size_t kClassFields = 5;

std::string KnownPattern(const std::string& signature) {
  std::vector<std::string> fields = absl::StrSplit(signature, '|');
  if (fields.size() > kDtypesField) fields[kDtypesField] = "*";
  for (size_t i = kClassFields; i < fields.size(); ++i) {
    if (fields[i] != "aliased" && fields[i] != "nested") {
      // A crash key may move between builds and runs (as replay has it).
      fields.resize(i + 1);
      fields[i] = "*";
      break;
    }
  }
  return absl::StrJoin(fields, "|");
}

absl::StatusOr<KnownCases> LearnKnownCases(
    const std::string& dir, const std::vector<const OpSpec*>& ops,
    SupervisorOptions isolation) {
  DPFUZZ_ASSIGN_OR_RETURN(std::vector<ReplayItem> items,
                          CollectReplayItems({dir}));
  KnownCases learned;
  learned.cases = static_cast<int>(items.size());
  std::vector<std::string> paths;
  for (const ReplayItem& item : items) {
    DPFUZZ_ASSIGN_OR_RETURN(Case c, LoadCaseFile(item.case_path));
    const OpSpec* spec = FindOpFor(c);
    if (std::find(ops.begin(), ops.end(), spec) == ops.end() ||
        !CheckRunsHere("known", item).ok()) {
      continue;
    }
    paths.push_back(item.case_path);
  }
  learned.selected = static_cast<int>(paths.size());
  if (paths.empty()) return learned;
  isolation.malloc_check = true;  // As replay runs them.
  DPFUZZ_ASSIGN_OR_RETURN(auto results,
                          RunCaseFiles(paths, std::move(isolation)));
  std::vector<KnownIssues::Entry> entries;
  for (const std::string& path : paths) {
    const auto it = results.find(path);
    if (it == results.end() || !it->second.finding.has_value()) {
      learned.quiet.push_back(path);
      continue;
    }
    entries.push_back({KnownPattern(it->second.finding->signature),
                       std::filesystem::path(path).parent_path().string()});
  }
  learned.known = KnownIssues(std::move(entries));
  return learned;
}

}  // namespace dpfuzz
