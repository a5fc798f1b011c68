// ReproChecker: runs stored findings' repro.py in the background, so a
// campaign keeps its workers busy while Python starts (seconds per repro).
//
// One thread takes directories in order, runs
// crashes/repro/python_repro_check.h on each one's repro.py and records the
// result in its finding.json under "python_repro" (FindingsStore::Annotate);
// then writes the finding's issue.md and issue.py
// (crashes/bugs/issue_snippet.h: a short snippet, run before it is written) and
// records that check under "issue". The campaign collects what is done with
// TakeDone and, at its end, waits a while for the rest (Finish).
//
//   ReproChecker checker(store);
//   checker.Enqueue(dir);
//   for (const ReproCheckDone& d : checker.TakeDone()) log(d.dir, d.result);
//   size_t dropped = checker.Finish(/*max_wait_seconds=*/10);

#ifndef DPFUZZ_FUZZ_REPRO_CHECKER_H_
#define DPFUZZ_FUZZ_REPRO_CHECKER_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "crashes/bugs/findings_store.h"

namespace dpfuzz {

struct ReproCheckDone {
  std::string dir;
  std::string result;  // "reproduces", "failed: exit 2", "not run: ...".
  std::string error;   // finding.json could not be updated.
};

class ReproChecker {
 public:
  // `command`: the dpfuzz command that found the findings, for issue.md.
  explicit ReproChecker(FindingsStore store, std::string command = "");
  ~ReproChecker();  // Finish(0).
  ReproChecker(const ReproChecker&) = delete;
  ReproChecker& operator=(const ReproChecker&) = delete;

  // Queues a check of the finding directory `dir`, unless it is queued
  // already (a directory whose check is running is queued again).
  void Enqueue(std::string dir);
  std::vector<ReproCheckDone> TakeDone();
  // Waits up to `max_wait_seconds` for the queued checks, then drops those
  // not started (their number is returned) and cuts the running one short
  // (its Python is killed; it records that it was not run); then TakeDone
  // has the last results. Idempotent.
  size_t Finish(double max_wait_seconds);

  // Checks enqueued and not yet done.
  size_t Pending() const;

 private:
  void Loop();
  // Writes `dir`'s issue.md and records its check in finding.json.
  absl::Status WriteIssueOf(const std::string& dir);

  FindingsStore store_;
  std::string command_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::vector<ReproCheckDone> done_;
  size_t running_ = 0;
  bool stopping_ = false;
  std::atomic<bool> cancel_{false};  // Kills the running check's Python.
  std::thread thread_;
};

// Queues a check of each bug's lead finding (as the report ranks them,
// crashes/bugs/bug.h's GroupBugs) in `findings_dir` that has no checked
// issue.md of its own (none, or one left from a case stored there before,
// its check's record gone with it), so that the issue.md a bug shows
// describes the case it leads with: first the leads of bugs with no issue.md at
// all (a bug the report shows apart from the one the campaign checked: its
// reduced case has another mechanism, say), then those whose issue.md is
// another finding's. Never an oom bug's (its repro would allocate without
// bound). Returns how many it queued; an error when the directory cannot be
// read.
absl::StatusOr<size_t> CheckBugLeads(const std::string& findings_dir,
                                     ReproChecker& checker);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_REPRO_CHECKER_H_
