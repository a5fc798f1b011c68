#include "crashes/isolation/crash_signature.h"

#include <cxxabi.h>

#include <cctype>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "crashes/isolation/crash_handler.h"
#include "oracles/device_sync.h"

namespace dpfuzz {
namespace {

constexpr int kTopFrames = 3;

// The runtime's own frames: the machinery of dying, not the culprit.
bool IsRuntimeModule(absl::string_view module) {
  return absl::StartsWith(module, "libc.so") ||
         absl::StartsWith(module, "libstdc++.so") ||
         absl::StartsWith(module, "libgcc_s.so") ||
         absl::StartsWith(module, "libc_malloc_debug.so");
}

// Fatal messages of glibc's allocator, of the C++ runtime, and of a worker
// whose device failed.
bool IsFatalMessage(absl::string_view line) {
  return absl::StartsWith(line, kDeviceErrorBanner) ||
         absl::StrContains(line, "(): ") ||
         absl::StartsWith(line, "double free") ||
         absl::StartsWith(line, "corrupted ") ||
         absl::StartsWith(line, "invalid fastbin entry") ||
         absl::StartsWith(line, "terminate called") ||
         absl::StrContains(line, "Fatal glibc error");
}

bool IsIdentifierChar(char ch) {
  return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
}

// "a::f<b<c>, d>::call" -> "a::f::call"; unbalanced text is kept whole
// ("operator<").
std::string StripTemplateArguments(const std::string& name) {
  std::string out;
  int depth = 0;
  for (char ch : name) {
    if (ch == '<') {
      ++depth;
    } else if (ch == '>' && depth > 0) {
      --depth;
    } else if (depth == 0) {
      out += ch;
    }
  }
  return depth == 0 ? out : name;
}

std::string Demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
      std::free);
  std::string name = status == 0 && out ? std::string(out.get()) : symbol;
  absl::StrReplaceAll({{"(anonymous namespace)", "{anon}"}}, &name);
  // Parameters and template arguments vary with the build; drop them.
  name = StripTemplateArguments(name);
  return name.substr(0, name.find('('));
}

// "/usr/lib/libtorch_cpu.so(_ZN2at3fooEv+0x1a) [0x7f...]" -> "at::foo";
// "/x/libplanted.so(+0x12) [0x...]" -> "libplanted.so"; "" for runtime
// frames and lines that are no frame.
std::string FrameName(absl::string_view line) {
  const size_t open = line.find('(');
  const size_t close = line.find(')', open);
  if (open == absl::string_view::npos || close == absl::string_view::npos)
    return "";
  absl::string_view module = line.substr(0, open);
  module = module.substr(module.rfind('/') + 1);
  if (module.empty() || IsRuntimeModule(module)) return "";
  absl::string_view symbol = line.substr(open + 1, close - open - 1);
  symbol = symbol.substr(0, symbol.find('+'));
  return symbol.empty() ? std::string(module) : Demangle(std::string(symbol));
}

}  // namespace

bool ReportsHeapCorruption(const std::vector<std::string>& last_lines) {
  for (const std::string& line : last_lines) {
    // Killed inside the allocator itself (SIGSEGV in malloc or free): its
    // bookkeeping was overwritten.
    if ((absl::StrContains(line, "libc.so") ||
         absl::StrContains(line, "libc_malloc_debug.so")) &&
        (absl::StrContains(line, "(malloc+") ||
         absl::StrContains(line, "(free+") ||
         absl::StrContains(line, "(realloc+") ||
         absl::StrContains(line, "(calloc+") ||
         absl::StrContains(line, "(_int_malloc+") ||
         absl::StrContains(line, "(_int_free+"))) {
      return true;
    }
    for (absl::string_view word :
         {"malloc(): ", "free(): ", "realloc(): ", "double free", "corrupted ",
          "munmap_chunk(): ", "malloc_consolidate(): ",
          "invalid fastbin entry"}) {
      if (absl::StrContains(line, word)) return true;
    }
  }
  return false;
}

bool SegfaultInLibTorch(const std::vector<std::string>& last_lines) {
  bool segfault = false;
  for (const std::string& line : last_lines) {
    if (absl::StrContains(line, "caught SIGSEGV") ||
        absl::StrContains(line, "caught SIGBUS")) {
      segfault = true;
      continue;
    }
    if (!segfault || !absl::StrContains(line, "[0x")) continue;
    const size_t open = line.find('(');
    if (open == std::string::npos) continue;
    absl::string_view module = absl::string_view(line).substr(0, open);
    module = module.substr(module.rfind('/') + 1);
    if (IsRuntimeModule(module)) continue;
    // The first frame outside the C and C++ runtimes.
    return absl::StartsWith(module, "libtorch") ||
           absl::StartsWith(module, "libc10");
  }
  return false;
}

std::string SignalName(int signal) {
  if (signal == 0) return "exit";
  const char* abbrev = sigabbrev_np(signal);
  return abbrev != nullptr ? absl::StrCat("SIG", abbrev)
                           : absl::StrCat("signal ", signal);
}

std::string NormalizeCrashText(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const char ch = text[i];
    if (i > 0 && IsIdentifierChar(text[i - 1]) && IsIdentifierChar(ch)) {
      out += ch;  // Digits inside a name ("c10", "fp16") are the name.
      ++i;
    } else if (ch == '0' && i + 1 < text.size() && (text[i + 1] == 'x')) {
      out += "0x?";
      i += 2;
      while (i < text.size() &&
             std::isxdigit(static_cast<unsigned char>(text[i])))
        ++i;
    } else if (std::isdigit(static_cast<unsigned char>(ch))) {
      out += 'N';
      while (i < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[i])))
        ++i;
    } else if (std::isspace(static_cast<unsigned char>(ch))) {
      if (!out.empty() && out.back() != '_') out += '_';
      ++i;
    } else {
      out += ch;
      ++i;
    }
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

std::string CrashKey(int signal, const std::vector<std::string>& last_lines) {
  // The handler's banner splits what the worker said from its stack.
  size_t banner = last_lines.size();
  for (size_t i = last_lines.size(); i-- > 0;) {
    if (absl::StartsWith(last_lines[i], kCrashBanner)) {
      banner = i;
      break;
    }
  }
  for (size_t i = banner; i-- > 0;) {
    const absl::string_view line = absl::StripAsciiWhitespace(last_lines[i]);
    if (line.empty()) continue;
    if (IsFatalMessage(line)) {
      return absl::StrCat(SignalName(signal), ":", NormalizeCrashText(line));
    }
    break;  // Only the last thing said before dying counts.
  }
  std::vector<std::string> frames;
  for (size_t i = banner + 1;
       i < last_lines.size() && frames.size() < kTopFrames; ++i) {
    std::string name = NormalizeCrashText(FrameName(last_lines[i]));
    // Frames without symbols of one module say its name once.
    if (!name.empty() && (frames.empty() || frames.back() != name)) {
      frames.push_back(std::move(name));
    }
  }
  if (frames.empty()) return SignalName(signal);
  return absl::StrCat(SignalName(signal), "@", absl::StrJoin(frames, ">"));
}

}  // namespace dpfuzz
