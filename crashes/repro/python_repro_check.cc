#include "crashes/repro/python_repro_check.h"

#include <unistd.h>

#include <cctype>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/run_process.h"
#include "crashes/findings/finding.h"
#include "crashes/repro/warm_python.h"

namespace dpfuzz {

const char* const kReproPython = DPFUZZ_PYTHON;
const char* const kCheckCutShort = "not run: cut short when the campaign ended";

const std::string& ReproPythonTorchVersion() {
  static const std::string version = [] {
    if (::access(kReproPython, X_OK) != 0) return std::string();
    // The warm interpreter repros run on imports torch once; only where it
    // cannot start does a process of its own import it again.
    if (std::optional<std::string> warm = WarmReproPythonTorchVersion()) {
      return *warm;
    }
    const std::vector<ProcessResult> r = RunProcesses(
        {{kReproPython, "-c", "import torch; print(torch.__version__)"}}, 120);
    if (!r[0].exited || r[0].exit_status != 0) return std::string();
    const std::string out(absl::StripAsciiWhitespace(r[0].output));
    return out.substr(out.rfind('\n') + 1);  // Warnings may come first.
  }();
  return version;
}

std::string ReleaseOf(absl::string_view version) {
  size_t end = 0;
  while (end < version.size() &&
         (std::isdigit(static_cast<unsigned char>(version[end])) ||
          (version[end] == '.' && end + 1 < version.size() &&
           std::isdigit(static_cast<unsigned char>(version[end + 1]))))) {
    ++end;
  }
  return std::string(version.substr(0, end));
}

PythonReproCheck CheckPythonRepro(const std::string& script,
                                  int timeout_seconds,
                                  const std::atomic<bool>* cancel) {
  PythonReproCheck check;
  check.python_torch = ReproPythonTorchVersion();
  if (check.python_torch.empty()) {
    check.result =
        absl::StrCat("not run: ", kReproPython, " cannot import torch");
    return check;
  }
  if (ReleaseOf(check.python_torch) != ReleaseOf(LibTorchVersion())) {
    check.result =
        absl::StrCat("not run: ", kReproPython, " has torch ",
                     check.python_torch, ", not LibTorch ", LibTorchVersion());
    return check;
  }
  const ProcessResult r = RunReproPython(script, timeout_seconds, cancel);
  if (r.cancelled) {
    check.result = kCheckCutShort;
    return check;
  }
  check.ran = true;
  check.reproduces =
      !r.timed_out && ((r.exited && r.exit_status == 1) || r.signal != 0);
  if (check.reproduces) {
    check.result = "reproduces";
  } else if (r.exited && r.exit_status == 0) {
    check.result = "does not reproduce";
  } else {
    check.result = absl::StrCat("failed: ", Describe(r));
  }
  return check;
}

}  // namespace dpfuzz
