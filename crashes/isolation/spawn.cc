#include "crashes/isolation/spawn.h"

#include <fcntl.h>
#include <spawn.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

extern char** environ;

namespace dpfuzz {
namespace {

constexpr char kMallocDebug[] = "libc_malloc_debug.so.0";

std::vector<std::string> Environment(bool malloc_check) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const absl::string_view var(*e);
    if (malloc_check && (absl::StartsWith(var, "LD_PRELOAD=") ||
                         absl::StartsWith(var, "GLIBC_TUNABLES="))) {
      continue;
    }
    env.emplace_back(var);
  }
  env.emplace_back("LIBC_FATAL_STDERR_=1");  // glibc's last words on stderr.
  if (malloc_check) {
    env.push_back(absl::StrCat("LD_PRELOAD=", kMallocDebug));
    env.emplace_back("GLIBC_TUNABLES=glibc.malloc.check=3");
  }
  return env;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (std::string& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

}  // namespace

absl::Status ErrnoError(absl::string_view what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

absl::StatusOr<pid_t> SpawnDpfuzz(const std::string& executable,
                                  const std::vector<std::string>& args,
                                  const std::vector<std::pair<int, int>>& fds,
                                  bool malloc_check) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  for (const auto& [from, to] : fds) {
    posix_spawn_file_actions_adddup2(&actions, from, to);
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<std::string> argv_strings = {executable};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<std::string> env_strings = Environment(malloc_check);
  std::vector<char*> argv = Pointers(argv_strings);
  std::vector<char*> env = Pointers(env_strings);
  pid_t pid = 0;
  const int error = ::posix_spawn(&pid, executable.c_str(), &actions, &attr,
                                  argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (error != 0) {
    return absl::InternalError(
        absl::StrCat("starting ", executable, ": ", std::strerror(error)));
  }
  return pid;
}

}  // namespace dpfuzz
