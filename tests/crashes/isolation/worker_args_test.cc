#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "crashes/isolation/worker.h"
#include "crashes/isolation/worker_process.h"

namespace dpfuzz {
namespace {

TEST(WorkerArgsTest, ConfigRoundTripsDeviceIncluded) {
  WorkerConfig config;
  config.slot_path = "/tmp/slot";
  config.case_out = "/tmp/case.json";
  config.alias_one_in = 0;
  config.check_grad = false;
  config.device = Device::kCuda;
  config.libraries = {"/tmp/libops.so"};
  absl::StatusOr<WorkerConfig> back = ParseWorkerArgs(WorkerArgs(config));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->slot_path, config.slot_path);
  EXPECT_EQ(back->case_out, config.case_out);
  EXPECT_EQ(back->alias_one_in, 0);
  EXPECT_FALSE(back->check_grad);
  EXPECT_EQ(back->device, Device::kCuda);
  EXPECT_EQ(back->libraries, config.libraries);
  // Drawn cases are on the CPU unless asked.
  EXPECT_EQ(ParseWorkerArgs({"--slot=/tmp/s"})->device, Device::kCpu);
}

// This test binary's main is GoogleTest's, not DpfuzzMain: workers of it
// would run every test again (and start workers of their own), so it has
// none to offer. Tests name dpfuzz_planted instead.
TEST(WorkerArgsTest, OnlyDpfuzzMainOffersItselfAsAWorker) {
  const absl::StatusOr<std::string> self = SelfExecutable();
  ASSERT_FALSE(self.ok());
  EXPECT_THAT(std::string(self.status().message()),
              ::testing::HasSubstr("does not run dpfuzz workers"));
  MarkSelfAsWorkerExecutable();
  EXPECT_TRUE(SelfExecutable().ok());
}

TEST(WorkerArgsTest, BadDeviceIsAnError) {
  absl::StatusOr<WorkerConfig> bad =
      ParseWorkerArgs({"--slot=/tmp/s", "--device=gpu"});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              ::testing::HasSubstr("unknown device \"gpu\""));
}

}  // namespace
}  // namespace dpfuzz
