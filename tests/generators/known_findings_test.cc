// Every case file in known_findings/ loads: the regression list stays
// replayable as the case format evolves.

#include <gtest/gtest.h>

#include <filesystem>

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
    EXPECT_TRUE(std::filesystem::exists(entry.path() / "repro.py"))
        << entry.path();
    ++cases;
  }
  EXPECT_GE(cases, 9);
}

}  // namespace
}  // namespace dpfuzz
