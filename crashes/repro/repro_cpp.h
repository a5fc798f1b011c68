// CppRepro: a finding as a standalone LibTorch C++ program, with the
// CMakeLists.txt that builds it.
//
// The same repro as crashes/repro/repro_python.h, for maintainers who debug in
// C++ (a debugger, a sanitizer build of LibTorch): every tensor argument is
// at::Tensor::as_strided over an explicit storage (at::empty, then each
// element's exact bytes written, dpfuzz's poison in gaps and margins
// included), the contiguous baseline holds the same logical values, the op
// is called through c10::Dispatcher::findSchemaOrThrow(...).callBoxed with
// the arguments in schema order, and the check that mirrors the verdict's
// oracle prints "expected:" / "actual:" and makes the exit status 1 when
// the bug shows, 0 when it does not. A crash shows as death by a signal; a
// timeout as exit status 1 after kReproTimeoutSeconds (alarm()).
//
//   absl::StatusOr<std::string> cc =
//       CppRepro(c, *FindCuratedOp("aten::tril"), Verdict::kOutsideWrite);
//   // write *cc to repro.cc and CppReproCMakeLists() beside it, then
//   //   cmake -S . -B build && cmake --build build && ./build/repro

#ifndef DPFUZZ_CRASHES_REPRO_REPRO_CPP_H_
#define DPFUZZ_CRASHES_REPRO_REPRO_CPP_H_

#include <string>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "generators/op_spec.h"
#include "oracles/verdict.h"

namespace dpfuzz {

// repro.cc. An error when the verdict is not a finding or the case does
// not fit the op's schema.
absl::StatusOr<std::string> CppRepro(const Case& c, const OpSpec& spec,
                                     Verdict verdict);

// The CMakeLists.txt beside repro.cc: find_package(Torch), one executable
// named `repro`.
std::string CppReproCMakeLists();

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_REPRO_CPP_H_
