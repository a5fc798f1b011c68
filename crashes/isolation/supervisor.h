// Supervisor: runs tickets in worker processes and survives them.
//
// The supervisor keeps `jobs` workers (crashes/isolation/worker_process.h) busy
// with batches of tickets (crashes/isolation/ticket_batch.h) and never runs an
// op itself. Each worker records each ticket it runs in its slot before running
// it, so when a worker dies (a signal, an abort, an exit), runs past the
// per-case timeout or past the memory limit (both enforced by killing it), the
// supervisor knows the case in flight, and which cases of its batches ran
// (Note [Batched reports]).
// Then it looks for the culprit: the case in flight, then the few cases
// that worker ran before it (heap corruption and asynchronous device
// errors surface late), are each re-run alone in a fresh worker with
// glibc's checking allocator and the case written to disk before it runs.
// The first that dies alone is the culprit and becomes a finding (verdict
// crash, timeout or oom); when none does, the case in flight is, marked as
// not reproducing alone. Where the worker died decides what the death is
// (crashes/isolation/death_blame.h, Note [Call phases]): in the variant's op
// call a finding, in the baseline's a baseline failure, in dpfuzz's own code an
// internal error (kError, with the case). The tickets the dead worker had
// not run go to the others, and the dead worker is replaced.
//
// Note [Warm spares]
// A worker takes most of a second to start (loading LibTorch), and a death
// needs two or more: one for each case re-run alone, one to replace the
// dead worker. Over many ops, where deaths come every second or two, those
// starts were most of a campaign's time. So the supervisor keeps one spare
// worker started ahead for each use, a slot's and an alone run's (with the
// checking allocator), takes it when it needs one, and starts the next
// spare at once: it loads while the other workers run cases. Workers are
// forked from a fork server now (Note [Forked workers], crashes/
// fork_server.h), which makes a start a matter of milliseconds; the spares
// stay for the supervisor that cannot fork (SupervisorOptions::
// fork_workers off, or a server that refuses).
//
// Note [Batch sizes]
// A batch holds about 20 ms of a worker's cases (from 1 to 64), measured
// from how fast its reports come: enough that the supervisor wakes about
// once a batch rather than once a case, little enough that a batch of slow
// cases does not outlast a deadline's grace. A worker has one batch
// running and the next waiting in its pipe, so it never waits for the
// supervisor: HasRoom asks for two batches per worker less the tickets it
// holds, and Dispatch (before and after Poll's wait) sends one while a
// worker holds a batch or less. With one batch in flight, sent when the
// worker's pipe was empty, a forked worker (which runs its first batch
// within milliseconds) would wait for the supervisor's round trip after
// each batch, 8% of its time.
//
// Every submitted ticket comes back exactly once as a TicketResult: ran
// (with its verdict), invalid, error, or culprit; Abandon returns the rest.
//
//   auto sup = Supervisor::Start(options);
//   while (...) {
//     while ((*sup)->HasRoom()) (*sup)->Submit(NextTicket());
//     (*sup)->Poll(0.05, results);
//   }

#ifndef DPFUZZ_CRASHES_ISOLATION_SUPERVISOR_H_
#define DPFUZZ_CRASHES_ISOLATION_SUPERVISOR_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "crashes/findings/finding.h"
#include "crashes/isolation/fork_server.h"
#include "crashes/isolation/ticket.h"
#include "crashes/isolation/ticket_batch.h"
#include "crashes/isolation/worker.h"
#include "crashes/isolation/worker_process.h"

namespace dpfuzz {

struct SupervisorOptions {
  int jobs = 1;
  double timeout_seconds = 10;  // Per case; 0: none.
  int64_t rss_limit_mb = 4096;  // Per worker; 0: none.
  WorkerConfig worker;          // slot_path and case_out are set per worker.
  std::string executable;       // "": this program (SelfExecutable).
  bool malloc_check = false;    // glibc's checking allocator in all workers.
  int culprit_window = 4;       // Cases re-run alone after a death.
  // Workers forked from a fork server (Note [Forked workers]); false: each
  // spawned afresh.
  bool fork_workers = true;
};

struct TicketResult {
  enum class Kind : uint8_t {
    kRan,
    kInvalid,
    kError,
    kCulprit,
    // A ticket that had already come back as ran, found later (re-run
    // alone after a worker died) to be the culprit: a finding, not a case.
    kLateCulprit,
  };
  Kind kind = Kind::kRan;
  Ticket ticket;
  // kRan and kCulprit; for kError, how the worker died when it died in
  // dpfuzz's own code (else kAgree).
  Verdict verdict = Verdict::kAgree;
  // When the verdict is a finding; for kError, the case dpfuzz failed on
  // when it was built (an internal error: keep it, never report it).
  std::optional<Finding> finding;
  std::string error;  // kError.
  // Wall time the workers spent on the ticket: the worker's own count; for
  // a culprit, its run before the death and its run alone (a hang costs
  // two timeouts); 0 when not measured.
  double seconds = 0;
};

class Supervisor {
 public:
  // Starts the workers; a temporary directory holds their slots.
  static absl::StatusOr<std::unique_ptr<Supervisor>> Start(
      SupervisorOptions options);
  ~Supervisor();

