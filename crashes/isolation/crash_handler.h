// The worker's last words: on a fatal signal, print which one and the
// stack, then die of it.
//
// InstallCrashHandler makes SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT
// print "dpfuzz-worker: caught SIGSEGV" and one line per stack frame (as
// glibc's backtrace_symbols_fd writes them) on stderr, on an alternate
// stack (a stack overflow is a crash too), then re-raise the signal with
// its default action so the supervisor sees the real cause of death.
// The supervisor turns those lines into the crash's signature
// (crashes/isolation/crash_signature.h).

//
// A failed device is no signal: DieOfDeviceError (oracles/device_sync.h)
// prints the device's error as the worker's last words and aborts.

#ifndef DPFUZZ_CRASHES_ISOLATION_CRASH_HANDLER_H_
#define DPFUZZ_CRASHES_ISOLATION_CRASH_HANDLER_H_

namespace dpfuzz {

// The line the handler prints first, before "SIGSEGV" etc.
inline constexpr char kCrashBanner[] = "dpfuzz-worker: caught ";

void InstallCrashHandler();

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_CRASH_HANDLER_H_
