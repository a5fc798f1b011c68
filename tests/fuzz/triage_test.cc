#include "fuzz/triage.h"

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "crashes/bugs/evidence_order.h"
#include "generators/case_json.h"
#include "gtest/gtest.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;

int64_t StoredHits(const std::string& dir) {
  absl::StatusOr<std::string> text = ReadFile(dir + "/finding.json", "finding");
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? nlohmann::json::parse(*text)["hits"].get<int64_t>() : -1;
}

// A fresh findings store under the test's temporary directory.
fs::path FreshStoreDir(const std::string& name) {
  const fs::path root = fs::path(testing::TempDir()) /
                        absl::StrCat("dpfuzz_triage_", name, "_", ::getpid());
  fs::remove_all(root);
  return root;
}

// No worker: no reduction, no blame.
TriageOptions WithoutWorkers() {
  TriageOptions options;
  options.reduce = false;
  return options;
}

// Later hits of a stored finding are counted in memory and written
// together; a smaller case of it is written at once, with its count.
TEST(TriageTest, LaterHitsAreWrittenTogetherAndSmallerCasesAtOnce) {
  const fs::path root = FreshStoreDir("hits");
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(root.string());
  ASSERT_TRUE(store.ok()) << store.status();
  std::ostringstream log;
  std::optional<Triage> triage;
  triage.emplace(WithoutWorkers(), &*store, nullptr, log);

  triage->HandleFinding(TrilOutFinding(3), 0, 100);
  ASSERT_EQ(triage->bugs().size(), 1u) << log.str();
  const std::string dir = triage->bugs().begin()->second.dir;
  for (int i = 0; i < 3; ++i) triage->HandleFinding(TrilOutFinding(4), 0, 100);
  EXPECT_EQ(StoredHits(dir), 1);  // Counted, not yet written.
  triage->HandleFinding(TrilOutFinding(1), 0, 100);
  EXPECT_EQ(StoredHits(dir), 2);  // The smaller case, written at once.
  absl::StatusOr<std::string> finding =
      ReadFile(dir + "/finding.json", "finding");
  ASSERT_TRUE(finding.ok());
  EXPECT_NE(finding->find("rows 1"), std::string::npos) << *finding;
  triage->FlushHits();
  EXPECT_EQ(StoredHits(dir), 5);
  triage->HandleFinding(TrilOutFinding(2), 0, 100);
  triage.reset();  // Writes what it counted.
  EXPECT_EQ(StoredHits(dir), 6);
  fs::remove_all(root);
}

// A bug first seen with memory shared between arguments (a call PyTorch
// leaves undefined) is led by its first finding without, and one with
// special values (NaN, an integer's minimum) by its first finding without,
// which also replaces a smaller case of its signature that holds them
// (Note [The most ordinary lead]); an odder one never takes the lead back.
// Internal asserts, which are judged as found (no isolated run of the
// unshared twin, which this test binary could not start).
TEST(TriageTest, ALessOddFindingTakesTheLead) {
  const fs::path root = FreshStoreDir("lead");
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(root.string());
  ASSERT_TRUE(store.ok()) << store.status();
  std::ostringstream log;
  Triage triage(WithoutWorkers(), &*store, nullptr, log);
  const auto assert_in_tril = [](int64_t rows, bool aliased, bool nan) {
    Finding f = TrilOutFinding(rows);
    f.outcome.verdict = Verdict::kInternalAssert;
    if (aliased) f.c.aliases = {Alias{"out", "self"}};
    for (TensorSpec* t : AllTensorSpecsOf(f.c)) t->values.specials = 0;
    if (nan) AllTensorSpecsOf(f.c)[0]->values.specials = kAllSpecials;
    return MakeFinding(f.c, f.outcome);
  };
  const auto lead = [&triage]() { return triage.bugs().begin()->second.dir; };
  const auto lead_oddity = [&lead]() {
    absl::StatusOr<Case> c = LoadCaseFile(lead() + "/case.json");
    return c.ok() ? Oddity(*c) : -1;
  };
  triage.HandleFinding(assert_in_tril(3, true, false), 0, 100);
  ASSERT_EQ(triage.bugs().size(), 1u) << log.str();
  EXPECT_EQ(lead_oddity(), 2);
  triage.HandleFinding(assert_in_tril(4, false, true), 1, 100);
  ASSERT_EQ(triage.bugs().size(), 1u) << log.str();
  EXPECT_EQ(lead_oddity(), 1);
  const Finding clean = assert_in_tril(5, false, false);
  triage.HandleFinding(clean, 2, 100);
  ASSERT_EQ(triage.bugs().size(), 1u) << log.str();
  EXPECT_EQ(lead(), store->PathFor(clean));
  EXPECT_EQ(lead_oddity(), 0);
  triage.HandleFinding(assert_in_tril(2, true, false), 3, 100);
  triage.HandleFinding(assert_in_tril(1, false, true), 4, 100);
  EXPECT_EQ(lead(), store->PathFor(clean));
  EXPECT_EQ(lead_oddity(), 0);
  fs::remove_all(root);
}

// A timeout whose case did not time out again when re-run alone is load,
// not a hang: flaky, stored, no bug; one that did is a bug.
TEST(TriageTest, TimeoutsThatDoNotRecurAloneAreFlaky) {
  const fs::path root = FreshStoreDir("timeout");
  absl::StatusOr<FindingsStore> store = FindingsStore::Open(root.string());
  ASSERT_TRUE(store.ok()) << store.status();
  std::ostringstream log;
  Triage triage(WithoutWorkers(), &*store, nullptr, log);
  Finding timeout = TrilOutFinding(3);
  timeout.outcome.verdict = Verdict::kTimeout;
  timeout.signature = FindingSignature(timeout.c, Verdict::kTimeout);
  timeout.recurred_alone = false;
  triage.HandleFinding(timeout, 0, 100);
  EXPECT_EQ(triage.bugs().size(), 0u) << log.str();
  EXPECT_EQ(triage.counts().flaky, 1) << log.str();
  EXPECT_NE(log.str().find("FLAKY: "), std::string::npos) << log.str();
  timeout.recurred_alone = true;
  triage.HandleFinding(timeout, 0, 100);
  EXPECT_EQ(triage.bugs().size(), 1u) << log.str();
  fs::remove_all(root);
}

}  // namespace
}  // namespace dpfuzz
