// KnownIssues: findings a campaign should not report again.
//
// A known-issues file has one entry per line: a signature pattern, then
// (after whitespace) a note or link; blank lines and lines starting with
// '#' are ignored. Patterns are shell globs (fnmatch) over whole
// signatures, so an entry can name one finding or a family of them:
//
//   # masked_select's backward scatters in memory order (1.13.1)
//   aten::masked_select|functional|grad_mismatch|*  https://github.com/...
//   aten::tril.out|out|crash|*|aliased|*             heap corruption
//
// Signatures never contain whitespace (crashes/findings/finding.h, crash keys).
// A directory of cases names known bugs by example instead
// (fuzz/known_cases.h).

#ifndef DPFUZZ_CRASHES_FINDINGS_KNOWN_ISSUES_H_
#define DPFUZZ_CRASHES_FINDINGS_KNOWN_ISSUES_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dpfuzz {

class KnownIssues {
 public:
  struct Entry {
    std::string pattern;
    std::string note;
  };

  KnownIssues() = default;
  explicit KnownIssues(std::vector<Entry> entries)
      : entries_(std::move(entries)) {}
  // Errors name the file and line.
  static absl::StatusOr<KnownIssues> Parse(absl::string_view text,
                                           absl::string_view source);
  static absl::StatusOr<KnownIssues> Load(const std::string& path);

  // The first entry whose pattern matches `signature`.
  std::optional<Entry> Match(const std::string& signature) const;

  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_FINDINGS_KNOWN_ISSUES_H_
