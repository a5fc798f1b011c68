#include "common/files.h"

#include <ftw.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace dpfuzz {

absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text,
                                 const std::string& what) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      return absl::UnavailableError(
          absl::StrCat(what, " ", path, ": cannot write ", temp));
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    return absl::UnavailableError(
        absl::StrCat(what, " ", path, ": cannot rename ", temp, " into place"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", path, ": is a directory, not a file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat(what, " ", path, ": cannot be opened for reading"));
  }
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat(what, " ", path, ": read failed"));
  }
  return text.str();
}

absl::Status MakeDirectories(const std::string& dir, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) &&
      !std::filesystem::is_directory(dir, ec)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", dir, " exists and is not a directory; pass another path"));
  }
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return absl::UnavailableError(
        absl::StrCat(what, " ", dir, ": cannot create it: ", ec.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> MakeTempDirectory(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = absl::StrCat(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp",
                                 "/", prefix, "XXXXXX");
  if (::mkdtemp(dir.data()) == nullptr) {
    return absl::InternalError(
        absl::StrCat("creating ", dir, ": ", std::strerror(errno)));
  }
  return dir;
}

void RemoveTree(const std::string& path) {
  // Depth first, so a directory is empty when its turn comes; links are
  // removed, never followed.
  ::nftw(
      path.c_str(),
      [](const char* entry, const struct stat*, int, struct FTW*) {
        std::remove(entry);
        return 0;
      },
      16, FTW_DEPTH | FTW_PHYS);
}

}  // namespace dpfuzz
