// Running a finding's repro.py with a Python torch, when that torch is the
// LibTorch under test.
//
// The Python is chosen at build time (CMake's DPFUZZ_PYTHON): Debian's
// /usr/bin/python3, whose python3-torch is the same build as libtorch-dev,
// or the virtualenv whose torch wheel holds the modern track's LibTorch. A
// repro.py run with it tells a maintainer whether the finding shows from
// Python too. The check runs only when that Python's torch has the version
// dpfuzz was built against (release numbers compared: "1.13.0a0" matches
// LibTorch "1.13.0"); otherwise it says why it did not run.
//
//   PythonReproCheck r = CheckPythonRepro("findings/x/repro.py", 120);
//   r.ran && r.reproduces

#ifndef DPFUZZ_CRASHES_REPRO_PYTHON_REPRO_CHECK_H_
#define DPFUZZ_CRASHES_REPRO_PYTHON_REPRO_CHECK_H_

#include <atomic>
#include <string>

#include "absl/strings/string_view.h"

namespace dpfuzz {

// The Python that runs repros (DPFUZZ_PYTHON), e.g. "/usr/bin/python3".
extern const char* const kReproPython;

struct PythonReproCheck {
  bool ran = false;
  bool reproduces = false;   // Exit status 1 or death by a signal.
  std::string python_torch;  // torch.__version__; "" when none.
  std::string result;  // "reproduces", "does not reproduce", "failed: ...",
                       // or why it did not run.
};

// torch.__version__ of kReproPython, "" when it cannot import torch (asked
// once, of the warm interpreter that RunReproPython runs scripts on).
const std::string& ReproPythonTorchVersion();

// "1.13.0a0+git" -> "1.13.0": the leading release numbers.
std::string ReleaseOf(absl::string_view version);

// What a check cut short by `cancel` (common/run_process.h) says it is.
extern const char* const kCheckCutShort;

PythonReproCheck CheckPythonRepro(const std::string& script,
                                  int timeout_seconds,
                                  const std::atomic<bool>* cancel = nullptr);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_PYTHON_REPRO_CHECK_H_
