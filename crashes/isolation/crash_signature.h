// What tells one crash of an op from another: the crash key.
//
// From the last lines a dead worker printed (crashes/isolation/crash_handler.h)
// and the signal that killed it, CrashKey makes a short text without spaces:
// the signal, then glibc's or the C++ runtime's fatal message when there
// is one ("free(): invalid pointer"), else the top three stack frames
// outside libc, libstdc++ and libgcc (demangled function names without
// parameters or template arguments, or the module's name, once for a run
// of frames without symbols). Numbers and addresses are stripped, so two
// runs of one bug give one key.
//
//   CrashKey(SIGSEGV, lines) -> "SIGSEGV@at::native::foo>at::bar>libx.so"
//   CrashKey(SIGABRT, lines) -> "SIGABRT:free():_invalid_pointer"

#ifndef DPFUZZ_CRASHES_ISOLATION_CRASH_SIGNATURE_H_
#define DPFUZZ_CRASHES_ISOLATION_CRASH_SIGNATURE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace dpfuzz {

std::string CrashKey(int signal, const std::vector<std::string>& last_lines);

// Hex numbers become "0x?", other digit runs "N" (not those inside names:
// "c10" stays), whitespace runs "_".
std::string NormalizeCrashText(absl::string_view text);

// True when the last lines hold glibc's allocator's fatal message
// ("free(): invalid pointer", "double free or corruption (out)",
// "malloc(): corrupted top size", "invalid fastbin entry (free)") or a
// frame of malloc or free itself (a segfault in the allocator): heap
// corruption, noticed wherever memory was next freed or allocated, not
// where it was corrupted.
bool ReportsHeapCorruption(const std::vector<std::string>& last_lines);

// True when the last lines show a segfault (SIGSEGV, SIGBUS) whose first
// frame outside the C and C++ runtimes is LibTorch's (libtorch*, libc10*):
// out of an op call, LibTorch code touching what an op left broken (the
// destructor of a tensor it returned with corrupt metadata).
bool SegfaultInLibTorch(const std::vector<std::string>& last_lines);

// "SIGSEGV"; "signal 77" for one without a name; "exit" for 0 (no signal).
std::string SignalName(int signal);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_CRASH_SIGNATURE_H_
