// Small file helpers with the error messages dpfuzz's users see.
//
// WriteFileAtomically writes a temporary file beside the target and renames
// it into place, so that an interrupted run never leaves a half-written
// case or finding: readers see the old file or the new one.

#ifndef DPFUZZ_COMMON_FILES_H_
#define DPFUZZ_COMMON_FILES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace dpfuzz {

// `what` names the file in errors: "case file", "finding".
absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text,
                                 const std::string& what);

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     const std::string& what);

// Creates `dir` and its parents; an error if it exists as something else.
absl::Status MakeDirectories(const std::string& dir, const std::string& what);

// A new private directory $TMPDIR/<prefix>XXXXXX (/tmp without TMPDIR).
absl::StatusOr<std::string> MakeTempDirectory(const std::string& prefix);

// Removes `path` and everything under it, best effort (a temporary
// directory's cleanup). Not std::filesystem::remove_all: the torch wheels'
// libtorch.so exports its own copy of it from the libstdc++ it links
// statically (pytorch/pytorch#133437), which jumps to address 0 when a
// program's call binds to it; the link order of Note [LibTorch's libstdc++
// symbols] did not prevent that with torch 2.11 on an Ubuntu 24.04 GPU
// runner.
void RemoveTree(const std::string& path);

}  // namespace dpfuzz

#endif  // DPFUZZ_COMMON_FILES_H_
