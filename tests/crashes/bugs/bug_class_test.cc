// Bug classes from real runs of the planted_class ops
// (tests/planted/class_ops.cc): the three out= kernels that share a helper
// writing `out` as if it were contiguous are one class of three bugs, the
// two kernels reading `self` in memory order another, the op whose wrong
// values nothing explains a class of its own; no class mixes them. Every
// case is run by RunCase, so the mechanisms are those the simulation finds.
// Crashes join only where their key names the function that died.

#include "crashes/bugs/bug_class.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "absl/strings/str_cat.h"
#include "crashes/bugs/bug_mechanism.h"
#include "generators/geometry.h"
#include "generators/op_args.h"
#include "generators/rng.h"
#include "oracles/run_case.h"
#include "tests/oracles/laid_argument.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// The findings of each planted_class op's buggy variant on a few layouts
// (transposed, with gaps, both; offsets), dtype float32, as stored.
std::vector<StoredFinding> ClassOpFindings() {
  std::vector<StoredFinding> stored;
  struct Layout {
    Dims sizes, strides;
    int64_t offset;
  };
  const std::vector<Layout> layouts = {
      {{3, 4}, {1, 3}, 0}, {{3, 4}, {8, 2}, 1}, {{4, 2}, {1, 8}, 2}};
  uint64_t seed = 1;
  for (const ClassOp& op : PlantedClassOps()) {
    for (const Layout& l : layouts) {
      Case c;
      c.op = op.spec.op;
      c.variant = op.variant;
      // The written out (or the read self) takes the layout.
      if (op.variant == Variant::kOut) {
        c.args = {
            Laid("self", l.sizes, ComputeContiguousStrides(l.sizes), 0, ++seed),
            Laid("out", l.sizes, l.strides, l.offset, ++seed)};
      } else {
        c.args = {Laid("self", l.sizes, l.strides, l.offset, ++seed)};
      }
      absl::StatusOr<CaseOutcome> o = RunCase(op.spec, c);
      EXPECT_TRUE(o.ok()) << o.status();
      if (!o.ok() || !IsFinding(o->verdict)) continue;
      Finding f = MakeFinding(c, *o);
      stored.push_back(StoredFinding{absl::StrCat("f", stored.size()),
                                     std::move(f), 1, std::nullopt});
    }
  }
  return stored;
}

TEST(BugClassTest, OneMechanismAcrossOpsIsOneClass) {
  const std::vector<StoredFinding> findings = ClassOpFindings();
  const std::vector<Bug> bugs = GroupBugs(findings);
  // One bug per op: the layouts are samples of one mistake each.
  std::map<std::string, int> bugs_per_op;
  for (const Bug& b : bugs) ++bugs_per_op[b.op];
  for (const ClassOp& op : PlantedClassOps()) {
    EXPECT_EQ(bugs_per_op[op.spec.op], 1) << op.spec.op;
  }
  std::map<std::string, BugClass> by_mechanism;
  for (const BugClass& k : GroupClasses(bugs)) {
    EXPECT_EQ(by_mechanism.count(k.mechanism.name), 0u)
        << "two classes of " << k.mechanism.name;
    by_mechanism[k.mechanism.name] = k;
  }
  const BugClass& writes = by_mechanism["writes_as_contiguous"];
  EXPECT_EQ(writes.members.size(), 3u);
  EXPECT_THAT(writes.ops,
              UnorderedElementsAre("planted_class::contig_out_neg (out=)",
                                   "planted_class::contig_out_abs (out=)",
                                   "planted_class::contig_out_double (out=)"));
  EXPECT_EQ(writes.mechanism.role, "out");
  const BugClass& reads = by_mechanism["reads_as_contiguous"];
  EXPECT_THAT(reads.ops,
              UnorderedElementsAre("planted_class::memory_order_neg",
                                   "planted_class::memory_order_double"));
  EXPECT_EQ(reads.mechanism.role, "input");
  EXPECT_THAT(by_mechanism["reads_ignoring_offset"].ops,
              ElementsAre("planted_class::offset_blind_neg"));
  const BugClass& alone = by_mechanism["unexplained"];
  EXPECT_THAT(alone.ops, ElementsAre("planted_class::skewed_neg"));
  EXPECT_EQ(alone.members.size(), 1u);
  EXPECT_THAT(by_mechanism["leaves_unwritten"].ops,
              ElementsAre("planted_class::unwritten_neg (out=)"));
  EXPECT_THAT(by_mechanism["walks_in_memory_order"].ops,
              ElementsAre("planted_class::memory_walk_cumsum"));
  EXPECT_EQ(by_mechanism.size(), 6u);
}

