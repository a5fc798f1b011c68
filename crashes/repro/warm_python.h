// Running repro scripts with the track's Python without paying for
// `import torch` each time.
//
// A Python check of a finding (its repro.py, its issue snippet) spends
// most of its time starting Python and importing torch: 1.4 s on 1.13,
// 3 s and more on a modern wheel, against a few milliseconds for the
// calls it makes. A whole-library campaign stores hundreds of bugs, two
// checks each, so checks run one at a time would still be running long
// after the campaign ended. WarmPython keeps one interpreter of
// kReproPython that has imported torch and forks a child of it for each
// script; the child runs the script as `python script.py` would
// (`__main__`, its sys.argv and sys.path[0], the exit status of SystemExit,
// a traceback and exit 1 for an uncaught exception, torch's thread count
// as in a fresh process) and its output goes to a file of ours.
//
// A forked child is not a fresh interpreter: its heap holds what the
// import left, and a bug that needs a fresh process (a heap corruption
// glibc notices only in some layouts) may not show in it. So
// RunReproPython trusts the warm run only when it shows the bug (exit 1 or
// death by a signal); any other ending is run again in a fresh process,
// whose result stands. A script therefore never counts as fixed, failed or
// hung on the warm interpreter's word.
//
//   ProcessResult r = RunReproPython("findings/x/repro.py", 120, &cancel);

#ifndef DPFUZZ_CRASHES_REPRO_WARM_PYTHON_H_
#define DPFUZZ_CRASHES_REPRO_WARM_PYTHON_H_

#include <atomic>
#include <optional>
#include <string>

#include "common/run_process.h"

namespace dpfuzz {

// Runs `script` with kReproPython: forked from the warm interpreter when
// it is up and the script shows its bug there, else in a fresh process.
// Thread-safe; scripts run one at a time on the warm interpreter.
ProcessResult RunReproPython(const std::string& script, int timeout_seconds,
                             const std::atomic<bool>* cancel = nullptr);

// torch.__version__ as the warm interpreter imported it, starting it (the
// check that kReproPython has a working torch, at no cost beyond the start
// that running a script pays anyway); nullopt when it cannot start.
std::optional<std::string> WarmReproPythonTorchVersion();

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_WARM_PYTHON_H_
