// The worker: the process that runs cases, so that the one that keeps the
// findings never does.
//
// A worker is dpfuzz itself started (with exec, by crashes/worker_process.h)
// as `dpfuzz __worker ARGS`. It reads tickets (crashes/ticket.h), one per
// line, from fd 3, and for each: records it in its slot
// (crashes/worker_slot.h), builds the case (draws) or loads it (files),
// runs it through every oracle, and writes a report (crashes/worker_report.h)
// on fd 4, each as soon as the case is done. It
// exits 0 at the end of its input, and dies with its supervisor
// (PR_SET_PDEATHSIG).
//
// With --case_out=FILE (the supervisor's culprit search) the worker writes
// each case to FILE before running it, and before each probe of a draw the
// case that probe runs: when it dies, FILE holds what it died on.
//
// With --device=cuda the cases it draws are on CUDA (a case file says its
// own device). With --seeds=DIR it answers seeded tickets from the seed
// corpus there (generators/seed_corpus.h); without, a seeded ticket is an
// error.
//
// Note [Sticky device errors]
// A CUDA kernel fails asynchronously: an illegal address or a device-side
// assert is reported by whatever CUDA call comes next, and from then on
// every call in the process fails (the CUDA context is lost). So after
// each case on CUDA (its probes included) the worker synchronizes the
// device (oracles/device_sync.h), and an error then, or any LibTorch error
// thrown outside an op call while a CUDA case runs (reading a storage
// back), is blamed on that case: the worker prints the error as its last
// words (DieOfDeviceError, crashes/crash_handler.h) and aborts. The
// supervisor records the case in flight as a crash finding, its evidence
// the error text and its crash key the error's first line, and starts a
// fresh worker, which gets a fresh context. Errors a kernel raises inside
// an op call are that call's outcome (oracles/invoke.h); a sticky one
// still fails the synchronization after the case.

#ifndef DPFUZZ_CRASHES_WORKER_H_
#define DPFUZZ_CRASHES_WORKER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "oracles/case_builder.h"

namespace dpfuzz {

inline constexpr char kWorkerCommand[] = "__worker";
inline constexpr int kTicketFd = 3;
inline constexpr int kReportFd = 4;

struct WorkerConfig {
  std::string slot_path;
  std::string case_out;  // "": do not write cases.
  int layout_one_in = BuildOptions().layout_one_in;
  int alias_one_in = BuildOptions().alias_one_in;
  bool check_grad = BuildOptions().check_grad;
  Device device = BuildOptions().device;  // Of the cases drawn.
  std::vector<std::string> libraries;     // Op libraries to load first.
  std::string seeds_dir;                  // The seed corpus; "": none.
};

// The arguments after kWorkerCommand, and back.
std::vector<std::string> WorkerArgs(const WorkerConfig& config);
absl::StatusOr<WorkerConfig> ParseWorkerArgs(
    const std::vector<std::string>& args);

// The worker's main loop; returns its exit status.
int RunWorker(const WorkerConfig& config);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_WORKER_H_
