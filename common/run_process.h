// Running child processes: a few at a time, each with a time
// limit, output captured, and how it ended (exit status or signal).
//
//   std::vector<ProcessResult> r = RunProcesses({{"/usr/bin/python3",
//   "x.py"}}); r[0].exited && r[0].exit_status == 1;  // or r[0].signal ==
//   SIGABRT

#ifndef DPFUZZ_COMMON_RUN_PROCESS_H_
#define DPFUZZ_COMMON_RUN_PROCESS_H_

#include <atomic>
#include <string>
#include <vector>

namespace dpfuzz {

struct ProcessResult {
  bool exited = false;  // Exited normally (exit_status is set).
  int exit_status = -1;
  int signal = 0;          // The signal that killed it; 0 if none.
  bool timed_out = false;  // Killed by RunProcesses after the time limit.
  bool cancelled = false;  // Killed (or never started) on the cancel flag.
  std::string output;      // stdout and stderr together.
};

// Runs every command (argv[0] is a path) at once and waits for all; a
// command still running after `timeout_seconds` is killed, and so is every
// command once `cancel` (when given) is set, by another thread: a caller's
// deadline that comes after the commands started.
std::vector<ProcessResult> RunProcesses(
    const std::vector<std::vector<std::string>>& commands,
    int timeout_seconds = 300, const std::atomic<bool>* cancel = nullptr);

// "exit 1", "signal 6 (Aborted)", "timed out", "cut short".
std::string Describe(const ProcessResult& r);

}  // namespace dpfuzz

#endif  // DPFUZZ_COMMON_RUN_PROCESS_H_
