// `dpfuzz reduce PATH`: a finding's case reduced to a minimal one.
//
// PATH is a case file or a finding's directory. The bug to keep is the
// finding.json beside the case, or what a first run of the case shows.
// Candidates run in an isolated worker (reducers/isolated_runner.h); the
// reduced case is written to `out` (standard output when empty), and one
// INFO line on `log` gives rank, elements, calls and seconds before and
// after.
//
//   absl::Status s = RunReduceCommand({"findings/x"}, "min.json", isolation,
//                                     std::cout, std::cerr);

#ifndef DPFUZZ_FUZZ_REDUCE_COMMAND_H_
#define DPFUZZ_FUZZ_REDUCE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "crashes/isolation/supervisor.h"

namespace dpfuzz {

absl::Status RunReduceCommand(const std::vector<std::string>& args,
                              const std::string& out,
                              SupervisorOptions isolation,
                              std::ostream& stdout_, std::ostream& log);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_REDUCE_COMMAND_H_
