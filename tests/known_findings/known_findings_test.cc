// Every folder of known_findings/ holds what a maintainer reads and what
// dpfuzz replays: a case file that loads (the regression list stays
// replayable as the case format evolves) and an issue.md with its snippet,
// verdict and upstream status (known_findings/README.md). Its exhaustive
// repro is generated from the case (dpfuzz repro), not kept.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "generators/case_json.h"

namespace dpfuzz {
namespace {

TEST(KnownFindingsTest, EveryCaseFileLoads) {
  const std::filesystem::path root =
      std::filesystem::path(DPFUZZ_SOURCE_DIR) / "known_findings";
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    if (!entry.is_directory()) continue;
    const std::string path = (entry.path() / "case.json").string();
    absl::StatusOr<Case> c = LoadCaseFile(path);
    EXPECT_TRUE(c.ok()) << c.status();
    std::ifstream issue(entry.path() / "issue.md");
    std::stringstream text;
    text << issue.rdbuf();
    for (const char* part : {"\n```python\n", "\n- verdict: `",
                             "\n- shows on: ", "\n- upstream: "}) {
      EXPECT_TRUE(absl::StrContains(text.str(), part))
          << entry.path() << "/issue.md lacks " << part;
    }
    ++cases;
  }
  EXPECT_GE(cases, 9);
}

}  // namespace
}  // namespace dpfuzz
