#include "crashes/findings/known_issues.h"

#include <fnmatch.h>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/files.h"
#include "common/status_macros.h"

namespace dpfuzz {

absl::StatusOr<KnownIssues> KnownIssues::Parse(absl::string_view text,
                                               absl::string_view source) {
  KnownIssues known;
  int number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#') continue;
    size_t end = 0;
    while (end < line.size() && !absl::ascii_isspace(line[end])) ++end;
    Entry entry{std::string(line.substr(0, end)),
                std::string(absl::StripAsciiWhitespace(line.substr(end)))};
    if (entry.pattern.find('|') == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ":", number, ": \"", entry.pattern,
          "\" is not a signature pattern (expected OP|VARIANT|VERDICT|..., "
          "for example aten::tril.out|out|crash|*)"));
    }
    known.entries_.push_back(std::move(entry));
  }
  return known;
}

absl::StatusOr<KnownIssues> KnownIssues::Load(const std::string& path) {
  DPFUZZ_ASSIGN_OR_RETURN(std::string text,
                          ReadFile(path, "known-issues file"));
  return Parse(text, path);
}

std::optional<KnownIssues::Entry> KnownIssues::Match(
    const std::string& signature) const {
  for (const Entry& entry : entries_) {
    if (::fnmatch(entry.pattern.c_str(), signature.c_str(), 0) == 0) {
      return entry;
    }
  }
  return std::nullopt;
}

}  // namespace dpfuzz
