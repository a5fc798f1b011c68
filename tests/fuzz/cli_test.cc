#include "fuzz/cli.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "fuzz/replay.h"
#include "generators/aten_bridge.h"
#include "generators/case_json.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

using ::testing::HasSubstr;

absl::StatusOr<CommandLine> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "dpfuzz");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return ParseCommandLine(static_cast<int>(argv.size()), argv.data());
}

class CliTest : public ::testing::Test {
 protected:
  absl::FlagSaver saver_;  // Each test starts from the default flags.
};

TEST_F(CliTest, ParsesFlagsBothWays) {
  ASSERT_TRUE(Parse({"--op=masked_select", "--runs", "10", "--nograd",
                     "--dtypes=f32,i64"})
                  .ok());
  absl::StatusOr<CampaignOptions> o = CampaignOptionsFromFlags();
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->runs, 10);
  EXPECT_FALSE(o->isolation.worker.check_grad);
  ASSERT_EQ(o->ops.size(), 1u);
  EXPECT_EQ(o->ops[0]->op, "aten::masked_select");
  EXPECT_EQ(o->dtypes, (std::vector<DType>{DType::kFloat32, DType::kInt64}));
  EXPECT_EQ(o->max_time_seconds, 60);
  // Cases run isolated, so aliasing (which can corrupt the heap) is on.
  EXPECT_GT(o->isolation.worker.alias_one_in, 0);
  EXPECT_EQ(o->isolation.jobs, 1);
}

TEST_F(CliTest, HelpAndPositionals) {
  absl::StatusOr<CommandLine> cl = Parse({"--help", "list-ops"});
  ASSERT_TRUE(cl.ok());
  EXPECT_TRUE(cl->help);
  EXPECT_EQ(cl->positional, std::vector<std::string>{"list-ops"});
  EXPECT_THAT(UsageText(), HasSubstr("--max_time"));
  absl::StatusOr<std::string> list = ListOpsText();
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(*list, HasSubstr("aten::masked_select\tcurated\tindexing"));
}

// Every usage error is one clear line naming the flag and the value.
TEST_F(CliTest, UsageErrorsNameTheFlag) {
  EXPECT_THAT(std::string(Parse({"--bogus"}).status().message()),
              HasSubstr("unknown flag --bogus"));
  EXPECT_THAT(std::string(Parse({"--runs=many"}).status().message()),
              HasSubstr("flag --runs=many"));
  EXPECT_THAT(std::string(Parse({"--op"}).status().message()),
              HasSubstr("flag --op needs a value"));
  EXPECT_THAT(std::string(Parse({"--nograd=1"}).status().message()),
              HasSubstr("unknown flag --nograd"));
  struct Bad {
    std::vector<std::string> args;
    const char* error;
  };
  const std::string file = ::testing::TempDir() + "/cli_test_findings_file";
  std::ofstream(file) << "x";
  const std::vector<Bad> bad = {
      {{}, "no op given"},
      {{"--op=no_such_op"}, "no op \"no_such_op\""},
      {{"--op=add", "--dtypes=float"},
       "flag --dtypes: unknown dtype \"float\""},
      {{"--op=add", "--runs=-1"}, "flag --runs=-1: must be >= 0"},
      {{"--op=add", "--max_time=soon"},
       "flag --max_time=soon: expected seconds"},
      {{"--op=add", "--findings=" + file}, "exists and is not a directory"},
  };
  for (const Bad& b : bad) {
    absl::FlagSaver saver;
    ASSERT_TRUE(Parse(b.args).ok());
    absl::StatusOr<CampaignOptions> o = CampaignOptionsFromFlags();
    ASSERT_FALSE(o.ok()) << b.error;
    EXPECT_THAT(std::string(o.status().message()), HasSubstr(b.error));
  }
}

TEST_F(CliTest, DeviceFlag) {
  ASSERT_TRUE(Parse({"--op=add"}).ok());
  absl::StatusOr<CampaignOptions> o = CampaignOptionsFromFlags();
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->isolation.worker.device, Device::kCpu);
  {
    absl::FlagSaver saver;
    ASSERT_TRUE(Parse({"--op=add", "--device=tpu"}).ok());
    EXPECT_THAT(std::string(CampaignOptionsFromFlags().status().message()),
                HasSubstr("flag --device=tpu: unknown device \"tpu\""));
  }
  ASSERT_TRUE(Parse({"--op=add", "--device=cuda"}).ok());
  o = CampaignOptionsFromFlags();
  if (at::hasCUDA()) {
    ASSERT_TRUE(o.ok()) << o.status();
    EXPECT_EQ(o->isolation.worker.device, Device::kCuda);
  } else {
    // Refused before any worker starts: the flag, why, and the way out.
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(o.status().message());
    EXPECT_THAT(message, HasSubstr("flag --device=cuda: "));
    EXPECT_THAT(message, ::testing::AnyOf(HasSubstr("built without CUDA"),
                                          HasSubstr("sees no CUDA device")));
    EXPECT_THAT(message, HasSubstr("--device=cpu"));
  }
}

