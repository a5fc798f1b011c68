// `dpfuzz replay PATH...`: re-run stored cases; a regression gate.
//
// PATH is a case file, a finding's directory, or a directory of them (any
// depth: every case.json below it). Each case runs in an isolated worker
// with glibc's checking allocator (a heap corruption fails where it
// happens) and is judged against the finding.json beside it:
//   REPRODUCES  the same bug again (ShowsSameBug);
//   DIFFERS     another finding;
//   FIXED       no finding any more.
// A case without finding.json reproduces when it shows any finding.
//
//   absl::StatusOr<std::vector<ReplayItem>> items = CollectReplayItems(paths);
//   ReplaySummary s = RunReplay(*items, isolation, std::cout);

#ifndef DPFUZZ_FUZZ_REPLAY_H_
#define DPFUZZ_FUZZ_REPLAY_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "crashes/isolation/supervisor.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

struct ReplayItem {
  std::string case_path;
  std::optional<Finding> expected;  // From finding.json, when there is one.
  Device device = Device::kCpu;     // Where the case's tensors live.
};

// Every case under `paths`, sorted; an error for a path that does not
// exist, a directory without case files, or a malformed case or
// finding file.
absl::StatusOr<std::vector<ReplayItem>> CollectReplayItems(
    const std::vector<std::string>& paths);

// The one case that `args` (the words after `command`) names: a case file
// or a finding's directory; an error for none, several, or a bad case.
absl::StatusOr<ReplayItem> OneReplayItem(const std::string& command,
                                         const std::vector<std::string>& args);

// OK when `item`'s case can run on this LibTorch; else an error that says
// the device it needs ("replay: F runs on cuda: this LibTorch (1.13.1) is
// built without CUDA; run it where one is"), as a GPU campaign's findings
// read on a CPU-only machine get, rather than a worker dying on them.
absl::Status CheckRunsHere(absl::string_view command, const ReplayItem& item);

// Whether `got`, the finding a replay of `expected`'s case gave, is the
// same bug: the same signature; for crash, timeout and oom, the same
// verdict (crash keys may move between builds); for a baseline failure,
// any failure of the contiguous baseline or any death. A kernel that uses
// memory no one wrote (nested select's unwrapped negative dim: offsets
// from at::empty, and a write past its sizes) returns garbage in one run
// and corrupts the heap in the next, and glibc aborts where the
// corruption is noticed, which may be after the baseline's call.
bool ShowsSameBug(const Finding& expected, const Finding& got);

struct ReplaySummary {
  int reproduces = 0;
  int differs = 0;
  int fixed = 0;
  int errors = 0;
};

ReplaySummary RunReplay(const std::vector<ReplayItem>& items,
                        SupervisorOptions isolation, std::ostream& log);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_REPLAY_H_
