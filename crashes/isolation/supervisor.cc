#include "crashes/isolation/supervisor.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <set>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/isolation/crash_signature.h"
#include "crashes/isolation/death_blame.h"
#include "generators/case_json.h"

namespace dpfuzz {
namespace {

// See Note [Batch sizes]: a batch is about kBatchSeconds of a worker's
// cases, between 1 and kMaxBatch; a fresh worker's first are kFirstBatch.
constexpr double kBatchSeconds = 0.02;
constexpr int64_t kMaxBatch = 64;
constexpr int64_t kFirstBatch = 4;
// Weight of the newest measurement in a worker's seconds per case.
constexpr double kCaseSecondsWeight = 0.3;
constexpr int kMaxFailedStarts = 3;
constexpr int64_t kRssCheckIntervalNs = 100'000'000;
constexpr size_t kEvidenceLines = 20;

}  // namespace

struct Supervisor::Slot {
  std::unique_ptr<WorkerProcess> process;
  // Sent, no report yet, in the order the worker runs them (and reports
  // them: Note [Batched reports]).
  std::deque<SeqTicket> outstanding;
  std::deque<SeqTicket> recent;  // Reported; newest last.
  int64_t next_rss_check = 0;
  bool reported = false;  // Any report since this worker started.
  // Note [Batch sizes]: seconds per case, and when reports last came.
  double case_seconds = kBatchSeconds / kFirstBatch;
  int64_t last_report_ns = 0;
};

struct Supervisor::Death {
  Verdict verdict = Verdict::kCrash;
  int signal = 0;
  std::string detail;
  std::vector<std::string> last_lines;
  // Where the case in flight stood (Note [Call phases]); nullopt when no
  // case was.
  std::optional<CallPhase> phase;
};

struct Supervisor::AloneRun {
  std::optional<Death> death;
  std::optional<WorkerReport> report;
  std::optional<Case> dumped;  // The case it wrote before running it.
  std::string error;           // It could not be run at all.
};

namespace {

// What the wait status of a worker that ended by itself says.
void DescribeExit(int status, int& signal, std::string& detail) {
  if (WIFSIGNALED(status)) {
    signal = WTERMSIG(status);
    detail = signal == SIGABRT ? "aborted (SIGABRT)"
                               : absl::StrCat("killed by ", SignalName(signal));
  } else {
    detail = absl::StrCat("exited with status ", WEXITSTATUS(status),
                          " in the middle of its cases");
  }
}

TicketResult FromReport(const Ticket& ticket, WorkerReport report) {
  TicketResult r;
  r.ticket = ticket;
  switch (report.kind) {
    case WorkerReport::Kind::kRan:
      r.kind = TicketResult::Kind::kRan;
      break;
    case WorkerReport::Kind::kInvalid:
      r.kind = TicketResult::Kind::kInvalid;
      break;
    case WorkerReport::Kind::kError:
      r.kind = TicketResult::Kind::kError;
      break;
  }
  r.verdict = report.verdict;
  r.error = std::move(report.error);
  r.finding = std::move(report.finding);
  r.seconds = report.seconds;
  return r;
}

std::string LastLinesText(const std::vector<std::string>& lines) {
  const size_t from =
      lines.size() > kEvidenceLines ? lines.size() - kEvidenceLines : 0;
  return absl::StrJoin(lines.begin() + from, lines.end(), "\n");
}

}  // namespace

absl::StatusOr<std::unique_ptr<Supervisor>> Supervisor::Start(
    SupervisorOptions options) {
  if (options.jobs < 1) {
    return absl::InvalidArgumentError("a supervisor needs at least one job");
  }
  if (options.executable.empty()) {
    DPFUZZ_ASSIGN_OR_RETURN(options.executable, SelfExecutable());
  }
  DPFUZZ_ASSIGN_OR_RETURN(std::string dir, MakeTempDirectory("dpfuzz-"));
  std::unique_ptr<Supervisor> s(new Supervisor(std::move(options), dir));
  for (int i = 0; i < s->options_.jobs; ++i) {
    s->slots_.push_back(std::make_unique<Slot>());
    DPFUZZ_RETURN_IF_ERROR(s->StartWorker(*s->slots_.back()));
  }
  return s;
}

Supervisor::Supervisor(SupervisorOptions options, std::string state_dir)
    : options_(std::move(options)), state_dir_(std::move(state_dir)) {}

Supervisor::~Supervisor() {
  // Kills and reaps the workers, then removes their slot and case files.
  slots_.clear();
  spare_.reset();
  spare_alone_.reset();
  RemoveTree(state_dir_);
}

absl::StatusOr<std::unique_ptr<WorkerProcess>> Supervisor::StartProcess(
    bool alone) {
  WorkerProcessOptions o;
  o.executable = options_.executable;
  o.config = options_.worker;
  const int n = processes_started_++;
  o.config.slot_path = absl::StrFormat("%s/%s-%d.slot", state_dir_,
                                       alone ? "alone" : "worker", n);
  // An alone run's worker writes its case before running it.
  o.config.case_out =
      alone ? absl::StrFormat("%s/alone-%d-case.json", state_dir_, n) : "";
  o.malloc_check = alone || options_.malloc_check;
  o.fork_server = ForkServerFor(o.malloc_check);
  return WorkerProcess::Start(o);
}

ForkServer* Supervisor::ForkServerFor(bool malloc_check) {
  if (!options_.fork_workers) return nullptr;
  const int i = malloc_check ? 1 : 0;
  if (!fork_server_tried_[i]) {
    fork_server_tried_[i] = true;
    fork_servers_[i] = SharedForkServer(options_.executable, malloc_check);
  }
  return fork_servers_[i].get();
}

absl::StatusOr<std::unique_ptr<WorkerProcess>> Supervisor::TakeProcess(
    bool alone) {
  std::unique_ptr<WorkerProcess>& spare = alone ? spare_alone_ : spare_;
  absl::StatusOr<std::unique_ptr<WorkerProcess>> taken =
      spare != nullptr ? std::move(spare) : StartProcess(alone);
  spare.reset();
  // A spare that fails to start is no error: the next take starts afresh.
  absl::StatusOr<std::unique_ptr<WorkerProcess>> next = StartProcess(alone);
  if (next.ok()) spare = std::move(*next);
  return taken;
}

absl::Status Supervisor::StartWorker(Slot& slot) {
  absl::StatusOr<std::unique_ptr<WorkerProcess>> p = TakeProcess(false);
  if (!p.ok()) return p.status();
  slot.process = std::move(*p);
  slot.reported = false;
  slot.next_rss_check = 0;
  slot.last_report_ns = 0;
  return absl::OkStatus();
}

size_t Supervisor::BatchSize(const Slot& slot) const {
  return static_cast<size_t>(std::clamp<int64_t>(
      std::llround(kBatchSeconds / std::max(slot.case_seconds, 1e-9)), 1,
      kMaxBatch));
}

bool Supervisor::HasRoom() const {
  // What the workers will take (Note [Batch sizes]): two batches each, less
  // the tickets they hold.
  size_t room = 0;
  for (const auto& slot : slots_) {
    const size_t want = 2 * BatchSize(*slot);
    const size_t held = slot->outstanding.size();
    room += want > held ? want - held : 0;
  }
  return backlog_.size() < room;
}

void Supervisor::Submit(Ticket ticket) {
  backlog_.emplace_back(next_seq_++, std::move(ticket));
}

size_t Supervisor::Outstanding() const {
  size_t n = backlog_.size();
  for (const auto& slot : slots_) n += slot->outstanding.size();
  return n;
}

absl::Status Supervisor::Dispatch() {
  for (auto& slot : slots_) {
    // One batch running, the next waiting in the pipe: a worker never
    // waits for the supervisor.
    const size_t size = BatchSize(*slot);
    if (slot->process == nullptr || backlog_.empty() ||
        slot->outstanding.size() > size) {
      continue;
    }
    std::vector<SeqTicket> batch;
    while (!backlog_.empty() && batch.size() < size) {
      batch.push_back(std::move(backlog_.front()));
      backlog_.pop_front();
    }
    DPFUZZ_ASSIGN_OR_RETURN(std::string text, EncodeBatch(batch));
    // A failed send means the worker is dead: Poll finds out and re-queues
    // the batch with the worker's other tickets.
    (void)slot->process->Send(text);
    slot->outstanding.insert(slot->outstanding.end(),
                             std::make_move_iterator(batch.begin()),
                             std::make_move_iterator(batch.end()));
  }
  return absl::OkStatus();
}

absl::Status Supervisor::Collect(
    Slot& slot, std::vector<absl::StatusOr<WorkerReport>>& reports,
    std::vector<TicketResult>& results) {
  if (!reports.empty()) {
    // See Note [Batch sizes].
    const int64_t now = WorkerSlot::NowNs();
    if (slot.last_report_ns > 0) {
      const double seconds = (now - slot.last_report_ns) * 1e-9 /
                             static_cast<double>(reports.size());
      slot.case_seconds = kCaseSecondsWeight * seconds +
                          (1 - kCaseSecondsWeight) * slot.case_seconds;
    }
    slot.last_report_ns = now;
  }
  for (absl::StatusOr<WorkerReport>& report : reports) {
    if (!report.ok()) return report.status();
    // Reports come in the order the tickets went.
    if (slot.outstanding.empty() ||
        slot.outstanding.front().first != report->seq) {
      return absl::InternalError(
          absl::StrCat("a worker reported case ", report->seq,
                       ", which is not the next it was running"));
    }
    slot.reported = true;
    slot.recent.push_back(slot.outstanding.front());
    while (slot.recent.size() > static_cast<size_t>(options_.culprit_window))
      slot.recent.pop_front();
    results.push_back(
        FromReport(slot.outstanding.front().second, std::move(*report)));
    slot.outstanding.pop_front();
  }
  reports.clear();
  return absl::OkStatus();
}

std::optional<Supervisor::Death> Supervisor::Limits(WorkerProcess& process,
                                                    int64_t& next_rss_check) {
  const int64_t now = WorkerSlot::NowNs();
  const std::optional<SlotState> running = process.InFlight();
  const bool timed_out =
      options_.timeout_seconds > 0 && running.has_value() &&
      now - running->started_ns > options_.timeout_seconds * 1e9;
  // Memory is measured before a timeout is called: a worker past both
  // limits is out of memory. Its case ran long while the memory grew, or
  // while the supervisor looked elsewhere (a case re-run alone to find a
  // culprit runs to its own timeout before the other workers are looked
  // at again), and one case must not be a timeout in one run and out of
  // memory in the next.
  if (options_.rss_limit_mb > 0 && (timed_out || now >= next_rss_check)) {
    next_rss_check = now + kRssCheckIntervalNs;
    const int64_t rss = process.RssMb();
    if (rss > options_.rss_limit_mb) {
      process.Kill();
      Death d;
      d.verdict = Verdict::kOom;
      d.detail = absl::StrFormat("resident memory %d MB, past the %d MB limit",
                                 rss, options_.rss_limit_mb);
      return d;
    }
  }
  if (timed_out) {
    process.Kill();
    Death d;
    d.verdict = Verdict::kTimeout;
    d.detail =
        absl::StrFormat("ran past the %g s timeout", options_.timeout_seconds);
    return d;
  }
  return std::nullopt;
}

absl::Status Supervisor::Poll(double max_wait_seconds,
                              std::vector<TicketResult>& results) {
  for (auto& slot : slots_) {
    if (slot->process == nullptr) DPFUZZ_RETURN_IF_ERROR(RestartWorker(*slot));
  }
  DPFUZZ_RETURN_IF_ERROR(Dispatch());
  std::vector<pollfd> fds;
  for (const auto& slot : slots_) {
    if (slot->process == nullptr) continue;
    fds.push_back({slot->process->report_fd(), POLLIN, 0});
    fds.push_back({slot->process->output_fd(), POLLIN, 0});
  }
  const int wait_ms = static_cast<int>(std::max(0.0, max_wait_seconds) * 1000);
  if (::poll(fds.data(), fds.size(), wait_ms) < 0 && errno != EINTR) {
    return absl::InternalError(absl::StrCat("poll: ", std::strerror(errno)));
  }
  std::vector<absl::StatusOr<WorkerReport>> reports;
  for (auto& slot_ptr : slots_) {
    Slot& slot = *slot_ptr;
    if (slot.process == nullptr) continue;
    const bool open = slot.process->ReadAvailable(reports);
    DPFUZZ_RETURN_IF_ERROR(Collect(slot, reports, results));
    std::optional<Death> death;
    if (!open) {
      death.emplace();
      DescribeExit(slot.process->Wait(), death->signal, death->detail);
    } else {
      death = Limits(*slot.process, slot.next_rss_check);
      if (death.has_value()) {
        slot.process->Wait();
        slot.process->ReadAvailable(reports);
        DPFUZZ_RETURN_IF_ERROR(Collect(slot, reports, results));
      }
    }
    if (death.has_value()) {
      death->last_lines = slot.process->LastLines();
      if (const std::optional<SlotState> s = slot.process->InFlight()) {
        death->phase = DecodeCallPhase(s->phase);
      }
      DPFUZZ_RETURN_IF_ERROR(HandleDeath(slot, std::move(*death), results));
    }
  }
  return Dispatch();
}

Supervisor::AloneRun Supervisor::RunAlone(uint64_t seq, const Ticket& ticket) {
  AloneRun run;
  absl::StatusOr<std::unique_ptr<WorkerProcess>> started = TakeProcess(true);
  absl::StatusOr<std::string> batch = EncodeBatch({{seq, ticket}});
  if (!started.ok() || !batch.ok()) {
    run.error = std::string(started.ok() ? batch.status().message()
                                         : started.status().message());
    return run;
  }
  WorkerProcess& process = **started;
  (void)process.Send(*batch);
  process.CloseInput();
  std::vector<absl::StatusOr<WorkerReport>> reports;
  int64_t next_rss_check = 0;
  for (;;) {
    pollfd fds[] = {{process.report_fd(), POLLIN, 0},
                    {process.output_fd(), POLLIN, 0}};
    ::poll(fds, 2, 50);
    if (!process.ReadAvailable(reports)) {
      const int status = process.Wait();
      if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        run.death.emplace();
        DescribeExit(status, run.death->signal, run.death->detail);
      }
      break;
    }
    if (std::optional<Death> d = Limits(process, next_rss_check)) {
      process.Wait();
      run.death = std::move(d);
      break;
    }
  }
  for (absl::StatusOr<WorkerReport>& r : reports) {
    if (r.ok() && r->seq == seq) run.report = std::move(*r);
  }
  if (run.death.has_value()) {
    run.death->last_lines = process.LastLines();
    if (const std::optional<SlotState> s = process.InFlight()) {
      run.death->phase = DecodeCallPhase(s->phase);
    }
  } else if (!run.report.has_value()) {
    run.error = "the worker ended without a report";
  }
  absl::StatusOr<Case> dumped = LoadCaseFile(process.case_out());
  if (dumped.ok()) run.dumped = std::move(*dumped);
  return run;
}

