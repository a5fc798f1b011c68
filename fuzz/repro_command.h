// `dpfuzz repro PATH`: the standalone repro of one case.
//
// PATH is a case file or a finding's directory (its case.json). The
// verdict the repro checks for comes from the finding.json beside the
// case; a bare case file is first run in an isolated worker to learn it
// (a case that shows no finding has no repro: an error). The repro is
// printed, or written to `out` (for C++, with CMakeLists.txt beside it).
//
//   absl::Status s = RunReproCommand({"findings/x"}, ReproFormat::kCpp,
//                                    "/tmp/r/repro.cc", isolation, std::cout);

#ifndef DPFUZZ_FUZZ_REPRO_COMMAND_H_
#define DPFUZZ_FUZZ_REPRO_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "crashes/isolation/supervisor.h"
#include "crashes/repro/repro_files.h"

namespace dpfuzz {

// `args`: the words after "repro". Errors are one line for the user.
absl::Status RunReproCommand(const std::vector<std::string>& args,
                             ReproFormat format, const std::string& out,
                             SupervisorOptions isolation,
                             std::ostream& stdout_);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_REPRO_COMMAND_H_
