#include "crashes/repro/repro_files.h"

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/repro/repro_cpp.h"
#include "crashes/repro/repro_python.h"
#include "generators/op_registry.h"
#include "oracles/nested_case.h"

namespace dpfuzz {

absl::StatusOr<std::string> ReproText(const Case& c, Verdict verdict,
                                      ReproFormat format) {
  const OpSpec* spec = FindOpFor(c);
  if (format == ReproFormat::kCpp && IsCostVerdict(verdict)) {
    return absl::UnimplementedError(
        absl::StrCat("no C++ repro measures what a call allocates or takes (",
                     VerdictName(verdict), "): use repro.py"));
  }
  if (format == ReproFormat::kCpp && HasNestedTensor(c)) {
    // TODO: the C++ repro builds views with as_strided only; nested
    // tensors need _nested_view_from_buffer there too.
    return absl::UnimplementedError(
        absl::StrCat("no C++ repro for nested tensors yet (",
                     QualifiedOpName(c), "): use repro.py"));
  }
  if (spec == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no op spec for ", QualifiedOpName(c)));
  }
  return format == ReproFormat::kPython ? PythonRepro(c, *spec, verdict)
                                        : CppRepro(c, *spec, verdict);
}

absl::Status WriteReproFiles(const Case& c, Verdict verdict,
                             const std::string& dir) {
  DPFUZZ_ASSIGN_OR_RETURN(std::string py,
                          ReproText(c, verdict, ReproFormat::kPython));
  if (HasNestedTensor(c) || IsCostVerdict(verdict)) {  // Python only.
    return WriteFileAtomically(absl::StrCat(dir, "/", kPythonReproFile), py,
                               "Python repro");
  }
  DPFUZZ_ASSIGN_OR_RETURN(std::string cc,
                          ReproText(c, verdict, ReproFormat::kCpp));
  DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(
      absl::StrCat(dir, "/", kPythonReproFile), py, "Python repro"));
  DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(
      absl::StrCat(dir, "/", kCppReproFile), cc, "C++ repro"));
  return WriteFileAtomically(absl::StrCat(dir, "/", kCppReproCMakeFile),
                             CppReproCMakeLists(), "CMakeLists.txt");
}

}  // namespace dpfuzz