// A GPU campaign's finding read where CUDA cannot be used: replay, reduce
// and a repro that must run the case say so, rather than a worker dying on
// it; a CPU case runs.
TEST(CheckRunsHereTest, CudaCasesNeedCuda) {
  Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");
  const std::string path = testing::TempDir() + "/dpfuzz_cuda_case.json";
  PlaceOnDevice(c, Device::kCuda);
  ASSERT_TRUE(SaveCaseFile(c, path).ok());
  absl::StatusOr<ReplayItem> item = OneReplayItem("replay", {path});
  ASSERT_TRUE(item.ok()) << item.status();
  EXPECT_EQ(item->device, Device::kCuda);
  const absl::Status cuda = CheckRunsHere("replay", *item);
  if (at::hasCUDA()) {
    EXPECT_TRUE(cuda.ok()) << cuda;
  } else {
    EXPECT_EQ(cuda.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(std::string(cuda.message()),
                HasSubstr(absl::StrCat("replay: ", path, " runs on cuda: ")));
    EXPECT_THAT(std::string(cuda.message()),
                ::testing::AnyOf(HasSubstr("built without CUDA"),
                                 HasSubstr("sees no CUDA device")));
  }
  PlaceOnDevice(c, Device::kCpu);
  ASSERT_TRUE(SaveCaseFile(c, path).ok());
  item = OneReplayItem("replay", {path});
  ASSERT_TRUE(item.ok()) << item.status();
  EXPECT_TRUE(CheckRunsHere("replay", *item).ok());
}

// What a replay counts as the same bug depends on the finding's kind: a
// baseline that uses memory no one wrote may return garbage in one run and
// die in the next, where its heap corruption is noticed, perhaps after its
// call; a layout bug keeps its verdict.
TEST(ReplayTest, ABaselineFailureMayFailAnotherWay) {
  const Case c = LoadKnownCase("nested_select-negative-dim-garbage-offsets");
  CaseOutcome garbage;
  garbage.verdict = Verdict::kLayoutContract;
  garbage.kind = FindingKind::kBaselineFailure;
  CaseOutcome died = garbage;
  died.verdict = Verdict::kCrash;
  EXPECT_TRUE(ShowsSameBug(MakeFinding(c, garbage), MakeFinding(c, died)));
  CaseOutcome layout_garbage = garbage, layout_died = died;
  layout_garbage.kind = layout_died.kind = FindingKind::kLayoutBug;
  EXPECT_FALSE(ShowsSameBug(MakeFinding(c, layout_garbage),
                            MakeFinding(c, layout_died)));
  EXPECT_TRUE(
      ShowsSameBug(MakeFinding(c, garbage), MakeFinding(c, layout_died)));
  // A baseline that works now, and a layout that gives wrong values: another
  // bug.
  CaseOutcome wrong_values = layout_garbage;
  wrong_values.verdict = Verdict::kMismatch;
  EXPECT_FALSE(
      ShowsSameBug(MakeFinding(c, garbage), MakeFinding(c, wrong_values)));
  EXPECT_TRUE(
      ShowsSameBug(MakeFinding(c, layout_died), MakeFinding(c, layout_died)));
}

TEST(ParseSecondsTest, NumbersAndDurations) {
  EXPECT_EQ(*ParseSeconds("max_time", "60"), 60);
  EXPECT_EQ(*ParseSeconds("max_time", "1.5"), 1.5);
  EXPECT_EQ(*ParseSeconds("max_time", "90s"), 90);
  EXPECT_EQ(*ParseSeconds("max_time", "1h"), 3600);
  EXPECT_FALSE(ParseSeconds("max_time", "-5").ok());
  EXPECT_FALSE(ParseSeconds("max_time", "1 hour").ok());
}

}  // namespace
}  // namespace dpfuzz