  // True while the workers can take more tickets without waiting.
  bool HasRoom() const;
  void Submit(Ticket ticket);

  // Waits up to `max_wait_seconds` for reports, enforces the limits,
  // handles dead workers, and appends what became of tickets to `results`.
  // An error only when workers cannot be started at all.
  absl::Status Poll(double max_wait_seconds,
                    std::vector<TicketResult>& results);

  // Submitted tickets without a result yet.
  size_t Outstanding() const;
  // Of those, the ones not sent to a worker yet.
  size_t Waiting() const { return backlog_.size(); }

  // Kills every worker; returns the tickets that got no result.
  std::vector<Ticket> Abandon();

  int64_t worker_deaths() const { return deaths_; }

 private:
  struct Slot;
  struct Death;
  struct AloneRun;
  explicit Supervisor(SupervisorOptions options, std::string state_dir);

  // A worker process for a slot (alone: for a run alone), the spare when
  // one is ready; starts the next spare (Note [Warm spares]).
  absl::StatusOr<std::unique_ptr<WorkerProcess>> TakeProcess(bool alone);
  absl::StatusOr<std::unique_ptr<WorkerProcess>> StartProcess(bool alone);
  // The fork server for workers with (or without) the checking allocator,
  // started at the first call; null when workers are spawned.
  ForkServer* ForkServerFor(bool malloc_check);
  absl::Status StartWorker(Slot& slot);
  // Tickets in the next batch for `slot` (Note [Batch sizes]).
  size_t BatchSize(const Slot& slot) const;
  // StartWorker; on failure the slot stays empty until a later Poll, and
  // only repeated failures are an error. Every path that replaces a worker
  // goes through it, so a slot is either running or retried, never used
  // empty.
  absl::Status RestartWorker(Slot& slot);
  absl::Status Dispatch();
  absl::Status Collect(Slot& slot,
                       std::vector<absl::StatusOr<WorkerReport>>& reports,
                       std::vector<TicketResult>& results);
  std::optional<Death> Limits(WorkerProcess& process, int64_t& next_rss_check);
  AloneRun RunAlone(uint64_t seq, const Ticket& ticket);
  absl::Status HandleDeath(Slot& slot, Death death,
                           std::vector<TicketResult>& results);
  // Note [Deaths after a call]
  // An op that writes outside its tensors corrupts memory that dpfuzz's
  // own code reads after the op returned (a storage object, a heap chunk),
  // and dies there. A bug in dpfuzz dies there too. What tells them apart
  // is the layouts: the same case with plain layouts (PlainCase) runs clean
  // when the layouts made the op corrupt memory; it dies too when dpfuzz's
  // code fails on the case whatever its layouts.
  // True when the plain form of `c` differs from it and runs alone without
  // dying.
  bool PlainCaseDiesNot(const Case& c);
  // The finding that a death makes of `ticket` (its case: `dumped`, or the
  // case file of a file ticket); `alone`: it died when re-run alone.
  TicketResult CulpritResult(const Ticket& ticket,
                             const std::optional<Case>& dumped,
                             const Death& death, bool alone);

  SupervisorOptions options_;
  std::string state_dir_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::deque<SeqTicket> backlog_;
  uint64_t next_seq_ = 1;
  int64_t deaths_ = 0;
  int failed_starts_ = 0;
  int processes_started_ = 0;  // Names each worker's slot file.
  // Note [Forked workers]: without and with the checking allocator, the
  // process's (SharedForkServer); each asked for once (a server that fails
  // is not asked again by this supervisor).
  std::shared_ptr<ForkServer> fork_servers_[2];
  bool fork_server_tried_[2] = {false, false};
  // Note [Warm spares]: for slots, and for runs alone.
  std::unique_ptr<WorkerProcess> spare_;
  std::unique_ptr<WorkerProcess> spare_alone_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_SUPERVISOR_H_
