#include "tests/crashes/known_case.h"

#include <torch/version.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "crashes/findings/finding_json.h"
#include "generators/case_json.h"
#include "gtest/gtest.h"
#include "oracles/verdict.h"

namespace dpfuzz {
namespace {

std::filesystem::path KnownDir(const std::string& name) {
  return std::filesystem::path(DPFUZZ_SOURCE_DIR) / "known_findings" / name;
}

}  // namespace

std::string KnownCasePath(const std::string& name) {
  return (KnownDir(name) / "case.json").string();
}

Case LoadKnownCase(const std::string& name) {
  absl::StatusOr<Case> c = LoadCaseFile(KnownCasePath(name));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : Case{};
}

Finding TrilOutFinding(int64_t rows) {
  Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");
  for (Argument& a : c.args) {
    if (auto* t = std::get_if<TensorSpec>(&a.value)) t->layout.sizes[0] = rows;
  }
  CaseOutcome outcome;
  outcome.verdict = Verdict::kOutsideWrite;
  outcome.evidence.where = "storage of out";
  outcome.evidence.detail = absl::StrCat("rows ", rows);
  return MakeFinding(c, outcome);
}

bool LibTorchIsAtLeast(const std::string& release) {
  std::vector<int> parts;
  for (absl::string_view part : absl::StrSplit(release, '.')) {
    int n = 0;
    if (!absl::SimpleAtoi(part, &n)) {
      ADD_FAILURE() << "\"" << release << "\" is not a release like 2.11.0";
      return false;
    }
    parts.push_back(n);
  }
  const std::vector<int> under_test = {TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR,
                                       TORCH_VERSION_PATCH};
  return under_test >= parts;
}

namespace {

// The release in known_findings/<name>/<file>, if that file exists.
std::optional<std::string> ReleaseIn(const std::string& name,
                                     const std::string& file) {
  std::ifstream in(KnownDir(name) / file);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return std::string(absl::StripAsciiWhitespace(text.str()));
}

}  // namespace

Verdict KnownFindingVerdict(const std::string& name) {
  std::ifstream in(KnownDir(name) / "issue.md");
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, "- verdict: `")) continue;
    const std::string word(rest.substr(0, rest.find('`')));
    absl::StatusOr<Verdict> v = ParseVerdict(word);
    if (v.ok()) return *v;
    ADD_FAILURE() << "known_findings/" << name << "/issue.md: verdict \""
                  << word << "\" is none of dpfuzz's: " << v.status();
    return Verdict::kAgree;
  }
  ADD_FAILURE() << "known_findings/" << name
                << "/issue.md has no \"- verdict: `...`\" line";
  return Verdict::kAgree;
}

FindingKind KnownFindingKind(const std::string& name) {
  std::ifstream in(KnownDir(name) / "finding.json");
  if (!in) return FindingKind::kLayoutBug;
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<Finding> f = FindingFromJson(text.str(), name);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? f->outcome.kind : FindingKind::kLayoutBug;
}

bool KnownFindingHasHandWrittenRepro(const std::string& name) {
  return std::filesystem::exists(KnownDir(name) / "repro.py");
}

bool KnownFindingShows(const std::string& name) {
  const std::optional<std::string> found_in = ReleaseIn(name, "found_in");
  const std::optional<std::string> fixed_in = ReleaseIn(name, "fixed_in");
  return (!found_in.has_value() || LibTorchIsAtLeast(*found_in)) &&
         (!fixed_in.has_value() || !LibTorchIsAtLeast(*fixed_in));
}

}  // namespace dpfuzz
