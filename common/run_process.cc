#include "common/run_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace dpfuzz {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

std::vector<ProcessResult> RunProcesses(
    const std::vector<std::vector<std::string>>& commands, int timeout_seconds,
    const std::atomic<bool>* cancel) {
  std::vector<ProcessResult> results(commands.size());
  const auto cancelled = [cancel] { return cancel != nullptr && *cancel; };
  if (cancelled()) {
    for (ProcessResult& r : results) r.cancelled = true;
    return results;
  }
  std::vector<pid_t> pids(commands.size(), -1);
  std::vector<std::string> logs(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    char log[] = "/tmp/dpfuzz_run_process_XXXXXX";
    const int fd = mkstemp(log);
    if (fd < 0) continue;
    close(fd);
    logs[i] = log;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_TRUNC, 0);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    std::vector<char*> argv;
    for (const std::string& a : commands[i]) {
      argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    if (posix_spawn(&pids[i], argv[0], &actions, nullptr, argv.data(),
                    environ) != 0) {
      pids[i] = -1;
      results[i].output = "posix_spawn failed for " + commands[i][0];
    }
    posix_spawn_file_actions_destroy(&actions);
  }
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  for (size_t i = 0; i < commands.size(); ++i) {
    if (pids[i] < 0) continue;
    int status = 0;
    while (waitpid(pids[i], &status, WNOHANG) == 0) {
      const bool late = std::chrono::steady_clock::now() > deadline;
      if (late || cancelled()) {
        kill(pids[i], SIGKILL);
        waitpid(pids[i], &status, 0);
        (late ? results[i].timed_out : results[i].cancelled) = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    results[i].exited =
        WIFEXITED(status) && !results[i].timed_out && !results[i].cancelled;
    results[i].exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    results[i].signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    results[i].output = ReadAll(logs[i]);
    std::remove(logs[i].c_str());
  }
  return results;
}

std::string Describe(const ProcessResult& r) {
  if (r.timed_out) return "timed out";
  if (r.cancelled) return "cut short";
  if (r.exited) return "exit " + std::to_string(r.exit_status);
  if (r.signal != 0) {
    return "signal " + std::to_string(r.signal) + " (" + strsignal(r.signal) +
           ")";
  }
  return "did not run";
}

}  // namespace dpfuzz
