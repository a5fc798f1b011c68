// SpawnDpfuzz: a fresh dpfuzz process (posix_spawn of the executable, never
// a fork of a process that has run an op), for the workers and their fork
// servers.
//
// The child reads /dev/null on stdin, gets the descriptors `fds` names (a
// pair is the parent's descriptor and the number it has in the child), and
// runs in a process group of its own, so a terminal's Ctrl-C reaches only
// the supervisor. Its environment is this process's, plus glibc's last
// words on stderr (LIBC_FATAL_STDERR_) and, with `malloc_check`, glibc's
// checking allocator preloaded: heap corruption then aborts where it
// happens, which is what the culprit search needs.
//
//   absl::StatusOr<pid_t> pid = SpawnDpfuzz(exe, {"__worker", ...},
//                                           {{out[1], 1}, {out[1], 2}}, false);

#ifndef DPFUZZ_CRASHES_ISOLATION_SPAWN_H_
#define DPFUZZ_CRASHES_ISOLATION_SPAWN_H_

#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dpfuzz {

// An internal error naming what failed and errno's text: "pipe: Too many
// open files".
absl::Status ErrnoError(absl::string_view what);

absl::StatusOr<pid_t> SpawnDpfuzz(const std::string& executable,
                                  const std::vector<std::string>& args,
                                  const std::vector<std::pair<int, int>>& fds,
                                  bool malloc_check);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_SPAWN_H_
