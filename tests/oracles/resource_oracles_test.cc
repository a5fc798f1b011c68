// The resource oracles (oracles/resource_checks.h) on the planted_cost ops:
// each wrong one is found with its verdict, the right ones never, and the
// value oracles alone find none of them (their values are right).

#include "oracles/resource_oracles.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "generators/op_registry.h"
#include "generators/rng.h"
#include "oracles/case_builder.h"
#include "oracles/counting_allocator.h"
#include "oracles/run_case.h"
#include "tests/crashes/known_case.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

TEST(CountingAllocatorTest, CountsWhatIsAllocatedUntilItIsFreed) {
  InstallCountingCpuAllocator();
  ASSERT_TRUE(CountingCpuAllocatorInstalled());
  const int64_t before = CpuAllocatedBytes();
  ResetCpuPeakBytes();
  {
    const at::Tensor a = at::empty({1000}, at::kFloat);
    EXPECT_EQ(CpuAllocatedBytes() - before, 4000);
    { const at::Tensor b = at::empty({500}, at::kDouble); }
    EXPECT_EQ(CpuAllocatedBytes() - before, 4000);
  }
  EXPECT_EQ(CpuAllocatedBytes(), before);
  EXPECT_EQ(CpuPeakBytes() - before, 8000);
  ResetCpuPeakBytes();
  EXPECT_EQ(CpuPeakBytes(), before);
}

TEST(ResourceOraclesTest, ParsesTheListAndNamesWhatItRefuses) {
  absl::StatusOr<ResourceOracles> some = ParseOracleList("leak, perf");
  ASSERT_TRUE(some.ok()) << some.status();
  EXPECT_TRUE(some->leak && some->perf && !some->memory);
  EXPECT_EQ(OracleList(*some), "leak,perf");
  EXPECT_EQ(OracleList(*ParseOracleList("all")), "leak,memory,perf");
  EXPECT_FALSE(ParseOracleList("")->any());
  const absl::StatusOr<ResourceOracles> bad = ParseOracleList("leak,speed");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("\"speed\""), std::string::npos);
}

// Verdicts of up to `cases` cases of `spec` from `seed`, stopping at the
// first of `stop_at`.
std::map<Verdict, int> Fuzz(const OpSpec& spec, int cases, uint64_t seed,
                            const ResourceOracles& oracles,
                            std::optional<Verdict> stop_at,
                            std::string* first_finding) {
  std::map<Verdict, int> verdicts;
  Rng rng(seed);
  for (int run = 0, attempt = 0; run < cases && attempt < 4 * cases;
       ++attempt) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(spec, DType::kFloat32, Variant::kFunctional, rng.Next());
    EXPECT_TRUE(c.ok()) << c.status();
    if (!c.ok() || !c->has_value()) continue;
    absl::StatusOr<CaseOutcome> o = RunCase(spec, **c, std::nullopt, oracles);
    EXPECT_TRUE(o.ok()) << o.status();
    if (!o.ok()) continue;
    ++run;
    ++verdicts[o->verdict];
    if (IsFinding(o->verdict)) {
      // Each finding carries its measurement for finding.json.
      EXPECT_FALSE(o->evidence.measured.empty()) << o->evidence.detail;
    }
    if (o->verdict == Verdict::kPerfCliff) {
      // A cliff holds at two sizes, the case scaled up.
      std::map<std::string, double>& m = o->evidence.measured;
      EXPECT_GE(m["scale"], 2) << o->evidence.detail;
      EXPECT_GT(m["ratio"], oracles.perf_ratio) << o->evidence.detail;
      EXPECT_GT(m["ratio_at_half_scale"], oracles.perf_ratio)
          << o->evidence.detail;
    }
    if (IsFinding(o->verdict) && first_finding->empty()) {
      *first_finding =
          absl::StrCat(VerdictName(o->verdict), ": ", o->evidence.detail, "\n",
                       CaseToString(**c));
    }
    if (stop_at == o->verdict) break;
  }
  return verdicts;
}

ResourceOracles AllOn() {
  InstallCountingCpuAllocator();
  return *ParseOracleList("all");
}

class CostOpTest : public ::testing::TestWithParam<PlantedOp> {};

TEST_P(CostOpTest, FoundWithItsVerdictByItsOracleOnly) {
  const PlantedOp& planted = GetParam();
  std::string first;
  std::map<Verdict, int> on =
      Fuzz(planted.spec, 300, 1, AllOn(), planted.expected, &first);
  EXPECT_GE(on[planted.expected], 1)
      << planted.spec.op << " never gave " << VerdictName(planted.expected)
      << "; first finding: " << first;
  for (const auto& [verdict, n] : on) {
    if (IsFinding(verdict)) {
      EXPECT_EQ(verdict, planted.expected) << first;
    }
  }
  std::string off_first;
  std::map<Verdict, int> off =
      Fuzz(planted.spec, 300, 1, ResourceOracles(), std::nullopt, &off_first);
  EXPECT_EQ(off[Verdict::kAgree], 300) << off_first;
}

INSTANTIATE_TEST_SUITE_P(Cost, CostOpTest, ::testing::ValuesIn([] {
                           std::vector<PlantedOp> wrong;
                           for (const PlantedOp& op : PlantedCostOps()) {
                             if (op.expected != Verdict::kAgree)
                               wrong.push_back(op);
                           }
                           return wrong;
                         }()),
                         [](const ::testing::TestParamInfo<PlantedOp>& info) {
                           return info.param.spec.op.substr(
                               info.param.spec.op.find(':') + 2);
                         });

// A real LibTorch leak (known_findings/vander-requires-grad-leaks-its-graph):
// every layout leaks, so the arguments do, not a layout.
TEST(ResourceOraclesTest, VanderLeaksOnEveryLayoutABaselineFailure) {
  InstallCountingCpuAllocator();
  const Case c = LoadKnownCase("vander-requires-grad-leaks-its-graph");
  const OpSpec* spec = FindOpFor(c);
  ASSERT_NE(spec, nullptr);
  absl::StatusOr<CaseOutcome> o =
      RunCase(*spec, c, std::nullopt, *ParseOracleList("leak"));
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->verdict, Verdict::kLeak) << o->evidence.detail;
  EXPECT_EQ(o->kind, FindingKind::kBaselineFailure);
  absl::StatusOr<CaseOutcome> off = RunCase(*spec, c);
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_EQ(off->verdict, Verdict::kAgree);
}

// A cache built once, one contiguous copy of a strided input, an expanded
// input materialized once: what a layout may cost.
TEST(CostOpTest, WhatALayoutMayCostIsNoFinding) {
  for (const PlantedOp& planted : PlantedCostOps()) {
    if (planted.expected != Verdict::kAgree) continue;
    std::string first;
    std::map<Verdict, int> verdicts =
        Fuzz(planted.spec, 1000, 2, AllOn(), std::nullopt, &first);
    EXPECT_EQ(verdicts[Verdict::kAgree], 1000)
        << planted.spec.op << ": " << first;
  }
}

}  // namespace
}  // namespace dpfuzz
