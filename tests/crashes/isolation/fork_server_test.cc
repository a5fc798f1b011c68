// Workers forked from a fork server (Note [Forked workers]) are this
// process's children, run tickets and die as spawned workers do; a server
// that is gone leaves workers spawned afresh.

#include "crashes/isolation/fork_server.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "crashes/isolation/ticket_batch.h"
#include "crashes/isolation/worker_process.h"
#include "generators/geometry.h"
#include "generators/op_registry.h"
#include "gtest/gtest.h"
#include "oracles/case_builder.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

class ForkServerTest : public testing::Test {
 protected:
  static void SetUpTestSuite() { AddOps(AllPlantedSpecs()); }

  void SetUp() override {
    absl::StatusOr<std::string> dir = MakeTempDirectory("dpfuzz-fork-test-");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = *dir;
  }

  std::unique_ptr<WorkerProcess> StartWorker(ForkServer* server) {
    WorkerProcessOptions o;
    o.executable = DPFUZZ_PLANTED_BINARY;
    o.config.slot_path = absl::StrCat(dir_, "/worker-", started_++, ".slot");
    o.fork_server = server;
    absl::StatusOr<std::unique_ptr<WorkerProcess>> w = WorkerProcess::Start(o);
    EXPECT_TRUE(w.ok()) << w.status();
    return w.ok() ? std::move(*w) : nullptr;
  }

  std::string dir_;
  int started_ = 0;
};

// The command line a process was started with, its NULs as spaces.
std::string CommandLineOf(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/cmdline"));
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  for (char& c : text) c = c == '\0' ? ' ' : c;
  return text;
}

pid_t ParentOf(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  std::getline(in, line);
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::string state;
  pid_t parent = 0;
  fields >> state >> parent;
  return parent;
}

// The first f32 functional seed of `op` whose case satisfies `want`.
Ticket FirstTicketWhere(const std::string& op,
                        const std::function<bool(const Case&)>& want) {
  const OpSpec* spec = FindOp(op);
  for (uint64_t seed = 1; spec != nullptr && seed < 1000; ++seed) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(*spec, DType::kFloat32, Variant::kFunctional, seed);
    if (c.ok() && c->has_value() && want(**c)) {
      return DrawTicket(op, DType::kFloat32, Variant::kFunctional, seed);
    }
  }
  ADD_FAILURE() << "no case of " << op << " as wanted";
  return DrawTicket(op, DType::kFloat32, Variant::kFunctional, 1);
}

// Sends one ticket and waits (at most 60 s) for its report or the end of
// the worker's reports.
std::vector<absl::StatusOr<WorkerReport>> RunOne(WorkerProcess& w,
                                                 const Ticket& t) {
  absl::StatusOr<std::string> batch = EncodeBatch({{1, t}});
  EXPECT_TRUE(batch.ok()) << batch.status();
  EXPECT_TRUE(w.Send(*batch).ok());
  std::vector<absl::StatusOr<WorkerReport>> reports;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (reports.empty() && w.ReadAvailable(reports) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return reports;
}

TEST_F(ForkServerTest, ForkedWorkersAreOurChildrenAndRunTickets) {
  absl::StatusOr<std::unique_ptr<ForkServer>> server =
      ForkServer::Start(DPFUZZ_PLANTED_BINARY, /*malloc_check=*/false);
  ASSERT_TRUE(server.ok()) << server.status();
  std::unique_ptr<WorkerProcess> w = StartWorker(server->get());
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->pid(), (*server)->pid());
  EXPECT_EQ(ParentOf(w->pid()), ::getpid());
  EXPECT_NE(CommandLineOf(w->pid()).find(kForkServerCommand), std::string::npos)
      << CommandLineOf(w->pid());
  const Ticket good =
      FirstTicketWhere("planted::good_neg", [](const Case&) { return true; });
  const std::vector<absl::StatusOr<WorkerReport>> reports = RunOne(*w, good);
  ASSERT_EQ(reports.size(), 1u);
  ASSERT_TRUE(reports[0].ok()) << reports[0].status();
  EXPECT_EQ(reports[0]->kind, WorkerReport::Kind::kRan);
  EXPECT_EQ(reports[0]->verdict, Verdict::kAgree);
  w->CloseInput();
  const int status = w->Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// segv_neg dies on a non-contiguous input of more than one element, in a
// forked worker as in a spawned one, and the wait status says how.
TEST_F(ForkServerTest, ForkedWorkersDieAsSpawnedOnesDo) {
  const Ticket deadly =
      FirstTicketWhere("planted::segv_neg", [](const Case& c) {
        const StridedLayout& self = TensorSpecsOf(c).front()->layout;
        return ComputeNumel(self.sizes) > 1 &&
               !ComputeIsContiguous(self.sizes, self.strides);
      });
  absl::StatusOr<std::unique_ptr<ForkServer>> server =
      ForkServer::Start(DPFUZZ_PLANTED_BINARY, /*malloc_check=*/false);
  ASSERT_TRUE(server.ok()) << server.status();
  std::vector<int> statuses;
  for (ForkServer* s : {server->get(), static_cast<ForkServer*>(nullptr)}) {
    std::unique_ptr<WorkerProcess> w = StartWorker(s);
    ASSERT_NE(w, nullptr);
    EXPECT_TRUE(RunOne(*w, deadly).empty());  // It died before reporting.
    ASSERT_TRUE(w->InFlight().has_value());
    statuses.push_back(w->Wait());
  }
  ASSERT_TRUE(WIFSIGNALED(statuses[0])) << statuses[0];
  EXPECT_EQ(WTERMSIG(statuses[0]), SIGSEGV);
  EXPECT_EQ(statuses[0], statuses[1]);
}

TEST_F(ForkServerTest, WithoutItsServerAWorkerIsSpawned) {
  absl::StatusOr<std::unique_ptr<ForkServer>> server =
      ForkServer::Start(DPFUZZ_PLANTED_BINARY, /*malloc_check=*/false);
  ASSERT_TRUE(server.ok()) << server.status();
  ::kill((*server)->pid(), SIGKILL);
  std::unique_ptr<WorkerProcess> w = StartWorker(server->get());
  ASSERT_NE(w, nullptr);
  const Ticket good =
      FirstTicketWhere("planted::good_neg", [](const Case&) { return true; });
  ASSERT_EQ(RunOne(*w, good).size(), 1u);  // Its exec is done by now.
  EXPECT_NE(CommandLineOf(w->pid()).find(kWorkerCommand), std::string::npos)
      << CommandLineOf(w->pid());
}

}  // namespace
}  // namespace dpfuzz