bool Supervisor::PlainCaseDiesNot(const Case& c) {
  const Case plain = PlainCase(c);
  if (plain == c) return false;
  const std::string path = state_dir_ + "/plain-case.json";
  if (!SaveCaseFile(plain, path).ok()) return false;
  const AloneRun run = RunAlone(0, FileTicket(path));
  ::unlink(path.c_str());
  return !run.death.has_value() && run.error.empty();
}

TicketResult Supervisor::CulpritResult(const Ticket& ticket,
                                       const std::optional<Case>& dumped,
                                       const Death& death, bool alone) {
  TicketResult r;
  r.ticket = ticket;
  std::optional<Case> c = dumped;
  if (!c.has_value() && ticket.kind == Ticket::Kind::kFile) {
    absl::StatusOr<Case> loaded = LoadCaseFile(ticket.path);
    if (loaded.ok()) c = std::move(*loaded);
  }
  if (!c.has_value()) {
    r.kind = TicketResult::Kind::kError;
    r.error = absl::StrCat("a worker running ", TicketToString(ticket), " ",
                           death.detail, " before its case was built");
    return r;
  }
  Finding f;
  f.c = std::move(*c);
  f.outcome.evidence.where = "worker";
  f.outcome.evidence.detail = absl::StrCat(
      death.detail, alone ? "" : "; it did not die when re-run alone");
  f.recurred_alone = alone;
  f.outcome.evidence.error = LastLinesText(death.last_lines);
  std::optional<CallSide> side =
      BlamedSide(death.verdict, death.phase, death.last_lines);
  // Dead in dpfuzz's code after an op call: memory the op corrupted, or
  // dpfuzz's own bug. The layouts decide: see Note [Deaths after a call].
  if (!side.has_value() && death.phase.has_value() && death.phase->called &&
      PlainCaseDiesNot(f.c)) {
    side = CallSide::kVariant;
    absl::StrAppend(&f.outcome.evidence.detail,
                    " in dpfuzz's code after the op returned (memory the op "
                    "corrupted: the case with plain layouts runs clean)");
  }
  if (!side.has_value()) {
    // See Note [Call phases]: dpfuzz's own code died, not an op.
    r.kind = TicketResult::Kind::kError;
    r.verdict = death.verdict;
    r.error = absl::StrCat("internal error: a worker running ",
                           TicketToString(ticket), " ", death.detail,
                           " in dpfuzz's own code, not in an op call");
    f.outcome.evidence.where = "dpfuzz";
    f.signature = "internal_error";
    r.finding = std::move(f);
    return r;
  }
  r.kind = TicketResult::Kind::kCulprit;
  r.verdict = death.verdict;
  f.outcome.verdict = death.verdict;
  if (death.phase.has_value() && death.phase->densified) {
    // The op returned, and its sparse result was being read: a repro reads
    // it the same way (Evidence::layout) to reach the same death.
    f.outcome.evidence.layout = "sparse or compressed";
    absl::StrAppend(&f.outcome.evidence.detail,
                    "; the op returned a sparse or compressed result, read "
                    "with to_dense(), which may be where it died");
  }
  if (*side == CallSide::kBaseline) {
    f.outcome.kind = FindingKind::kBaselineFailure;
    f.outcome.evidence.where = "baseline";
  }
  f.signature = FindingSignature(f.c, death.verdict);
  if (death.verdict == Verdict::kCrash) {
    absl::StrAppend(&f.signature, "|",
                    CrashKey(death.signal, death.last_lines));
  }
  r.finding = std::move(f);
  return r;
}

