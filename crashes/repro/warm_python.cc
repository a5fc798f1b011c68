#include "crashes/repro/warm_python.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crashes/repro/python_repro_check.h"

extern char** environ;

namespace dpfuzz {
namespace {

// The interpreter: imports torch (and what scripts use first: torch.testing's
// comparison), says "ready <torch.__version__>", then
// for each request line "<timeout>\t<log>\t<script>" forks a child that runs
// the script with its output in <log>, and answers "<exited> <exit status>
// <signal> <timed out>". PyTorch sets a forked child's thread count to one (a
// parent's OpenMP pool does not survive fork); this parent never ran a
// parallel region, so the child gets back the count a fresh process has.
constexpr char kServer[] = R"py(
import os, runpy, signal, sys, time, traceback
import torch
threads = torch.get_num_threads()
# What every comparing script calls, once here instead of in each child:
# the first assert_close of torch 2.x imports sympy (1.6 s of a 2.5-s check).
torch.testing.assert_close(torch.zeros(1), torch.zeros(1))
sys.stdout.write("ready %s\n" % torch.__version__)
sys.stdout.flush()
while True:
    line = sys.stdin.readline()
    if not line:
        break
    timeout, log, script = line.rstrip("\n").split("\t")
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            out = os.open(log, os.O_WRONLY | os.O_TRUNC | os.O_CREAT, 0o600)
            os.dup2(out, 1)
            os.dup2(out, 2)
            os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
            torch.set_num_threads(threads)
            sys.argv = [script]
            sys.path[0] = os.path.dirname(os.path.abspath(script))
            try:
                runpy.run_path(script, run_name="__main__")
                code = 0
            except SystemExit as e:
                if e.code is None:
                    code = 0
                elif isinstance(e.code, int):
                    code = e.code
                else:
                    print(e.code, file=sys.stderr)
            except BaseException as e:
                # From the script's own first frame, as python prints it
                # (not this loop's or runpy's).
                tb = e.__traceback__
                while tb is not None and tb.tb_frame.f_code.co_filename != script:
                    tb = tb.tb_next
                traceback.print_exception(type(e), e, tb or e.__traceback__)
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    deadline = time.monotonic() + float(timeout)
    timed_out = 0
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            timed_out = 1
            break
        time.sleep(0.002)
    exited = os.WIFEXITED(status)
    sys.stdout.write("%d %d %d %d\n" % (
        exited, os.WEXITSTATUS(status) if exited else -1,
        os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0, timed_out))
    sys.stdout.flush()
)py";

// How long the interpreter may take to import torch.
constexpr int kStartSeconds = 120;
// Beyond a script's own timeout, for the interpreter to answer.
constexpr int kAnswerSlackSeconds = 30;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class WarmInterpreter {
 public:
  ~WarmInterpreter() { Stop(); }

  // torch.__version__ as the interpreter imported it, starting it; nullopt
  // when it cannot start.
  std::optional<std::string> TorchVersion() {
    const std::lock_guard<std::mutex> lock(mu_);
    if (pid_ < 0 && !Start(nullptr)) return std::nullopt;
    return torch_version_;
  }

  // The script's result; nullopt when the interpreter cannot run it (it
  // did not start, or died or stalled answering: it is restarted next
  // time). `cancelled` is set when `cancel` cut the run short.
  std::optional<ProcessResult> Run(const std::string& script,
                                   int timeout_seconds,
                                   const std::atomic<bool>* cancel) {
    const std::lock_guard<std::mutex> lock(mu_);
    if (script.find_first_of("\t\n") != std::string::npos) return std::nullopt;
    if (pid_ < 0 && !Start(cancel)) return std::nullopt;
    char log[] = "/tmp/dpfuzz_warm_python_XXXXXX";
    const int fd = mkstemp(log);
    if (fd < 0) return std::nullopt;
    close(fd);
    const std::string request =
        absl::StrCat(timeout_seconds, "\t", log, "\t", script, "\n");
    std::optional<ProcessResult> result;
    std::string answer;
    if (send(socket_, request.data(), request.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(request.size()) &&
        ReadLine(timeout_seconds + kAnswerSlackSeconds, cancel, answer)) {
      result = Parse(answer);
    }
    if (result.has_value()) {
      result->output = ReadAll(log);
    } else {
      // Its answer, should it come, would be taken for the next script's.
      Stop();
      if (cancel != nullptr && *cancel) {
        result = ProcessResult{};
        result->cancelled = true;
      }
    }
    std::remove(log);
    return result;
  }

 private:
  bool Start(const std::atomic<bool>* cancel) {
    if (failed_) return false;
    // A socket, not pipes: a write to an interpreter that died fails
    // (MSG_NOSIGNAL) rather than killing dpfuzz with SIGPIPE.
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, ends[1], 0);
    posix_spawn_file_actions_adddup2(&actions, ends[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // Its own process group: stopping it kills a running child too.
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    std::string python = kReproPython, dash_c = "-c", code = kServer;
    char* argv[] = {python.data(), dash_c.data(), code.data(), nullptr};
    pid_t pid = -1;
    const bool spawned =
        posix_spawn(&pid, argv[0], &actions, &attributes, argv, environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(ends[1]);
    socket_ = ends[0];
    pid_ = spawned ? pid : -1;
    std::string ready;
    if (!spawned || !ReadLine(kStartSeconds, cancel, ready) ||
        !absl::StartsWith(ready, "ready ")) {
      // No torch, or no such Python: fresh processes say why.
      if (!(cancel != nullptr && *cancel)) failed_ = true;
      Stop();
      return false;
    }
    torch_version_ = ready.substr(6);
    return true;
  }

  void Stop() {
    if (socket_ >= 0) close(socket_);
    socket_ = -1;
    if (pid_ > 0) {
      killpg(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    pid_ = -1;
    pending_.clear();
  }

  // One line from the interpreter, within `seconds`, unless `cancel` is set.
  bool ReadLine(int seconds, const std::atomic<bool>* cancel,
                std::string& line) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    for (;;) {
      if (const size_t end = pending_.find('\n'); end != std::string::npos) {
        line = pending_.substr(0, end);
        pending_.erase(0, end + 1);
        return true;
      }
      if ((cancel != nullptr && *cancel) ||
          std::chrono::steady_clock::now() > deadline) {
        return false;
      }
      pollfd p{socket_, POLLIN, 0};
      if (poll(&p, 1, 20) < 0) return false;
      if (p.revents == 0) continue;
      char buffer[256];
      const ssize_t n = read(socket_, buffer, sizeof(buffer));
      if (n <= 0) return false;
      pending_.append(buffer, static_cast<size_t>(n));
    }
  }

  static std::optional<ProcessResult> Parse(const std::string& answer) {
    const std::vector<std::string> fields = absl::StrSplit(answer, ' ');
    int values[4];
    if (fields.size() != 4) return std::nullopt;
    for (int i = 0; i < 4; ++i) {
      if (!absl::SimpleAtoi(fields[i], &values[i])) return std::nullopt;
    }
    ProcessResult r;
    r.timed_out = values[3] != 0;
    r.exited = values[0] != 0 && !r.timed_out;
    r.exit_status = values[1];
    r.signal = values[2];
    return r;
  }

  std::mutex mu_;
  pid_t pid_ = -1;
  int socket_ = -1;      // The interpreter's stdin and stdout.
  std::string pending_;  // Read past the last line taken.
  bool failed_ = false;  // It could not start: not tried again.
  std::string torch_version_;
};

bool ShowsBug(const ProcessResult& r) {
  return (r.exited && r.exit_status == 1) || (r.signal != 0 && !r.timed_out);
}

WarmInterpreter& Warm() {
  static WarmInterpreter warm;
  return warm;
}

}  // namespace

std::optional<std::string> WarmReproPythonTorchVersion() {
  return Warm().TorchVersion();
}

ProcessResult RunReproPython(const std::string& script, int timeout_seconds,
                             const std::atomic<bool>* cancel) {
  std::optional<ProcessResult> r = Warm().Run(script, timeout_seconds, cancel);
  if (r.has_value() && (ShowsBug(*r) || r->cancelled)) return *r;
  return RunProcesses({{kReproPython, script}}, timeout_seconds, cancel)[0];
}

}  // namespace dpfuzz
