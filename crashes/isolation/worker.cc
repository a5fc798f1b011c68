#include "crashes/isolation/worker.h"

#include <c10/util/Exception.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/torch_compat.h"
#include "crashes/findings/finding.h"
#include "crashes/findings/layout_corpus.h"
#include "crashes/isolation/crash_handler.h"
#include "crashes/isolation/ticket.h"
#include "crashes/isolation/ticket_batch.h"
#include "crashes/isolation/worker_report.h"
#include "crashes/isolation/worker_slot.h"
#include "generators/case_json.h"
#include "generators/op_library.h"
#include "generators/op_registry.h"
#include "generators/seed_corpus.h"
#include "oracles/call_phase.h"
#include "oracles/case_builder.h"
#include "oracles/counting_allocator.h"
#include "oracles/device_sync.h"
#include "oracles/invoke.h"
#include "oracles/run_case.h"

namespace dpfuzz {
namespace {

absl::Status WriteAll(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return absl::InternalError("report pipe closed");
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// Reads lines from a file descriptor.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}

  // The next line; false at the end of input.
  bool Next(std::string& line) {
    for (;;) {
      const size_t newline = buffer_.find('\n', offset_);
      if (newline != std::string::npos) {
        line.assign(buffer_, offset_, newline - offset_);
        offset_ = newline + 1;
        return true;
      }
      buffer_.erase(0, offset_);
      offset_ = 0;
      char chunk[4096];
      const ssize_t n = ::read(fd_, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
  size_t offset_ = 0;
};

std::string FirstLineOf(absl::string_view text) {
  return std::string(text.substr(0, text.find('\n')));
}

class Worker {
 public:
  Worker(const WorkerConfig& config, WorkerSlot slot)
      : config_(config), slot_(std::move(slot)) {
    SetCallPhaseSink(slot_.phase_word());
    build_.layout_one_in = config.layout_one_in;
    build_.alias_one_in = config.alias_one_in;
    build_.check_grad = config.check_grad;
    build_.device = config.device;
    if (config.resources.counts_memory()) InstallCountingCpuAllocator();
    if (!config.case_out.empty()) {
      build_.before_probe = [this](const Case& c) { SaveCase(c); };
    }
    if (!config.seeds_dir.empty()) {
      absl::StatusOr<SeedCorpus> seeds = SeedCorpus::Open(config.seeds_dir);
      if (seeds.ok()) seeds_ = std::move(*seeds);
    }
    if (!config.corpus_dir.empty()) {
      absl::StatusOr<LayoutCorpus> corpus =
          LayoutCorpus::Open(config.corpus_dir);
      if (corpus.ok()) {
        corpus_ = std::move(*corpus);
      } else {
        std::cerr << "dpfuzz-worker: " << corpus.status().message()
                  << std::endl;
      }
    }
  }

  WorkerReport Run(uint64_t seq, const std::string& line) {
    slot_.Begin(seq, line);
    const auto start = std::chrono::steady_clock::now();
    WorkerReport report = RunTicket(line);
    report.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    slot_.End();
    report.seq = seq;
    return report;
  }

 private:
  void SaveCase(const Case& c) {
    if (absl::Status s = SaveCaseFile(c, config_.case_out); !s.ok()) {
      std::cerr << "dpfuzz-worker: " << s.message() << std::endl;
    }
  }

  WorkerReport Error(const absl::Status& status) {
    WorkerReport r;
    r.kind = WorkerReport::Kind::kError;
    r.error = std::string(status.message());
    return r;
  }

  WorkerReport RunTicket(const std::string& line) {
    absl::StatusOr<Ticket> ticket = DecodeTicket(line);
    if (!ticket.ok()) return Error(ticket.status());
    // A drawn case is on the worker's device; a case file says its own.
    std::optional<Case> loaded;
    Device device = config_.device;
    if (ticket->kind == Ticket::Kind::kFile) {
      absl::StatusOr<Case> c = LoadCaseFile(ticket->path);
      if (!c.ok()) return Error(c.status());
      device = CaseDevice(*c);
      loaded = std::move(*c);
    }
    WorkerReport r = RunCatching(*ticket, loaded);
    // See Note [Sticky device errors]: what dpfuzz's own code queued.
    if (absl::Status s = SynchronizeDevice(device); !s.ok()) {
      DieOfDeviceError(s.message());
    }
    return r;
  }

  // Run, where an exception that escapes it is dpfuzz's own failure: an
  // oracle's call that LibTorch refused (asking a sparse result for its
  // strides, say), not the op's (those are caught around the op call,
  // oracles/invoke.h). Reported as an internal error with the case.
  WorkerReport RunCatching(const Ticket& ticket,
                           const std::optional<Case>& loaded) {
    try {
      return Run(ticket, loaded);
    } catch (const c10::Error& e) {
      return InternalError(e.what_without_backtrace());
    } catch (const std::exception& e) {
      return InternalError(e.what());
    }
  }

  WorkerReport InternalError(absl::string_view what) {
    WorkerReport r = Error(absl::InternalError(absl::StrCat(
        "internal error: dpfuzz's own call threw (not an op call): ",
        FirstLineOf(what))));
    if (current_.has_value()) {
      Finding f;
      f.c = *current_;
      f.outcome.evidence.where = "dpfuzz";
      f.outcome.evidence.error = r.error;
      f.signature = "internal_error";
      r.finding = std::move(f);
    }
    return r;
  }

  // Builds the case of a drawn ticket (`loaded` holds a file ticket's) and
  // runs it.
  WorkerReport Run(const Ticket& ticket, const std::optional<Case>& loaded) {
    current_.reset();
    absl::StatusOr<std::optional<BuiltCase>> c =
        loaded.has_value()
            ? absl::StatusOr<std::optional<BuiltCase>>(BuiltCase{*loaded, {}})
            : Draw(ticket);
    if (!c.ok()) return Error(c.status());
    WorkerReport r;
    if (!c->has_value()) {
      r.kind = WorkerReport::Kind::kInvalid;
      return r;
    }
    const OpSpec* spec = FindOpFor((*c)->c);
    if (spec == nullptr) {
      return Error(absl::NotFoundError(
          absl::StrCat("no op spec for ", QualifiedOpName((*c)->c))));
    }
    // A case from a file may be a reducer's candidate, its inputs resized:
    // its grad_outputs take its results' sizes again.
    if (loaded.has_value()) {
      absl::StatusOr<bool> fitted = FitGradOutputs(*spec, (*c)->c);
      if (!fitted.ok()) return Error(fitted.status());
    }
    if (!config_.case_out.empty()) SaveCase((*c)->c);
    // Kept where an exception that escapes RunCase finds it; moved, not
    // copied, on the per-case path.
    current_ = std::move((*c)->c);
    absl::StatusOr<CaseOutcome> outcome = RunCase(
        *spec, *current_, std::move((*c)->baseline_run), config_.resources);
    if (!outcome.ok()) return Error(outcome.status());
    r.verdict = outcome->verdict;
    if (IsFinding(r.verdict)) r.finding = MakeFinding(*current_, *outcome);
    if (corpus_.has_value()) {  // Never at the cost of the case's report.
      absl::StatusOr<int> fresh = corpus_->Add(*current_, r.verdict);
      if (!fresh.ok())
        std::cerr << "dpfuzz-worker: " << fresh.status().message() << std::endl;
    }
    return r;
  }

  absl::StatusOr<std::optional<BuiltCase>> Draw(const Ticket& t) {
    const OpSpec* spec = FindOp(t.op);
    if (spec == nullptr) {
      return absl::NotFoundError(absl::StrCat("unknown op ", t.op));
    }
    if (t.kind == Ticket::Kind::kSeeded) {
      DPFUZZ_ASSIGN_OR_RETURN(spec, SeededSpec(*spec, t.op));
    }
    return BuildCaseWithBaseline(*spec, t.dtype, t.variant, t.seed, build_);
  }

  // `spec` with its arguments drawn from the recorded seeds of `op`.
  absl::StatusOr<const OpSpec*> SeededSpec(const OpSpec& spec,
                                           const std::string& op) {
    auto it = seeded_.find(op);
    if (it != seeded_.end()) return &it->second;
    auto cases = std::make_shared<const std::vector<Case>>(
        seeds_.has_value() ? seeds_->CasesFor(op) : std::vector<Case>());
    if (cases->empty()) {
      return absl::NotFoundError(absl::StrCat("a seeded ticket for ", op,
                                              ", which has no seeds in \"",
                                              config_.seeds_dir, "\""));
    }
    OpSpec seeded = spec;
    seeded.seeds_only.clear();
    seeded.make_args = [cases](Rng& rng, DType dtype) {
      return DrawSeedArgs(*cases, dtype, rng);
    };
    return &seeded_.emplace(op, std::move(seeded)).first->second;
  }

  const WorkerConfig& config_;
  WorkerSlot slot_;
  BuildOptions build_;
  std::optional<Case> current_;  // The case being run, once built.
  std::optional<SeedCorpus> seeds_;
  std::optional<LayoutCorpus> corpus_;
  std::map<std::string, OpSpec> seeded_;  // Seeded specs by op name.
};

bool ParseFlag(const std::string& arg, absl::string_view name,
               std::string& value) {
  const std::string prefix = absl::StrCat("--", name, "=");
  if (!absl::StartsWith(arg, prefix)) return false;
  value = arg.substr(prefix.size());
  return true;
}

}  // namespace

std::vector<std::string> WorkerArgs(const WorkerConfig& c) {
  std::vector<std::string> args = {
      absl::StrCat("--slot=", c.slot_path),
      absl::StrCat("--layout_one_in=", c.layout_one_in),
      absl::StrCat("--alias_one_in=", c.alias_one_in),
      absl::StrCat("--check_grad=", c.check_grad ? 1 : 0),
      absl::StrCat("--device=", DeviceName(c.device))};
  if (!c.case_out.empty())
    args.push_back(absl::StrCat("--case_out=", c.case_out));
  for (const std::string& library : c.libraries)
    args.push_back(absl::StrCat("--load=", library));
  if (!c.seeds_dir.empty())
    args.push_back(absl::StrCat("--seeds=", c.seeds_dir));
  if (!c.corpus_dir.empty())
    args.push_back(absl::StrCat("--corpus=", c.corpus_dir));
  if (c.resources.any()) {
    const ResourceOracles& r = c.resources;
    args.push_back(absl::StrCat("--oracles=", OracleList(r)));
    args.push_back(absl::StrCat("--memory_ratio=", r.memory_ratio));
    args.push_back(
        absl::StrCat("--memory_excess_bytes=", r.memory_excess_bytes));
    args.push_back(absl::StrCat("--perf_ratio=", r.perf_ratio));
  }
  return args;
}

absl::StatusOr<WorkerConfig> ParseWorkerArgs(
    const std::vector<std::string>& args) {
  const auto Bad = [](const std::string& arg) {
    return absl::InvalidArgumentError(
        absl::StrCat("worker: unknown argument \"", arg, "\""));
  };
  WorkerConfig c;
  for (const std::string& arg : args) {
    std::string value;
    int number = 0;
    if (ParseFlag(arg, "slot", value)) {
      c.slot_path = value;
    } else if (ParseFlag(arg, "case_out", value)) {
      c.case_out = value;
    } else if (ParseFlag(arg, "seeds", value)) {
      c.seeds_dir = value;
    } else if (ParseFlag(arg, "corpus", value)) {
      c.corpus_dir = value;
    } else if (ParseFlag(arg, "load", value)) {
      c.libraries.push_back(value);
    } else if (ParseFlag(arg, "device", value)) {
      DPFUZZ_ASSIGN_OR_RETURN(c.device, ParseDevice(value));
    } else if (ParseFlag(arg, "layout_one_in", value) &&
               absl::SimpleAtoi(value, &number)) {
      c.layout_one_in = number;
    } else if (ParseFlag(arg, "alias_one_in", value) &&
               absl::SimpleAtoi(value, &number)) {
      c.alias_one_in = number;
    } else if (ParseFlag(arg, "check_grad", value) &&
               absl::SimpleAtoi(value, &number)) {
      c.check_grad = number != 0;
    } else if (ParseFlag(arg, "oracles", value)) {
      const ResourceOracles thresholds = c.resources;
      DPFUZZ_ASSIGN_OR_RETURN(c.resources, ParseOracleList(value));
      c.resources.memory_ratio = thresholds.memory_ratio;
      c.resources.memory_excess_bytes = thresholds.memory_excess_bytes;
      c.resources.perf_ratio = thresholds.perf_ratio;
    } else if (ParseFlag(arg, "memory_ratio", value)) {
      if (!absl::SimpleAtod(value, &c.resources.memory_ratio)) return Bad(arg);
    } else if (ParseFlag(arg, "memory_excess_bytes", value)) {
      if (!absl::SimpleAtoi(value, &c.resources.memory_excess_bytes)) {
        return Bad(arg);
      }
    } else if (ParseFlag(arg, "perf_ratio", value)) {
      if (!absl::SimpleAtod(value, &c.resources.perf_ratio)) return Bad(arg);
    } else {
      return Bad(arg);
    }
  }
  if (c.slot_path.empty()) {
    return absl::InvalidArgumentError("worker: --slot is required");
  }
  return c;
}

int RunWorker(const WorkerConfig& config) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 1;  // The supervisor is already gone.
  std::signal(SIGINT, SIG_IGN);    // The supervisor decides when to stop.
  std::signal(SIGPIPE, SIG_IGN);
  InstallCrashHandler();
  compat::SilenceWarnings quiet;
  SkipErrorBacktraces();
  absl::StatusOr<WorkerSlot> slot = WorkerSlot::Open(config.slot_path);
  if (!slot.ok()) {
    std::cerr << "dpfuzz-worker: " << slot.status().message() << std::endl;
    return 1;
  }
  for (const std::string& library : config.libraries) {
    if (absl::Status s = LoadOpLibrary(library); !s.ok()) {
      std::cerr << "dpfuzz-worker: " << s.message() << std::endl;
      return 1;
    }
  }
  Worker worker(config, std::move(*slot));
  LineReader input(kTicketFd);
  std::string line;
  std::string reports;
  while (input.Next(line)) {
    absl::StatusOr<size_t> n = DecodeBatchHeader(line);
    for (size_t i = 0; n.ok() && i < *n; ++i) {
      absl::StatusOr<BatchLine> entry =
          input.Next(line) ? DecodeBatchLine(line)
                           : absl::DataLossError("the input ends in a batch");
      if (!entry.ok()) {
        n = entry.status();
        break;
      }
      const WorkerReport report = worker.Run(entry->seq, entry->ticket);
      absl::StrAppend(&reports, EncodeReport(report));
      // See Note [Batched reports]: the batch's reports in one write, but a
      // finding or an error at once.
      const bool urgent = report.kind == WorkerReport::Kind::kError ||
                          report.finding.has_value();
      if (urgent || i + 1 == *n) {
        if (!WriteAll(kReportFd, reports).ok()) return 1;
        reports.clear();
      }
    }
    if (!n.ok()) {
      std::cerr << "dpfuzz-worker: " << n.status().message() << std::endl;
      return 1;
    }
  }
  return 0;
}

}  // namespace dpfuzz
