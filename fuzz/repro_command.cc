#include "fuzz/repro_command.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/isolation/isolated_runs.h"
#include "crashes/repro/repro_cpp.h"
#include "fuzz/replay.h"
#include "generators/case_json.h"

namespace dpfuzz {
namespace {

// The verdict `item`'s case shows: its finding.json's, or a run's.
absl::StatusOr<Verdict> VerdictOf(const ReplayItem& item,
                                  SupervisorOptions isolation) {
  if (item.expected.has_value()) return item.expected->outcome.verdict;
  DPFUZZ_RETURN_IF_ERROR(CheckRunsHere("repro", item));
  isolation.jobs = 1;
  DPFUZZ_ASSIGN_OR_RETURN(auto results,
                          RunCaseFiles({item.case_path}, std::move(isolation)));
  const auto it = results.find(item.case_path);
  if (it == results.end() || it->second.kind == TicketResult::Kind::kError) {
    return absl::InternalError(absl::StrCat(
        "repro: ", item.case_path, ": the case could not be run",
        it == results.end() ? "" : absl::StrCat(": ", it->second.error)));
  }
  if (!it->second.finding.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat("repro: ", item.case_path,
                     " shows no finding on this LibTorch; nothing to repro"));
  }
  return it->second.verdict;
}

}  // namespace

absl::Status RunReproCommand(const std::vector<std::string>& args,
                             ReproFormat format, const std::string& out,
                             SupervisorOptions isolation,
                             std::ostream& stdout_) {
  DPFUZZ_ASSIGN_OR_RETURN(ReplayItem item, OneReplayItem("repro", args));
  DPFUZZ_ASSIGN_OR_RETURN(Case c, LoadCaseFile(item.case_path));
  DPFUZZ_ASSIGN_OR_RETURN(Verdict verdict,
                          VerdictOf(item, std::move(isolation)));
  absl::StatusOr<std::string> text = ReproText(c, verdict, format);
  if (!text.ok()) {
    return absl::Status(text.status().code(),
                        absl::StrCat("repro: ", text.status().message()));
  }
  if (out.empty()) {
    stdout_ << *text;
    return absl::OkStatus();
  }
  std::error_code ec;
  if (std::filesystem::is_directory(out, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "repro: --out=", out, " is a directory; name a file in it"));
  }
  const std::string cmake =
      (std::filesystem::path(out).parent_path() / kCppReproCMakeFile).string();
  if (format == ReproFormat::kCpp) {
    // Never overwrite a project's own CMakeLists.txt.
    absl::StatusOr<std::string> existing = ReadFile(cmake, "CMakeLists.txt");
    if (std::filesystem::exists(cmake, ec) &&
        (!existing.ok() || *existing != CppReproCMakeLists())) {
      return absl::AlreadyExistsError(
          absl::StrCat("repro: ", cmake,
                       " exists and is not a dpfuzz repro's; pick an --out "
                       "in another directory"));
    }
  }
  DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(out, *text, "repro"));
  if (format == ReproFormat::kCpp) {
    DPFUZZ_RETURN_IF_ERROR(
        WriteFileAtomically(cmake, CppReproCMakeLists(), "CMakeLists.txt"));
  }
  return absl::OkStatus();
}

}  // namespace dpfuzz
