#include "reducers/isolated_runner.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/isolation/isolated_runs.h"
#include "generators/case_json.h"

namespace dpfuzz {
namespace {

absl::StatusOr<std::optional<Finding>> FindingOf(TicketResult r) {
  switch (r.kind) {
    case TicketResult::Kind::kError:
      return absl::InternalError(r.error);
    case TicketResult::Kind::kInvalid:
      return std::optional<Finding>();
    default:
      return std::move(r.finding);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<IsolatedRunner>> IsolatedRunner::Start(
    SupervisorOptions isolation) {
  isolation.jobs = 1;
  isolation.malloc_check = true;
  isolation.culprit_window = 0;
  DPFUZZ_ASSIGN_OR_RETURN(std::string dir, MakeTempDirectory("dpfuzz-reduce-"));
  absl::StatusOr<std::unique_ptr<Supervisor>> sup =
      Supervisor::Start(isolation);
  if (!sup.ok()) {
    std::filesystem::remove_all(dir);
    return sup.status();
  }
  return std::unique_ptr<IsolatedRunner>(new IsolatedRunner(
      std::move(isolation), std::move(dir), std::move(*sup)));
}

IsolatedRunner::IsolatedRunner(SupervisorOptions isolation, std::string dir,
                               std::unique_ptr<Supervisor> supervisor)
    : isolation_(std::move(isolation)),
      dir_(std::move(dir)),
      supervisor_(std::move(supervisor)) {}

IsolatedRunner::~IsolatedRunner() {
  supervisor_.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

absl::StatusOr<std::string> IsolatedRunner::WriteCase(const Case& c) {
  // Alternate two names: the case of the previous ticket stays readable
  // while a late result about it may still come in.
  const std::string path =
      absl::StrCat(dir_, "/candidate-", written_++ % 2, ".json");
  DPFUZZ_RETURN_IF_ERROR(SaveCaseFile(c, path));
  return path;
}

absl::StatusOr<std::optional<Finding>> IsolatedRunner::Run(const Case& c) {
  DPFUZZ_ASSIGN_OR_RETURN(std::string path, WriteCase(c));
  Ticket ticket = FileTicket(path);
  supervisor_->Submit(ticket);
  std::vector<TicketResult> results;
  // A case whose worker dies again and again without its result ever
  // coming (killed while starting, say) must not hold a reduction forever:
  // past a few timeouts the workers are replaced and the run fails.
  const double limit = 3 * isolation_.timeout_seconds + 30;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    if (isolation_.timeout_seconds > 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                .count() > limit) {
      supervisor_.reset();
      DPFUZZ_ASSIGN_OR_RETURN(supervisor_, Supervisor::Start(isolation_));
      return absl::DeadlineExceededError(
          absl::StrCat("no result for ", path, " in ", limit, " s"));
    }
    DPFUZZ_RETURN_IF_ERROR(supervisor_->Poll(0.05, results));
    for (TicketResult& r : results) {
      // Only this ticket's own result counts (a late culprit names an
      // earlier candidate, whose run already counted).
      if (r.ticket == ticket && r.kind != TicketResult::Kind::kLateCulprit) {
        return FindingOf(std::move(r));
      }
    }
    results.clear();
  }
}

absl::StatusOr<std::optional<Finding>> IsolatedRunner::RunFresh(const Case& c) {
  DPFUZZ_ASSIGN_OR_RETURN(std::string path, WriteCase(c));
  DPFUZZ_ASSIGN_OR_RETURN(auto results, RunCaseFiles({path}, isolation_));
  const auto it = results.find(path);
  if (it == results.end()) {
    return absl::InternalError("the fresh worker gave no result");
  }
  return FindingOf(std::move(it->second));
}

}  // namespace dpfuzz
