// ForkServer: starts workers in milliseconds, by forking a dpfuzz process
// that has loaded LibTorch but never run an op.
//
// Note [Forked workers]
// An exec'd worker spends most of a second loading LibTorch before its
// first case (relocations, static initializers), and the supervisor starts
// one after every crash, hang or memory blow-up: a crashing op ran at one
// or two cases per second, and reducing a crash took most of a minute. The
// fork server is exec'd once (kForkServerCommand), loads what a worker
// loads, and forks a worker for each request. Forking is safe only while
// the forking process has a single thread and no device context, so the
// server never runs an op, checks its thread count before each fork and
// refuses when it has more than one thread; the supervisor then spawns
// workers afresh as before (crashes/isolation/spawn.h). A forked worker's
// parent is an intermediate process that exits at once, so the worker is
// re-parented to the supervisor (PR_SET_CHILD_SUBREAPER, set by Start), which
// waits for it, reads its death and its memory as it does for a spawned one. A
// server started with `malloc_check` has glibc's checking allocator in
// place, for the runs alone of the culprit search.
//
//   absl::StatusOr<std::unique_ptr<ForkServer>> s =
//       ForkServer::Start(executable, /*malloc_check=*/false);
//   absl::StatusOr<pid_t> pid =
//       (*s)->Fork(WorkerArgs(config), {tickets[0], reports[1], output[1]});

#ifndef DPFUZZ_CRASHES_ISOLATION_FORK_SERVER_H_
#define DPFUZZ_CRASHES_ISOLATION_FORK_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace dpfuzz {

inline constexpr char kForkServerCommand[] = "__fork_server";

// A forked worker's descriptors, as the supervisor holds them: they become
// its kTicketFd, its kReportFd, and its stdout and stderr.
struct WorkerFds {
  int tickets;
  int reports;
  int output;
};

class ForkServer {
 public:
  static absl::StatusOr<std::unique_ptr<ForkServer>> Start(
      const std::string& executable, bool malloc_check);
  // Ends and reaps the server; the workers it forked live on.
  ~ForkServer();

  // A worker running RunWorker(ParseWorkerArgs(worker_args)), a child of
  // this process: its pid. An error when the server cannot fork (more than
  // one thread, or gone); every later call then fails at once.
  absl::StatusOr<pid_t> Fork(const std::vector<std::string>& worker_args,
                             WorkerFds fds);

  pid_t pid() const { return pid_; }
  // True after a fork failed: every later one fails too.
  bool broken() const { return broken_; }

 private:
  ForkServer(pid_t pid, int socket) : pid_(pid), socket_(socket) {}

  pid_t pid_;
  int socket_;
  bool broken_ = false;
};

// The fork server of this process for `executable`, with glibc's checking
// allocator or without: started on first use (or when the last one broke)
// and kept until the process ends (a server replaced lives on while a
// supervisor still holds it), so that the supervisors a campaign
// starts one after another (a reduction's, each reduced case's fresh
// verification) do not each load LibTorch again: that load, most of a
// second of CPU, was most of what triaging a finding cost. nullptr when it
// cannot start (its users spawn workers then). Not thread-safe, as
// supervisors are not.
std::shared_ptr<ForkServer> SharedForkServer(const std::string& executable,
                                             bool malloc_check);

// The server's loop, in the process kForkServerCommand starts; returns its
// exit status.
int RunForkServer();

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_FORK_SERVER_H_
