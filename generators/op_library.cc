#include "generators/op_library.h"

#include <dlfcn.h>

#include "absl/strings/str_cat.h"

namespace dpfuzz {

absl::Status LoadOpLibrary(const std::string& path) {
  // A bare file name would be searched on the library path; a path is
  // what users mean.
  const std::string where =
      path.find('/') == std::string::npos ? absl::StrCat("./", path) : path;
  if (::dlopen(where.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
    const char* error = ::dlerror();
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot load op library ", path, ": ", error ? error : "unknown"));
  }
  return absl::OkStatus();
}

}  // namespace dpfuzz
