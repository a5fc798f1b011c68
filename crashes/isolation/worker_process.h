// WorkerProcess: the supervisor's handle on one worker
// (crashes/isolation/worker.h).
//
// Start forks the worker from a fork server when given one (Note [Forked
// workers], crashes/isolation/fork_server.h), else spawns the dpfuzz executable
// afresh (crashes/isolation/spawn.h: never a fork of a process that has run an
// op); either way in a process group of its own, so a terminal's Ctrl-C reaches
// only the supervisor. Batches of
// tickets go in on the worker's fd 3, reports come back on its fd 4, and
// everything it prints on stdout and stderr is kept as its last lines
// (what a crash leaves behind). With `malloc_check`, glibc's checking
// allocator is preloaded: heap corruption then aborts where it happens,
// which is what the culprit search needs.
//
//   auto w = WorkerProcess::Start({.executable = exe, .config = config});
//   (*w)->Send(*EncodeBatch({{seq, ticket}}));  //
//   crashes/isolation/ticket_batch.h
//   ... poll (*w)->report_fd(), (*w)->output_fd() ...
//   (*w)->ReadAvailable(reports);   // false at end of the reports
//   int status = (*w)->Wait();

#ifndef DPFUZZ_CRASHES_ISOLATION_WORKER_PROCESS_H_
#define DPFUZZ_CRASHES_ISOLATION_WORKER_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "crashes/isolation/fork_server.h"
#include "crashes/isolation/worker.h"
#include "crashes/isolation/worker_report.h"
#include "crashes/isolation/worker_slot.h"

namespace dpfuzz {

struct WorkerProcessOptions {
  std::string executable;     // The dpfuzz binary (see SelfExecutable).
  WorkerConfig config;        // slot_path must name a file to create.
  bool malloc_check = false;  // Spawned only: a fork server has its own.
  ForkServer* fork_server = nullptr;  // Spawned when null or when it fails.
};

class WorkerProcess {
 public:
  static absl::StatusOr<std::unique_ptr<WorkerProcess>> Start(
      const WorkerProcessOptions& options);
  // Kills and reaps the worker if it still runs; removes its slot file and
  // case file.
  ~WorkerProcess();

  // Queues a batch (EncodeBatch, crashes/isolation/ticket_batch.h) on the
  // worker's input.
  absl::Status Send(absl::string_view batch);
  // No more tickets: the worker exits when it has run those it has.
  void CloseInput();

  int report_fd() const { return report_fd_; }
  int output_fd() const { return output_fd_; }

  // Reads what has arrived on both pipes without blocking; whole reports
  // are appended to `reports`. False once the report pipe is at its end
  // (the worker exited or died).
  bool ReadAvailable(std::vector<absl::StatusOr<WorkerReport>>& reports);

  // The last lines the worker printed (at most 40).
  std::vector<std::string> LastLines() const;

  std::optional<SlotState> InFlight() const { return slot_.Current(); }
  uint64_t LastSeq() const { return slot_.LastSeq(); }

  // Resident memory, from /proc; 0 when it cannot be read.
  int64_t RssMb() const;

  void Kill();
  // Waits for the worker to end; its wait status (see waitpid).
  int Wait();

  pid_t pid() const { return pid_; }
  // Where it writes each case before running it (config.case_out).
  const std::string& case_out() const { return case_out_; }

 private:
  WorkerProcess(pid_t pid, int ticket_fd, int report_fd, int output_fd,
                WorkerSlot slot, std::string slot_path, std::string case_out);
  void ReadOutput();

  pid_t pid_;
  int ticket_fd_;
  int report_fd_;
  int output_fd_;
  WorkerSlot slot_;
  std::string slot_path_;
  std::string case_out_;
  ReportReader reader_;
  std::string partial_line_;
  std::deque<std::string> last_lines_;
  std::optional<int> status_;
};

// Marks this program as one whose main() answers `__worker` and
// `__fork_server` (fuzz/main_entry.h's DpfuzzMain does).
void MarkSelfAsWorkerExecutable();

// The running executable (/proc/self/exe), for starting workers of it; an
// error in a program not marked so (a test binary): its workers would run
// its own main() again, every test of it, and start workers of their own.
absl::StatusOr<std::string> SelfExecutable();

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_WORKER_PROCESS_H_
