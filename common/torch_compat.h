// The one place where dpfuzz's code differs between LibTorch versions.
//
// dpfuzz builds against Debian's LibTorch 1.13 and against the LibTorch of
// PyPI's torch 2.x wheel. Where their C++ APIs differ, the difference lives
// here, selected by TORCH_VERSION_MAJOR, and every other file uses the
// names below.
//
//   compat::SilenceWarnings quiet;  // c10 warnings dropped in this scope

#ifndef DPFUZZ_COMMON_TORCH_COMPAT_H_
#define DPFUZZ_COMMON_TORCH_COMPAT_H_

#include <c10/util/Exception.h>
#include <torch/version.h>

#include <string>

namespace dpfuzz::compat {

// Drops c10 warnings (TORCH_WARN) while alive. Ops under fuzz warn a lot
// (resized out= tensors, deprecated overloads), and a campaign's log is for
// findings. 1.13 calls the handler with (location, message, verbatim) and
// keeps it in c10::Warning; 2.x passes a c10::Warning and keeps it in
// c10::WarningUtils.
class SilenceWarnings {
 public:
  SilenceWarnings() : guard_(&handler_) {}

 private:
  struct Handler : c10::WarningHandler {
#if TORCH_VERSION_MAJOR < 2
    void process(const c10::SourceLocation&, const std::string&,
                 bool) override {}
#else
    void process(const c10::Warning&) override {}
#endif
  };
#if TORCH_VERSION_MAJOR < 2
  using Guard = c10::Warning::WarningHandlerGuard;
#else
  using Guard = c10::WarningUtils::WarningHandlerGuard;
#endif
  Handler handler_;
  Guard guard_;
};

}  // namespace dpfuzz::compat

#endif  // DPFUZZ_COMMON_TORCH_COMPAT_H_