TEST(BugClassTest, IdsAreStableAndUnexplainedBugsStandAlone) {
  const std::vector<Bug> bugs = GroupBugs(ClassOpFindings());
  std::map<std::string, std::string> class_of;
  for (const Bug& b : bugs) class_of[b.op] = ClassId(b);
  EXPECT_EQ(class_of["planted_class::contig_out_neg"],
            class_of["planted_class::contig_out_abs"]);
  EXPECT_THAT(class_of["planted_class::contig_out_neg"],
              ::testing::StartsWith("writes_as_contiguous-out-wrong_values-"));
  EXPECT_THAT(class_of["planted_class::skewed_neg"],
              ::testing::StartsWith("unexplained-skewed_neg-functional-"));
  // The same findings again give the same ids.
  std::map<std::string, std::string> again;
  for (const Bug& b : GroupBugs(ClassOpFindings())) again[b.op] = ClassId(b);
  EXPECT_EQ(class_of, again);
}

// A stored finding `verdict` of `op` on a gapped self, blamed on it.
StoredFinding OnGappedSelf(const std::string& op, Verdict verdict,
                           size_t index) {
  Case c;
  c.op = op;
  c.args = {Laid("self", {4}, {2}, 0, 1)};
  CaseOutcome o;
  o.verdict = verdict;
  Finding f = MakeFinding(c, o);
  f.blame.culprit = "self";
  f.blame.feature = "gapped";
  return StoredFinding{absl::StrCat("f", index), std::move(f), 1, std::nullopt};
}

// Costs (leak, memory_amplification, perf_cliff) are measured, never
// simulated: two ops leaking on a gapped self are two classes of one, and
// their mechanism says so rather than speak of a wrong result.
TEST(BugClassTest, CostsStandAloneAsMeasuredNotSimulated) {
  std::vector<StoredFinding> stored;
  for (const char* op : {"planted_cost::leaky_neg", "planted_cost::other"}) {
    stored.push_back(OnGappedSelf(op, Verdict::kLeak, stored.size()));
  }
  const std::vector<BugClass> classes = GroupClasses(GroupBugs(stored));
  ASSERT_EQ(classes.size(), 2u);
  for (const BugClass& k : classes) {
    EXPECT_EQ(k.mechanism.name, "unexplained_cost");
    EXPECT_EQ(k.members.size(), 1u);
    EXPECT_EQ(MechanismTitle(k.mechanism),
              "unexplained: a cost measured, not simulated");
  }
}

// Crashes are one class where their key names the function that died;
// glibc's message or library names alone say nothing of the kernel, and
// two ops that corrupt the heap stay apart.
TEST(BugClassTest, CrashesJoinOnlyWhereTheyNameAFunction) {
  std::vector<StoredFinding> stored;
  const auto crash = [&](const std::string& op, const std::string& key) {
    stored.push_back(OnGappedSelf(op, Verdict::kCrash, stored.size()));
    absl::StrAppend(&stored.back().finding.signature, "|", key);
  };
  crash("planted::a", "SIGSEGV@at::native::kernel>libgomp.so.N");
  crash("planted::b", "SIGSEGV@at::native::kernel>libgomp.so.N");
  crash("planted::c", "SIGABRT:free():_invalid_pointer");
  crash("planted::d", "SIGABRT:free():_invalid_pointer");
  crash("planted::e", "SIGSEGV@libtorch_cpu.so>libgomp.so.N");
  const std::vector<BugClass> classes = GroupClasses(GroupBugs(stored));
  ASSERT_EQ(classes.size(), 4u);
  EXPECT_EQ(classes[0].mechanism.name, "crash_at");
  EXPECT_EQ(classes[0].members.size(), 2u);
  for (size_t i = 1; i < classes.size(); ++i) {
    EXPECT_EQ(classes[i].mechanism.name, "unexplained") << classes[i].id;
    EXPECT_EQ(classes[i].members.size(), 1u) << classes[i].id;
  }
}

}  // namespace
}  // namespace dpfuzz
