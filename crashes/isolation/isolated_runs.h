// Running a batch of case files in isolated workers, to the last result.
//
// What replay, repro and the reducer need: each case run once in a worker
// (crashes/isolation/supervisor.h), its death survived, and one final word per
// case (a late culprit overrides an earlier "ran").
//
//   absl::StatusOr<std::map<std::string, TicketResult>> r =
//       RunCaseFiles({"findings/x/case.json"}, isolation);
//   r->at("findings/x/case.json").finding  // When it shows one.

#ifndef DPFUZZ_CRASHES_ISOLATION_ISOLATED_RUNS_H_
#define DPFUZZ_CRASHES_ISOLATION_ISOLATED_RUNS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "crashes/isolation/supervisor.h"

namespace dpfuzz {

// One result per path (paths that got none are absent: the workers could
// not be kept alive). An error when no worker can be started.
absl::StatusOr<std::map<std::string, TicketResult>> RunCaseFiles(
    const std::vector<std::string>& paths, SupervisorOptions isolation);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_ISOLATED_RUNS_H_