absl::Status Supervisor::HandleDeath(Slot& slot, Death death,
                                     std::vector<TicketResult>& results) {
  ++deaths_;
  // See Note [Batched reports]: the worker ran the tickets it was sent up
  // to the last case it began (the case in flight, when its slot says one
  // was), and their reports died with it. Those it never began go first to
  // the next workers, in their order.
  const uint64_t last = slot.process->LastSeq();
  std::deque<SeqTicket>& sent = slot.outstanding;
  auto begun_end =
      std::find_if(sent.begin(), sent.end(),
                   [&](const SeqTicket& t) { return t.first == last; });
  begun_end = begun_end == sent.end() ? sent.begin() : begun_end + 1;
  std::vector<SeqTicket> unreported(std::make_move_iterator(sent.begin()),
                                    std::make_move_iterator(begun_end));
  backlog_.insert(backlog_.begin(), std::make_move_iterator(begun_end),
                  std::make_move_iterator(sent.end()));
  sent.clear();
  std::optional<SeqTicket> current;
  if (slot.process->InFlight().has_value() && !unreported.empty()) {
    current = std::move(unreported.back());
    unreported.pop_back();
  }
  const bool died_at_start =
      !slot.reported && !current.has_value() && unreported.empty();
  // What the case in flight cost before it killed its worker (a hang: the
  // whole timeout); its run alone is added when it is the culprit.
  const std::optional<SlotState> in_flight = slot.process->InFlight();
  const double in_flight_seconds =
      in_flight.has_value() ? 1e-9 * static_cast<double>(WorkerSlot::NowNs() -
                                                         in_flight->started_ns)
                            : 0;
  slot.process.reset();

  // The case in flight, then (for a crash: heap corruption and device
  // errors surface late) the window of cases before it, newest first.
  std::vector<SeqTicket> candidates;
  if (current.has_value()) candidates.push_back(*current);
  if (death.verdict == Verdict::kCrash) {
    const size_t window =
        candidates.size() + static_cast<size_t>(options_.culprit_window);
    candidates.insert(candidates.end(), unreported.rbegin(), unreported.rend());
    candidates.insert(candidates.end(), slot.recent.rbegin(),
                      slot.recent.rend());
    if (candidates.size() > window) candidates.resize(window);
  }
  slot.recent.clear();

  // Unreported tickets still without a result.
  std::set<uint64_t> unanswered;
  for (const SeqTicket& t : unreported) unanswered.insert(t.first);
  std::optional<TicketResult> current_result;
  std::optional<AloneRun> current_run;
  std::optional<uint64_t> culprit_seq;
  for (const auto& [seq, ticket] : candidates) {
    const int64_t run_started_ns = WorkerSlot::NowNs();
    AloneRun run = RunAlone(seq, ticket);
    const bool is_current = current.has_value() && seq == current->first;
    const bool was_reported = !is_current && unanswered.count(seq) == 0;
    if (run.death.has_value()) {
      TicketResult r = CulpritResult(ticket, run.dumped, *run.death,
                                     /*alone=*/true);
      r.seconds =
          1e-9 * static_cast<double>(WorkerSlot::NowNs() - run_started_ns) +
          (is_current ? in_flight_seconds : 0);
      if (was_reported && r.kind == TicketResult::Kind::kCulprit)
        r.kind = TicketResult::Kind::kLateCulprit;
      results.push_back(std::move(r));
      unanswered.erase(seq);
      culprit_seq = seq;
      break;
    }
    if (is_current) {
      if (run.report.has_value()) {
        current_result = FromReport(ticket, std::move(*run.report));
      }
      current_run = std::move(run);
    } else if (!was_reported && run.report.has_value()) {
      results.push_back(FromReport(ticket, std::move(*run.report)));
      unanswered.erase(seq);
    }
  }
  // Those whose reports died and that no run alone answered run again.
  for (auto it = unreported.rbegin(); it != unreported.rend(); ++it) {
    if (unanswered.count(it->first) > 0) backlog_.push_front(std::move(*it));
  }
  // The case in flight comes back exactly once: as the culprit (above),
  // blamed for want of another, with its own alone run's report, or, when
  // that run told nothing, queued again.
  if (current.has_value() && culprit_seq != current->first) {
    if (!culprit_seq.has_value()) {
      // Nothing dies alone: the case in flight takes the blame, marked.
      const std::optional<Case>& dumped =
          current_run.has_value() ? current_run->dumped : std::nullopt;
      TicketResult r =
          CulpritResult(current->second, dumped, death, /*alone=*/false);
      r.seconds = in_flight_seconds;
      results.push_back(std::move(r));
    } else if (current_result.has_value()) {
      results.push_back(std::move(*current_result));
    } else {
      backlog_.push_front(std::move(*current));
    }
  }

  if (died_at_start) {
    if (++failed_starts_ >= kMaxFailedStarts) {
      return absl::InternalError(absl::StrCat(
          "workers keep dying before running a case (", death.detail,
          "); their last words:\n", LastLinesText(death.last_lines)));
    }
  } else {
    failed_starts_ = 0;
  }
  return RestartWorker(slot);
}

absl::Status Supervisor::RestartWorker(Slot& slot) {
  const absl::Status started = StartWorker(slot);
  if (started.ok()) return started;
  // The slot stays empty (Dispatch and Poll pass it by) and the next Poll
  // tries again; only repeated failures are an error.
  slot.process.reset();
  if (++failed_starts_ >= kMaxFailedStarts) {
    return absl::InternalError(
        absl::StrCat("cannot start a worker: ", started.message()));
  }
  return absl::OkStatus();
}

std::vector<Ticket> Supervisor::Abandon() {
  std::vector<Ticket> left;
  for (auto& slot : slots_) {
    for (auto& [seq, ticket] : slot->outstanding) left.push_back(ticket);
    slot->outstanding.clear();
    slot->process.reset();
  }
  for (auto& [seq, ticket] : backlog_) left.push_back(ticket);
  backlog_.clear();
  slots_.clear();
  return left;
}

}  // namespace dpfuzz
