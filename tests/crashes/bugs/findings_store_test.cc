#include "crashes/bugs/findings_store.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "generators/case_json.h"
#include "gtest/gtest.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;

fs::path FreshDir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) /
                       absl::StrCat("dpfuzz_store_", name, "_", ::getpid());
  fs::remove_all(dir);
  return dir;
}

nlohmann::json FindingJsonIn(const std::string& dir) {
  absl::StatusOr<std::string> text = ReadFile(dir + "/finding.json", "finding");
  EXPECT_TRUE(text.ok()) << text.status();
  return nlohmann::json::parse(text.ok() ? *text : "{}");
}

TEST(FindingsStoreTest, ANewFindingGetsItsCaseEvidenceAndRepros) {
  const fs::path dir = FreshDir("new");
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(dir.string());
  ASSERT_TRUE(store.ok()) << store.status();
  const Finding f = TrilOutFinding(4);
  absl::StatusOr<Recorded> r = store->Record(f);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->is_new);
  EXPECT_TRUE(r->case_written);
  EXPECT_EQ(r->hits, 1);
  EXPECT_EQ(fs::path(r->path).parent_path(), dir);
  EXPECT_EQ(
      fs::path(r->path).filename().string().rfind("outside_write-tril-", 0), 0u)
      << r->path;
  for (const char* file : {"case.json", "finding.json", "repro.py", "repro.cc",
                           "CMakeLists.txt"}) {
    EXPECT_TRUE(fs::is_regular_file(fs::path(r->path) / file)) << file;
  }
  absl::StatusOr<Case> stored = LoadCaseFile(r->path + "/case.json");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_TRUE(*stored == f.c);
  const nlohmann::json j = FindingJsonIn(r->path);
  EXPECT_EQ(j["signature"], f.signature);
  EXPECT_EQ(j["verdict"], "outside_write");
  EXPECT_EQ(j["hits"], 1);
  EXPECT_FALSE(j.contains("repro_error"));
  fs::remove_all(dir);
}

// Repeated hits count; the smallest case is kept, with its evidence and
// the time its signature was first seen.
TEST(FindingsStoreTest, HitsCountAndTheSmallestCaseIsKept) {
  const fs::path dir = FreshDir("smaller");
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(dir.string());
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE(store->Record(TrilOutFinding(3), nullptr, 1.5).ok());
  absl::StatusOr<Recorded> bigger =
      store->Record(TrilOutFinding(4), nullptr, 2.5);
  ASSERT_TRUE(bigger.ok()) << bigger.status();
  EXPECT_FALSE(bigger->is_new);
  EXPECT_FALSE(bigger->case_written);
  EXPECT_EQ(FindingJsonIn(bigger->path)["evidence"]["detail"], "rows 3");
  EXPECT_EQ(FindingJsonIn(bigger->path)[kFirstSeenKey], 1.5);
  absl::StatusOr<Recorded> smaller =
      store->Record(TrilOutFinding(1), nullptr, 3.5);
  ASSERT_TRUE(smaller.ok()) << smaller.status();
  EXPECT_TRUE(smaller->case_written);
  EXPECT_EQ(smaller->hits, 3);
  EXPECT_EQ(smaller->path, bigger->path);
  const nlohmann::json j = FindingJsonIn(smaller->path);
  EXPECT_EQ(j["hits"], 3);
  EXPECT_EQ(j["evidence"]["detail"], "rows 1");
  EXPECT_EQ(j[kFirstSeenKey], 1.5);
  absl::StatusOr<Case> stored = LoadCaseFile(smaller->path + "/case.json");
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(*stored == TrilOutFinding(1).c);
  EXPECT_EQ(
      std::distance(fs::directory_iterator(dir), fs::directory_iterator()),
      2);  // The finding and .lock.
  fs::remove_all(dir);
}

