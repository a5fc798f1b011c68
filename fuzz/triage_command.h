// `dpfuzz triage FINDINGS`: finishes the triage a campaign left undone.
//
// A campaign triages new root causes within a budget (fuzz/triage.h); what
// it stored past that budget is marked untriaged in its finding.json. This
// command triages each of them (Triage::Retriage: one isolated run decides
// whether it is a cause already triaged, else it is reduced and blamed),
// high-confidence bugs and cheap verdicts first, checks the repro.py and
// writes the issue.md of each bug's reduced finding with the track's
// Python, and rewrites the directory's report. Each root cause is saved
// when it is done, so an interrupted run (Ctrl-C stops after the current
// one) goes on where it stopped when run again; a directory with nothing
// untriaged only gets its report rewritten.
//
//   absl::Status s = RunTriageCommand({"findings"}, isolation, &stop,
//                                     std::cout);

#ifndef DPFUZZ_FUZZ_TRIAGE_COMMAND_H_
#define DPFUZZ_FUZZ_TRIAGE_COMMAND_H_

#include <atomic>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "crashes/isolation/supervisor.h"

namespace dpfuzz {

// `args`: the words after "triage" (one findings directory). Errors are
// one line for the user.
absl::Status RunTriageCommand(const std::vector<std::string>& args,
                              const SupervisorOptions& isolation,
                              const std::atomic<bool>* stop, std::ostream& log);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_TRIAGE_COMMAND_H_
