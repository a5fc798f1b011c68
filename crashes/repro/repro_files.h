// The repro files of a finding: repro.py, repro.cc and its CMakeLists.txt.
//
// ReproText makes one repro (crashes/repro/repro_python.h,
// crashes/repro/repro_cpp.h) for a case and the verdict it shows, finding the
// op's spec by name; WriteReproFiles writes all three into a finding's
// directory, each atomically (common/files.h).
//
//   absl::StatusOr<std::string> py = ReproText(c, verdict,
//   ReproFormat::kPython); absl::Status s = WriteReproFiles(c, verdict,
//   "findings/mismatch-cat-...");

#ifndef DPFUZZ_CRASHES_REPRO_REPRO_FILES_H_
#define DPFUZZ_CRASHES_REPRO_REPRO_FILES_H_

#include <string>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "oracles/verdict.h"

namespace dpfuzz {

enum class ReproFormat { kPython, kCpp };

inline constexpr char kPythonReproFile[] = "repro.py";
inline constexpr char kCppReproFile[] = "repro.cc";
inline constexpr char kCppReproCMakeFile[] = "CMakeLists.txt";

// An error when the op is unknown, the verdict is no finding, or the case
// does not fit the op's schema.
absl::StatusOr<std::string> ReproText(const Case& c, Verdict verdict,
                                      ReproFormat format);

absl::Status WriteReproFiles(const Case& c, Verdict verdict,
                             const std::string& dir);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_REPRO_FILES_H_
