// The supervisor with dpfuzz_planted workers: every ticket comes back
// exactly once, batched, and a worker that dies in the middle of a batch
// costs the case it died on and nothing else (Note [Batched reports]).

#include "crashes/isolation/supervisor.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/files.h"
#include "generators/geometry.h"
#include "generators/op_registry.h"
#include "gtest/gtest.h"
#include "oracles/case_builder.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

class SupervisorTest : public testing::Test {
 protected:
  static void SetUpTestSuite() { AddOps(AllPlantedSpecs()); }
};

// Draw tickets of `op` (f32, functional) whose cases satisfy `want`, as the
// workers will build them.
std::vector<Ticket> TicketsWhere(const std::string& op, size_t n,
                                 const std::function<bool(const Case&)>& want) {
  const OpSpec* spec = FindOp(op);
  EXPECT_NE(spec, nullptr) << op;
  std::vector<Ticket> tickets;
  for (uint64_t seed = 1; spec != nullptr && tickets.size() < n && seed < 1000;
       ++seed) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(*spec, DType::kFloat32, Variant::kFunctional, seed);
    if (c.ok() && c->has_value() && want(**c)) {
      tickets.push_back(
          DrawTicket(op, DType::kFloat32, Variant::kFunctional, seed));
    }
  }
  EXPECT_EQ(tickets.size(), n) << op;
  return tickets;
}

struct Ran {
  std::vector<TicketResult> results;
  int64_t worker_deaths = -1;
};

// Submits all to a fresh supervisor (before the first Poll: its first
// batch holds the first four) and polls until each has come back.
Ran RunAll(const std::vector<Ticket>& tickets) {
  SupervisorOptions options;
  options.executable = DPFUZZ_PLANTED_BINARY;
  options.timeout_seconds = 30;
  absl::StatusOr<std::unique_ptr<Supervisor>> supervisor =
      Supervisor::Start(options);
  EXPECT_TRUE(supervisor.ok()) << supervisor.status();
  Ran ran;
  if (!supervisor.ok()) return ran;
  for (const Ticket& t : tickets) (*supervisor)->Submit(t);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while ((*supervisor)->Outstanding() > 0 &&
         std::chrono::steady_clock::now() < deadline) {
    const absl::Status s = (*supervisor)->Poll(0.05, ran.results);
    EXPECT_TRUE(s.ok()) << s;
    if (!s.ok()) break;
  }
  EXPECT_EQ((*supervisor)->Outstanding(), 0u);
  ran.worker_deaths = (*supervisor)->worker_deaths();
  // Each ticket came back exactly once.
  std::map<std::pair<std::string, uint64_t>, int> returns;
  for (const TicketResult& r : ran.results) {
    ++returns[{r.ticket.op, r.ticket.seed}];
  }
  EXPECT_EQ(ran.results.size(), tickets.size());
  for (const Ticket& t : tickets) {
    EXPECT_EQ((returns[{t.op, t.seed}]), 1) << TicketToString(t);
  }
  return ran;
}

void ExpectRanAndAgreed(const TicketResult& r) {
  EXPECT_EQ(r.kind, TicketResult::Kind::kRan) << TicketToString(r.ticket);
  EXPECT_EQ(r.verdict, Verdict::kAgree) << TicketToString(r.ticket);
}

TEST_F(SupervisorTest, ManyCasesComeBackOnceEach) {
  const Ran ran = RunAll(
      TicketsWhere("planted::good_neg", 300, [](const Case&) { return true; }));
  for (const TicketResult& r : ran.results) {
    ExpectRanAndAgreed(r);
    // What each cost its worker: the op schedule weighs ops by it.
    EXPECT_GT(r.seconds, 0) << TicketToString(r.ticket);
    EXPECT_LT(r.seconds, 30) << TicketToString(r.ticket);
  }
  EXPECT_EQ(ran.worker_deaths, 0);
}

// Note [Batch sizes]: a fresh worker's first batches hold four tickets;
// the supervisor takes two batches for it and sends both at once, so the
// worker finds its next batch in its pipe when it finishes one.
TEST_F(SupervisorTest, AWorkerIsSentItsNextBatchBeforeItNeedsIt) {
  SupervisorOptions options;
  options.executable = DPFUZZ_PLANTED_BINARY;
  absl::StatusOr<std::unique_ptr<Supervisor>> supervisor =
      Supervisor::Start(options);
  ASSERT_TRUE(supervisor.ok()) << supervisor.status();
  const std::vector<Ticket> tickets =
      TicketsWhere("planted::good_neg", 20, [](const Case&) { return true; });
  size_t submitted = 0;
  while ((*supervisor)->HasRoom()) (*supervisor)->Submit(tickets[submitted++]);
  EXPECT_EQ(submitted, 8u);
  std::vector<TicketResult> results;
  ASSERT_TRUE((*supervisor)->Poll(0, results).ok());
  EXPECT_EQ((*supervisor)->Waiting(), 0u);
  while ((*supervisor)->Outstanding() > 0) {
    ASSERT_TRUE((*supervisor)->Poll(0.05, results).ok());
  }
  EXPECT_EQ(results.size(), 8u);
}

// segv_neg dies on a non-contiguous input of more than one element. The
// first batch holds two cases that ran before it, whose reports die with
// the worker, and one it never began; the second batch is sent before the
// death.
TEST_F(SupervisorTest, ADeathInABatchNamesItsCaseAndTheRestRunOnce) {
  const std::vector<Ticket> good =
      TicketsWhere("planted::good_neg", 5, [](const Case&) { return true; });
  const std::vector<Ticket> deadly =
      TicketsWhere("planted::segv_neg", 1, [](const Case& c) {
        const StridedLayout& self = TensorSpecsOf(c).front()->layout;
        return ComputeNumel(self.sizes) > 1 &&
               !ComputeIsContiguous(self.sizes, self.strides);
      });
  ASSERT_EQ(good.size(), 5u);
  ASSERT_EQ(deadly.size(), 1u);
  const Ran ran =
      RunAll({good[0], good[1], deadly[0], good[2], good[3], good[4]});
  for (const TicketResult& r : ran.results) {
    if (!(r.ticket == deadly[0])) {
      ExpectRanAndAgreed(r);
      continue;
    }
    EXPECT_EQ(r.kind, TicketResult::Kind::kCulprit);
    EXPECT_EQ(r.verdict, Verdict::kCrash);
    EXPECT_GT(r.seconds, 0);  // Its run alone, at least.
    ASSERT_TRUE(r.finding.has_value());
    EXPECT_EQ(r.finding->c.op, "planted::segv_neg");
  }
  EXPECT_EQ(ran.worker_deaths, 1);
}

// Its workers' slots and case files live in a directory of its own under
// TMPDIR, which is gone, with all it held, once the supervisor is.
TEST_F(SupervisorTest, LeavesNothingInTmpdirWhenItEnds) {
  absl::StatusOr<std::string> tmp = MakeTempDirectory("dpfuzz-test-");
  ASSERT_TRUE(tmp.ok()) << tmp.status();
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", tmp->c_str(), 1);
  const Ran ran = RunAll(
      TicketsWhere("planted::good_neg", 3, [](const Case&) { return true; }));
  old != nullptr ? ::setenv("TMPDIR", saved.c_str(), 1) : ::unsetenv("TMPDIR");
  EXPECT_EQ(ran.results.size(), 3u);
  EXPECT_TRUE(std::filesystem::is_empty(*tmp));
  RemoveTree(*tmp);
  EXPECT_FALSE(std::filesystem::exists(*tmp));
}

}  // namespace
}  // namespace dpfuzz
