#include "fuzz/main_entry.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/files.h"
#include "crashes/findings/finding.h"
#include "crashes/isolation/fork_server.h"
#include "crashes/isolation/worker.h"
#include "crashes/isolation/worker_process.h"
#include "fuzz/campaign.h"
#include "fuzz/cli.h"
#include "fuzz/known_cases.h"
#include "fuzz/reduce_command.h"
#include "fuzz/replay.h"
#include "fuzz/report.h"
#include "fuzz/repro_command.h"
#include "fuzz/triage_command.h"

namespace dpfuzz {
namespace {

constexpr int kUsageError = 2;

std::atomic<bool> stop_requested{false};

void RequestStop(int) { stop_requested.store(true); }

int UsageFailure(const absl::Status& status) {
  std::cerr << "dpfuzz: " << status.message() << "\n";
  return kUsageError;
}

int WorkerMain(int argc, char** argv) {
  absl::StatusOr<WorkerConfig> config =
      ParseWorkerArgs(std::vector<std::string>(argv + 2, argv + argc));
  if (!config.ok()) return UsageFailure(config.status());
  return RunWorker(*config);
}

// --known's directories of cases, learned into options.known (the
// campaign's INFO lines say what each gave).
absl::Status LearnKnown(CampaignOptions& options, std::ostream& log) {
  std::vector<KnownIssues::Entry> known = options.known.entries();
  for (const std::string& dir : options.known_case_dirs) {
    absl::StatusOr<KnownCases> learned =
        LearnKnownCases(dir, options.ops, options.isolation);
    if (!learned.ok()) {
      return absl::Status(learned.status().code(),
                          absl::StrCat("flag --known: ", dir, ": ",
                                       learned.status().message()));
    }
    log << "INFO: known cases in " << dir << ": " << learned->selected << " of "
        << learned->cases << " are of these ops; "
        << learned->known.entries().size() << " show a finding here"
        << std::endl;
    for (const KnownIssues::Entry& entry : learned->known.entries()) {
      log << "INFO: known: " << entry.pattern << "  " << entry.note
          << std::endl;
      known.push_back(entry);
    }
    for (const std::string& path : learned->quiet) {
      log << "INFO: known case shows no finding here: " << path << std::endl;
    }
  }
  options.known = KnownIssues(std::move(known));
  return absl::OkStatus();
}

int FuzzMain(std::string command) {
  absl::StatusOr<CampaignOptions> options = CampaignOptionsFromFlags();
  if (!options.ok()) return UsageFailure(options.status());
  options->command = std::move(command);
  std::signal(SIGINT, RequestStop);
  std::signal(SIGTERM, RequestStop);
  size_t ops = 0;  // This shard's.
  for (size_t i = 0; i < options->ops.size(); ++i) {
    ops += options->shard.HasOp(i, options->ops.size()) ? 1 : 0;
  }
  std::cout << "INFO: dpfuzz " << DpfuzzVersion() << " on LibTorch "
            << LibTorchVersion() << "; " << ops << " op(s), seed "
            << options->seed << ", " << options->isolation.jobs << " worker(s)"
            << (options->shard.count > 1
                    ? absl::StrCat(", shard ", ShardToString(options->shard))
                    : "")
            << std::endl;
  if (absl::Status s = LearnKnown(*options, std::cout); !s.ok()) {
    return UsageFailure(s);
  }
  const CampaignSummary summary =
      RunCampaign(*options, std::cout, &stop_requested);
  std::cout << SummaryLine(summary) << std::endl;
  if (absl::Status s = WriteSummaryIfRequested(summary); !s.ok()) {
    return UsageFailure(s);
  }
  // New layout bugs fail the run; baseline failures only when asked.
  const bool failed =
      !summary.bugs.empty() ||
      (options->fail_on_baseline_failures && summary.baseline_failures > 0);
  return failed ? 1 : 0;
}

int ReplayMain(const std::vector<std::string>& paths) {
  absl::StatusOr<std::vector<ReplayItem>> items = CollectReplayItems(paths);
  if (!items.ok()) return UsageFailure(items.status());
  for (const ReplayItem& item : *items) {
    if (absl::Status s = CheckRunsHere("replay", item); !s.ok()) {
      return UsageFailure(s);
    }
  }
  absl::StatusOr<SupervisorOptions> isolation = IsolationFromFlags();
  if (!isolation.ok()) return UsageFailure(isolation.status());
  const ReplaySummary s = RunReplay(*items, *isolation, std::cout);
  std::cout << "SUMMARY: replay cases=" << items->size()
            << " reproduces=" << s.reproduces << " differs=" << s.differs
            << " fixed=" << s.fixed << " errors=" << s.errors << std::endl;
  if (s.reproduces > 0 || s.differs > 0) return 1;
  return s.errors > 0 ? kUsageError : 0;
}

// --out, its folder made first as `mkdir -p` would: naming a new folder
// for a repro, a reduced case or a report is enough.
absl::StatusOr<std::string> OutPath() {
  const std::string out = OutFlag();
  const std::string folder = std::filesystem::path(out).parent_path().string();
  if (!folder.empty()) {
    const absl::Status made = MakeDirectories(folder, "--out folder");
    if (!made.ok()) return made;
  }
  return out;
}

int ReproMain(const std::vector<std::string>& args) {
  absl::StatusOr<ReproFormat> format = ReproFormatFromFlags();
  if (!format.ok()) return UsageFailure(format.status());
  absl::StatusOr<SupervisorOptions> isolation = IsolationFromFlags();
  if (!isolation.ok()) return UsageFailure(isolation.status());
  absl::StatusOr<std::string> out = OutPath();
  if (!out.ok()) return UsageFailure(out.status());
  const absl::Status s =
      RunReproCommand(args, *format, *out, *isolation, std::cout);
  return s.ok() ? 0 : UsageFailure(s);
}

int ReduceMain(const std::vector<std::string>& args) {
  absl::StatusOr<SupervisorOptions> isolation = IsolationFromFlags();
  if (!isolation.ok()) return UsageFailure(isolation.status());
  absl::StatusOr<std::string> out = OutPath();
  if (!out.ok()) return UsageFailure(out.status());
  const absl::Status s =
      RunReduceCommand(args, *out, *isolation, std::cout, std::cerr);
  return s.ok() ? 0 : UsageFailure(s);
}

int ReportMain(const std::vector<std::string>& args) {
  absl::StatusOr<ReportFormat> format = ReportFormatFromFlags();
  if (!format.ok()) return UsageFailure(format.status());
  absl::StatusOr<std::string> out = OutPath();
  if (!out.ok()) return UsageFailure(out.status());
  const absl::Status s = RunReportCommand(args, *format, *out, std::cout);
  return s.ok() ? 0 : UsageFailure(s);
}

int TriageMain(const std::vector<std::string>& args) {
  absl::StatusOr<SupervisorOptions> isolation = IsolationFromFlags();
  if (!isolation.ok()) return UsageFailure(isolation.status());
  std::signal(SIGINT, RequestStop);
  std::signal(SIGTERM, RequestStop);
  const absl::Status s =
      RunTriageCommand(args, *isolation, &stop_requested, std::cout);
  return s.ok() ? 0 : UsageFailure(s);
}

}  // namespace

int DpfuzzMain(int argc, char** argv) {
  MarkSelfAsWorkerExecutable();
  // Workers die by design (crashes, sticky device errors): writing a ticket
  // to a dead one must fail with EPIPE (WorkerProcess::Send), not kill the
  // supervisor.
  std::signal(SIGPIPE, SIG_IGN);
  if (argc >= 2 && std::string(argv[1]) == kWorkerCommand) {
    return WorkerMain(argc, argv);
  }
  if (argc >= 2 && std::string(argv[1]) == kForkServerCommand) {
    return RunForkServer();
  }
  // One line at a time, also into a file or a CI log: a run that is
  // killed keeps every FINDING: line it printed.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  absl::StatusOr<CommandLine> cl = ParseCommandLine(argc, argv);
  if (!cl.ok()) return UsageFailure(cl.status());
  if (cl->help) {
    std::cout << UsageText();
    return 0;
  }
  if (absl::Status loaded = LoadLibraries(*cl); !loaded.ok()) {
    return UsageFailure(loaded);
  }
  const std::vector<std::string>& args = cl->positional;
  const std::string command = args.empty() ? "" : args[0];
  const std::vector<std::string> rest =
      args.empty() ? std::vector<std::string>()
                   : std::vector<std::string>(args.begin() + 1, args.end());
  if (command == "list-ops" && rest.empty()) {
    absl::StatusOr<std::string> list = ListOpsText();
    if (!list.ok()) return UsageFailure(list.status());
    std::cout << *list;
    return 0;
  }
  if (command == "replay") return ReplayMain(rest);
  if (command == "repro") return ReproMain(rest);
  if (command == "reduce") return ReduceMain(rest);
  if (command == "report") return ReportMain(rest);
  if (command == "triage") return TriageMain(rest);
  if (!command.empty()) {
    return UsageFailure(absl::InvalidArgumentError(
        "unexpected argument \"" + command + "\"; see dpfuzz --help"));
  }
  std::vector<std::string> words = {"dpfuzz"};
  words.insert(words.end(), argv + 1, argv + argc);
  return FuzzMain(absl::StrJoin(words, " "));
}

}  // namespace dpfuzz
