// The worker's last words: on a fatal signal, print which one and the
// stack, then die of it.
//
// InstallCrashHandler makes SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT
// print "dpfuzz-worker: caught SIGSEGV" and one line per stack frame (as
// glibc's backtrace_symbols_fd writes them) on stderr, on an alternate
// stack (a stack overflow is a crash too), then re-raise the signal with
// its default action so the supervisor sees the real cause of death.
// The supervisor turns those lines into the crash's signature
// (crashes/crash_signature.h).

//
// A failed device is no signal: DieOfDeviceError prints the device's error
// as the worker's last words and aborts (Note [Sticky device errors] in
// crashes/worker.h).

#ifndef DPFUZZ_CRASHES_CRASH_HANDLER_H_
#define DPFUZZ_CRASHES_CRASH_HANDLER_H_

#include "absl/strings/string_view.h"

namespace dpfuzz {

// The line the handler prints first, before "SIGSEGV" etc.
inline constexpr char kCrashBanner[] = "dpfuzz-worker: caught ";

// Starts the line DieOfDeviceError prints last; the crash key
// (crashes/crash_signature.h) takes that line as the fatal message.
inline constexpr char kDeviceErrorBanner[] = "dpfuzz-worker: device error: ";

void InstallCrashHandler();

// Prints `message` (LibTorch's whole text, hints included), then
// kDeviceErrorBanner and the message's first line, on stderr; then aborts.
[[noreturn]] void DieOfDeviceError(absl::string_view message);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_CRASH_HANDLER_H_
