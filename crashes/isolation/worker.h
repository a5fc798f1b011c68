// The worker: the process that runs cases, so that the one that keeps the
// findings never does.
//
// A worker is dpfuzz itself started (with exec, by
// crashes/isolation/worker_process.h) as `dpfuzz __worker ARGS`. It reads
// batches of tickets (crashes/isolation/ticket_batch.h) from fd 3, and for each
// ticket: records it in its slot (crashes/isolation/worker_slot.h), builds the
// case (draws) or loads it (files), runs it through every oracle, and writes
// its report (crashes/isolation/worker_report.h) on fd 4, with the batch's
// others when the batch is done (at once for a finding or an error: Note
// [Batched reports]). It exits 0 at the end of its input, and dies with its
// supervisor (PR_SET_PDEATHSIG).
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
// every call in the process fails (the CUDA context is lost). So each op
// call on CUDA waits for its kernels before it returns (CallGuarded,
// oracles/invoke.h): a kernel's error is the outcome of the call that
// launched it, on its side (baseline or variant). When the device is then
// lost, the worker prints the error as its last words (DieOfDeviceError,
// oracles/device_sync.h) and aborts inside that call; the supervisor
// judges the death like any other by where it happened (Note [Call
// phases]), records it with the error text as evidence and the error's
// first line as crash key, and starts a fresh worker, which gets a fresh
// context. An error a call raises on a device that still works (a launch
// refused) is that call's outcome and nothing more. Outside op calls,
// dpfuzz's own code runs on the device too (materializing, reading back):
// an exception there is dpfuzz's internal error, as on the CPU, and the
// worker synchronizes after each CUDA case, dying of what its own code
// queued while the case is still the one in flight.

#ifndef DPFUZZ_CRASHES_ISOLATION_WORKER_H_
#define DPFUZZ_CRASHES_ISOLATION_WORKER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "oracles/case_builder.h"
#include "oracles/resource_oracles.h"

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
  // The layout corpus (crashes/findings/layout_corpus.h) each case that ran
  // adds to; "": none.
  std::string corpus_dir;
  // The opt-in oracles of what layouts cost (oracles/resource_oracles.h);
  // the worker counts CPU allocations when leak or memory is on.
  ResourceOracles resources;
};

// The arguments after kWorkerCommand, and back.
std::vector<std::string> WorkerArgs(const WorkerConfig& config);
absl::StatusOr<WorkerConfig> ParseWorkerArgs(
    const std::vector<std::string>& args);

// The worker's main loop; returns its exit status.
int RunWorker(const WorkerConfig& config);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_WORKER_H_
