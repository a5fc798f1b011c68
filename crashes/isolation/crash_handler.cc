#include "crashes/isolation/crash_handler.h"

#include <execinfo.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

namespace dpfuzz {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

void Write(const char* text) {
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;
}

void OnFatalSignal(int sig) {
  Write("\n");
  Write(kCrashBanner);
  Write(sigabbrev_np(sig) != nullptr ? "SIG" : "signal");
  Write(sigabbrev_np(sig) != nullptr ? sigabbrev_np(sig) : "?");
  Write("\n");
  void* frames[48];
  const int n = ::backtrace(frames, 48);
  // Frame 0 is this handler and frame 1 the signal trampoline.
  if (n > 2) ::backtrace_symbols_fd(frames + 2, n - 2, STDERR_FILENO);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void InstallCrashHandler() {
  // backtrace() loads libgcc on first use, which allocates: do it now,
  // while the heap is still sound.
  void* warm[1];
  ::backtrace(warm, 1);
  static char alternate_stack[1 << 16];
  stack_t ss{};
  ss.ss_sp = alternate_stack;
  ss.ss_size = sizeof(alternate_stack);
  ::sigaltstack(&ss, nullptr);
  struct sigaction action {};
  action.sa_handler = OnFatalSignal;
  action.sa_flags = SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals) ::sigaction(sig, &action, nullptr);
}

}  // namespace dpfuzz
