#include "fuzz/repro_checker.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "crashes/bugs/bug.h"
#include "crashes/bugs/issue_snippet.h"
#include "crashes/repro/python_repro_check.h"
#include "crashes/repro/repro_files.h"

namespace dpfuzz {
namespace {

constexpr int kPythonReproTimeoutSeconds = 120;

// Whether the finding in `dir` holds the result of its issue.md's check: a
// finding stored again (a smaller case, another blame) keeps its old
// issue.md but loses the record, and its issue.md may describe the old one.
bool IssueChecked(const std::string& dir) {
  absl::StatusOr<std::string> text =
      ReadFile(absl::StrCat(dir, "/finding.json"), "finding");
  if (!text.ok()) return false;
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  return j.is_object() && j.contains("issue");
}

}  // namespace

ReproChecker::ReproChecker(FindingsStore store, std::string command)
    : store_(std::move(store)),
      command_(std::move(command)),
      thread_([this] { Loop(); }) {}

ReproChecker::~ReproChecker() { Finish(0); }

void ReproChecker::Enqueue(std::string dir) {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    // Queued once: the check reads the files as they are when it runs. One
    // whose check is running is queued again: its files may have changed
    // since that check read them.
    if (stopping_ ||
        std::find(queue_.begin(), queue_.end(), dir) != queue_.end()) {
      return;
    }
    queue_.push_back(std::move(dir));
  }
  cv_.notify_all();
}

std::vector<ReproCheckDone> ReproChecker::TakeDone() {
  const std::lock_guard<std::mutex> lock(mu_);
  return std::move(done_);
}

size_t ReproChecker::Pending() const {
  const std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + running_;
}

size_t ReproChecker::Finish(double max_wait_seconds) {
  size_t dropped = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::duration<double>(max_wait_seconds),
                 [this] { return queue_.empty() && running_ == 0; });
    stopping_ = true;
    dropped = queue_.size();
    queue_.clear();
    cancel_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  return dropped;
}

absl::Status ReproChecker::WriteIssueOf(const std::string& dir) {
  absl::StatusOr<StoredFinding> stored = ReadStoredFinding(dir);
  if (!stored.ok()) return stored.status();
  absl::StatusOr<IssueCheck> check = WriteIssue(
      stored->finding, dir, command_, kPythonReproTimeoutSeconds, &cancel_);
  const nlohmann::json record =
      check.ok()
          ? nlohmann::json{{"ran", check->ran},
                           {"reproduces", check->reproduces},
                           {"result", check->result}}
          : nlohmann::json{{"error", std::string(check.status().message())}};
  return store_.Annotate(dir, "issue", record);
}

void ReproChecker::Loop() {
  for (;;) {
    std::string dir;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // Stopping.
      dir = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    const PythonReproCheck check =
        CheckPythonRepro(absl::StrCat(dir, "/", kPythonReproFile),
                         kPythonReproTimeoutSeconds, &cancel_);
    const nlohmann::json record{{"python", kReproPython},
                                {"torch", check.python_torch},
                                {"ran", check.ran},
                                {"reproduces", check.reproduces},
                                {"result", check.result}};
    absl::Status s = store_.Annotate(dir, "python_repro", record);
    if (s.ok()) s = WriteIssueOf(dir);
    {
      const std::lock_guard<std::mutex> lock(mu_);
      done_.push_back({dir, check.result, std::string(s.message())});
      --running_;
    }
    cv_.notify_all();
  }
}

absl::StatusOr<size_t> CheckBugLeads(const std::string& findings_dir,
                                     ReproChecker& checker) {
  absl::StatusOr<std::vector<StoredFinding>> stored =
      ReadFindingsDir(findings_dir);
  if (!stored.ok()) return stored.status();
  const std::vector<Bug> bugs = GroupBugs(*stored);
  size_t queued = 0;
  for (const bool without_any : {true, false}) {
    for (const Bug& bug : bugs) {
      std::error_code ec;
      if (bug.findings.empty() || bug.verdict == Verdict::kOom ||
          bug.issue.empty() != without_any ||
          (std::filesystem::exists(
               std::filesystem::path(bug.findings.front()) / kIssueFile, ec) &&
           IssueChecked(bug.findings.front()))) {
        continue;
      }
      checker.Enqueue(bug.findings.front());
      ++queued;
    }
  }
  return queued;
}

}  // namespace dpfuzz
