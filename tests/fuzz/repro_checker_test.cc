#include "fuzz/repro_checker.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "crashes/findings/finding.h"
#include "crashes/repro/python_repro_check.h"
#include "gtest/gtest.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;

TEST(PythonReproCheckTest, ReleaseNumbersDecideTheMatch) {
  EXPECT_EQ(ReleaseOf("1.13.0a0"), "1.13.0");
  EXPECT_EQ(ReleaseOf("2.5.1+cu124"), "2.5.1");
  EXPECT_EQ(ReleaseOf("1.13.0"), "1.13.0");
  EXPECT_EQ(ReleaseOf("1.13."), "1.13");
  EXPECT_EQ(ReleaseOf("abc"), "");
}

// Scripts that stand for repros: the checker runs each with the system's
// Python and records what its exit status means in finding.json.
TEST(ReproCheckerTest, RecordsWhatEachReproSays) {
  if (ReleaseOf(ReproPythonTorchVersion()) != ReleaseOf(LibTorchVersion())) {
    GTEST_SKIP() << kReproPython << " has no torch " << LibTorchVersion();
  }
  const fs::path root = fs::path(testing::TempDir()) /
                        absl::StrCat("dpfuzz_checker_", ::getpid());
  fs::remove_all(root);
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(root.string());
  ASSERT_TRUE(store.ok()) << store.status();
  const std::map<std::string, std::string> scripts = {
      {"shows", "import sys; sys.exit(1)"},
      {"fixed", "import sys; sys.exit(0)"},
      {"broken", "import sys; sys.exit(2)"},
      {"dies", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"}};
  ReproChecker checker(*store);
  auto write = [&](const std::string& name, const std::string& script) {
    fs::create_directories(root / name);
    std::ofstream(root / name / "finding.json") << R"({"hits": 1})";
    std::ofstream(root / name / "repro.py") << script << "\n";
  };
  // Checks run one at a time: while this one runs, the others wait in the
  // queue, where a second Enqueue of the same directory is dropped. (One
  // enqueued again while its check runs is checked again: its files may
  // have changed since.)
  write("first", "import time; time.sleep(2)");
  checker.Enqueue((root / "first").string());
  for (const auto& [name, script] : scripts) {
    write(name, script);
    checker.Enqueue((root / name).string());
    checker.Enqueue((root / name).string());  // Queued once.
  }
  EXPECT_EQ(checker.Finish(600), 0u);
  EXPECT_EQ(checker.TakeDone().size(), scripts.size() + 1);
  const std::map<std::string, std::pair<bool, std::string>> want = {
      {"shows", {true, "reproduces"}},
      {"fixed", {false, "does not reproduce"}},
      {"broken", {false, "failed: exit 2"}},
      {"dies", {true, "reproduces"}}};
  for (const auto& [name, expected] : want) {
    absl::StatusOr<std::string> text =
        ReadFile((root / name / "finding.json").string(), "finding");
    ASSERT_TRUE(text.ok()) << text.status();
    const nlohmann::json j = nlohmann::json::parse(*text);
    EXPECT_EQ(j["hits"], 1) << name;
    EXPECT_EQ(j["python_repro"]["ran"], true) << name;
    EXPECT_EQ(j["python_repro"]["reproduces"], expected.first) << name;
    EXPECT_EQ(j["python_repro"]["result"], expected.second) << name;
  }
  fs::remove_all(root);
}

TEST(ReproCheckerTest, FinishDropsWhatIsNotStarted) {
  const fs::path root = fs::path(testing::TempDir()) /
                        absl::StrCat("dpfuzz_checker_drop_", ::getpid());
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(root.string());
  ASSERT_TRUE(store.ok());
  ReproChecker checker(*store);
  for (int i = 0; i < 50; ++i)
    checker.Enqueue((root / std::to_string(i)).string());
  const size_t dropped = checker.Finish(0);
  EXPECT_EQ(dropped + checker.TakeDone().size(), 50u);
  EXPECT_EQ(checker.Pending(), 0u);
  fs::remove_all(root);
}

// A repro that runs long (a timeout finding's repro.py hangs until its
// limit) does not hold the end of a campaign: Finish kills its Python and
// records that it was not run.
TEST(ReproCheckerTest, FinishCutsTheRunningCheckShort) {
  if (ReleaseOf(ReproPythonTorchVersion()) != ReleaseOf(LibTorchVersion())) {
    GTEST_SKIP() << kReproPython << " has no torch " << LibTorchVersion();
  }
  const fs::path root = fs::path(testing::TempDir()) /
                        absl::StrCat("dpfuzz_checker_cut_", ::getpid());
  fs::remove_all(root);
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(root.string());
  ASSERT_TRUE(store.ok()) << store.status();
  fs::create_directories(root / "hangs");
  std::ofstream(root / "hangs" / "finding.json") << R"({"hits": 1})";
  std::ofstream(root / "hangs" / "repro.py") << "import time; time.sleep(60)\n";
  ReproChecker checker(*store);
  checker.Enqueue((root / "hangs").string());
  // Let the check start its Python, then end with no time to wait.
  ::sleep(1);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(checker.Finish(0), 0u);
  EXPECT_LT(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count(),
      10);
  const std::vector<ReproCheckDone> done = checker.TakeDone();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].result, kCheckCutShort);
  absl::StatusOr<std::string> text =
      ReadFile((root / "hangs" / "finding.json").string(), "finding");
  ASSERT_TRUE(text.ok()) << text.status();
  const nlohmann::json j = nlohmann::json::parse(*text);
  EXPECT_EQ(j["python_repro"]["ran"], false);
  EXPECT_EQ(j["python_repro"]["result"], kCheckCutShort);
  fs::remove_all(root);
}

}  // namespace
}  // namespace dpfuzz
