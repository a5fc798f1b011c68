#include "tests/crashes/known_case.h"

#include <filesystem>

#include "generators/case_json.h"
#include "gtest/gtest.h"

namespace dpfuzz {

std::string KnownCasePath(const std::string& name) {
  return (std::filesystem::path(DPFUZZ_SOURCE_DIR) / "known_findings" / name /
          "case.json")
      .string();
}

Case LoadKnownCase(const std::string& name) {
  absl::StatusOr<Case> c = LoadCaseFile(KnownCasePath(name));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : Case{};
}

}  // namespace dpfuzz
