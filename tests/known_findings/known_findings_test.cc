// Every folder of known_findings/ holds what a maintainer reads and what
// dpfuzz replays: a case file that loads (the regression list stays
// replayable as the case format evolves) and an issue.md with its snippet,
// verdict and upstream status (known_findings/README.md). Its exhaustive
// repro is generated from the case (dpfuzz repro), not kept.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/run_process.h"
#include "crashes/findings/finding.h"
#include "crashes/repro/python_repro_check.h"
#include "crashes/repro/warm_python.h"
#include "generators/case_json.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> KnownFindingDirs() {
  std::vector<fs::path> dirs;
  for (const auto& entry :
       fs::directory_iterator(fs::path(DPFUZZ_SOURCE_DIR) / "known_findings")) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(KnownFindingsTest, EveryCaseFileLoads) {
  int cases = 0;
  for (const fs::path& dir : KnownFindingDirs()) {
    absl::StatusOr<Case> c = LoadCaseFile((dir / "case.json").string());
    EXPECT_TRUE(c.ok()) << c.status();
    const std::string issue = ReadText(dir / "issue.md");
    for (const char* part : {"\n```python\n", "\n- verdict: `",
                             "\n- shows on: ", "\n- upstream: "}) {
      EXPECT_TRUE(absl::StrContains(issue, part))
          << dir << "/issue.md lacks " << part;
    }
    ++cases;
  }
  EXPECT_GE(cases, 9);
}

// A snippet is what a maintainer reads first, so it must show the bug: run
// with the track's Python (as dpfuzz runs snippets, warm_python.h), every
// issue.md snippet fails (an assertion, an exception or a signal) where
// found_in and fixed_in say the bug shows, and exits 0 where it does not.
TEST(KnownFindingsTest, EverySnippetFailsWhereItsBugShows) {
  if (ReproPythonTorchVersion().empty()) {
    GTEST_SKIP() << kReproPython << " cannot import torch";
  }
  const fs::path scripts = fs::path(testing::TempDir()) /
                           absl::StrCat("dpfuzz_known_snippets_", getpid());
  fs::create_directories(scripts);
  std::vector<fs::path> dirs = KnownFindingDirs();
  std::vector<std::future<ProcessResult>> runs;
  for (const fs::path& dir : dirs) {
    const std::string issue = ReadText(dir / "issue.md");
    const size_t begin = issue.find("\n```python\n");
    const size_t end = issue.find("\n```", begin + 1);
    ASSERT_TRUE(begin != std::string::npos && end != std::string::npos)
        << dir << "/issue.md has no ```python snippet";
    const std::string script =
        (scripts / (dir.filename().string() + ".py")).string();
    std::ofstream(script) << issue.substr(begin + 11, end - begin - 10);
    runs.push_back(std::async(
        std::launch::async, [script] { return RunReproPython(script, 300); }));
  }
  for (size_t i = 0; i < dirs.size(); ++i) {
    const std::string name = dirs[i].filename().string();
    const ProcessResult r = runs[i].get();
    const bool shows = KnownFindingShows(name);
    EXPECT_FALSE(r.timed_out) << name << ": the snippet ran past 300 s";
    EXPECT_EQ(!(r.exited && r.exit_status == 0), shows)
        << name << ": on LibTorch " << LibTorchVersion()
        << " the snippet should " << (shows ? "fail" : "exit 0") << ", but "
        << Describe(r) << ":\n"
        << r.output;
  }
  if (!HasFailure()) fs::remove_all(scripts);
}

}  // namespace
}  // namespace dpfuzz
