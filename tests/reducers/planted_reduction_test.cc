// Every planted-bug op, found by drawing cases and reduced with candidates
// run in isolated workers (the dpfuzz_planted binary, which knows the
// planted ops): each reduced case has exactly the rank, sizes and layout
// that its bug needs, stated per op below.

#include <map>

#include "generators/case_json.h"
#include "generators/op_registry.h"
#include "gtest/gtest.h"
#include "reducers/isolated_runner.h"
#include "reducers/reducer.h"
#include "tests/planted/first_finding.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

constexpr int kMaxSeeds = 300;

struct Expected {
  // Of every tensor: arguments (self, then out), then grad_outputs.
  std::vector<StridedLayout> layouts;
  const char* why;
};

const StridedLayout kScalar{{}, {}, 0};
// 2 elements with a gap between them: the least storage of the natural
// layouts (stride 0 would need less, but costs more: Note [Natural
// triggers]).
const StridedLayout kSliced{{2}, {2}, 0};

// Why each is minimal: no unnatural layout unless needed, then the fewest
// elements, then the least storage, then the lowest rank that still shows
// the bug (reducers/case_order.h).
const std::map<std::string, Expected>& ExpectedReductions() {
  static const auto* m = new std::map<std::string, Expected>{
      {"planted::segv_neg",
       {{kSliced}, "non-contiguous with 2 elements: a slice with step 2"}},
      {"planted::abort_neg",
       {{{{}, {}, 1}}, "a storage offset of 1; no dims needed"}},
      {"planted::hang_neg",
       {{kSliced}, "not non-overlapping-and-dense: a gap"}},
      {"planted::hog_neg",
       {{{{2, 2}, {1, 2}, 0}}, "dense but not contiguous: a 2x2 transpose"}},
      {"planted::picky_neg",
       {{kSliced}, "non-contiguous: the cheapest natural one is a slice"}},
      {"planted::cl_scramble",
       {{{{2, 2}, {1, 2}, 0}},
        "a dense permuted input that empty_like keeps, filled in the wrong "
        "order: a 2x2 transpose"}},
      {"planted::flat_neg",
       {{kSliced},
        "reads element 1 from data_ptr(): the gap of a sliced storage, "
        "poison"}},
      {"planted::asserting_neg",
       {{{{}, {}, 1}}, "asserts offset 0: a 0-dim tensor at offset 1"}},
      {"planted::sneaky_neg",
       {{kSliced}, "rewrites any non-contiguous input: a slice"}},
      {"planted::flat_fill_one",
       {{kSliced},
        "writes numel() elements from data_ptr(): into the gap of a sliced "
        "storage"}},
      {"planted::realloc_neg",
       {{kScalar, kScalar}, "any out= is replaced: 0-dim self and out"}},
      {"planted::bad_grad_double",
       {{kScalar, {{}, {}, 1}},
        "reads grad_output from the start of its storage: a 0-dim "
        "grad_output at offset 1"}},
  };
  return *m;
}

class PlantedReductionTest : public testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { AddOps(AllPlantedSpecs()); }
};

TEST_P(PlantedReductionTest, ReducesToWhatTheBugNeeds) {
  const OpSpec* spec = FindOp(GetParam());
  ASSERT_NE(spec, nullptr);
  SupervisorOptions isolation;
  isolation.executable = DPFUZZ_PLANTED_BINARY;
  // hog_neg must reach the memory limit before the time limit: on a loaded
  // machine touching 512 MB took more than 1 s, and its oom became a
  // timeout on re-runs (flaky).
  isolation.timeout_seconds = GetParam() == "planted::hog_neg" ? 10 : 1;
  isolation.rss_limit_mb = 512;
  absl::StatusOr<std::unique_ptr<IsolatedRunner>> runner =
      IsolatedRunner::Start(isolation);
  ASSERT_TRUE(runner.ok()) << runner.status();
  absl::StatusOr<std::optional<Finding>> found = FirstFinding(
      *spec, [&](const Case& c) { return (*runner)->Run(c); }, kMaxSeeds);
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value()) << "no finding in " << kMaxSeeds << " seeds";
  ReduceOptions options;
  options.verify = [&](const Case& c) { return (*runner)->RunFresh(c); };
  const ReduceResult r = Reduce(
      **found, [&](const Case& c) { return (*runner)->Run(c); }, options);
  EXPECT_FALSE(r.flaky);
  EXPECT_TRUE(r.verified);
  EXPECT_FALSE(r.budget_exhausted);
  std::vector<StridedLayout> layouts;
  for (const TensorSpec* t : TensorSpecsOf(r.reduced))
    layouts.push_back(t->layout);
  for (const TensorSpec& g : r.reduced.grad_outputs)
    layouts.push_back(g.layout);
  std::cout << GetParam() << ": " << r.calls << " calls, " << r.seconds
            << " s\n";
  const auto expected = ExpectedReductions().find(GetParam());
  ASSERT_NE(expected, ExpectedReductions().end());
  EXPECT_EQ(layouts, expected->second.layouts) << expected->second.why << "\n"
                                               << CaseToJson(r.reduced);
  EXPECT_EQ(r.finding.outcome.verdict, (*found)->outcome.verdict);
}

INSTANTIATE_TEST_SUITE_P(
    Planted, PlantedReductionTest,
    testing::Values("planted::segv_neg", "planted::abort_neg",
                    "planted::hang_neg", "planted::hog_neg",
                    "planted::picky_neg", "planted::cl_scramble",
                    "planted::flat_neg", "planted::asserting_neg",
                    "planted::sneaky_neg", "planted::flat_fill_one",
                    "planted::realloc_neg", "planted::bad_grad_double"),
    [](const testing::TestParamInfo<std::string>& info) {
      return info.param.substr(info.param.find("::") + 2);
    });

}  // namespace
}  // namespace dpfuzz