// A reduced case (stored with its original) stays when a smaller case as
// found comes: the reducer's fixed point is the simpler by its whole
// order. A smaller reduced case replaces it.
TEST(FindingsStoreTest, AReducedCaseIsNotReplacedByOneAsFound) {
  const fs::path dir = FreshDir("reduced");
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(dir.string());
  ASSERT_TRUE(store.ok()) << store.status();
  const Case original = TrilOutFinding(6).c;
  ASSERT_TRUE(store->Record(TrilOutFinding(3), &original).ok());
  absl::StatusOr<Recorded> as_found = store->Record(TrilOutFinding(1));
  ASSERT_TRUE(as_found.ok()) << as_found.status();
  EXPECT_FALSE(as_found->case_written);
  EXPECT_EQ(FindingJsonIn(as_found->path)["hits"], 2);
  absl::StatusOr<Recorded> reduced =
      store->Record(TrilOutFinding(1), &original);
  ASSERT_TRUE(reduced.ok()) << reduced.status();
  EXPECT_TRUE(reduced->case_written);
  absl::StatusOr<Case> stored = LoadCaseFile(reduced->path + "/case.json");
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(*stored == TrilOutFinding(1).c);
  fs::remove_all(dir);
}

// Several stores over one directory (as several dpfuzz processes, or one
// after another) lose no hit and leave no half-written file.
TEST(FindingsStoreTest, ConcurrentStoresAndRestartsLoseNoHit) {
  const fs::path dir = FreshDir("shared");
  constexpr int kThreads = 4, kHitsEach = 6;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&dir, t] {
      absl::StatusOr<FindingsStore> store = FindingsStore::Open(dir.string());
      ASSERT_TRUE(store.ok()) << store.status();
      for (int i = 0; i < kHitsEach; ++i) {
        ASSERT_TRUE(store->Record(TrilOutFinding(1 + (t + i) % 4)).ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  absl::StatusOr<FindingsStore> later = FindingsStore::Open(dir.string());
  ASSERT_TRUE(later.ok());
  absl::StatusOr<Recorded> r = later->Record(TrilOutFinding(2));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->hits, kThreads * kHitsEach + 1);
  EXPECT_EQ(FindingJsonIn(r->path)["evidence"]["detail"], "rows 1");
  for (const fs::directory_entry& e : fs::directory_iterator(r->path)) {
    EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos)
        << e.path();
  }
  fs::remove_all(dir);
}

TEST(FindingsStoreTest, AnnotateAddsToFindingJson) {
  const fs::path dir = FreshDir("annotate");
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(dir.string());
  ASSERT_TRUE(store.ok());
  absl::StatusOr<Recorded> r = store->Record(TrilOutFinding(2));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(
      store->Annotate(r->path, "python_repro", {{"reproduces", true}}).ok());
  const nlohmann::json j = FindingJsonIn(r->path);
  EXPECT_EQ(j["python_repro"]["reproduces"], true);
  EXPECT_EQ(j["hits"], 1);
  EXPECT_FALSE(store->Annotate((dir / "nothing").string(), "k", 1).ok());
  fs::remove_all(dir);
}

// Hits counted elsewhere add up with those recorded one by one.
TEST(FindingsStoreTest, AddHitsAddsToTheCount) {
  const fs::path dir = FreshDir("add_hits");
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(dir.string());
  ASSERT_TRUE(store.ok());
  absl::StatusOr<Recorded> r = store->Record(TrilOutFinding(2));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(store->AddHits(r->path, 5).ok());
  EXPECT_EQ(FindingJsonIn(r->path)["hits"], 6);
  absl::StatusOr<Recorded> again = store->Record(TrilOutFinding(3));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->hits, 7);
  EXPECT_EQ(FindingJsonIn(r->path)["evidence"]["detail"], "rows 2");
  EXPECT_FALSE(store->AddHits((dir / "nothing").string(), 1).ok());
  fs::remove_all(dir);
}

TEST(FindingsStoreTest, ADirectoryThatIsAFileIsAnError) {
  const fs::path dir = FreshDir("file");
  std::ofstream(dir.string()) << "not a directory";
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(dir.string());
  EXPECT_FALSE(store.ok());
  fs::remove(dir);
}

}  // namespace
}  // namespace dpfuzz
