// Mechanisms by simulation (oracles/mechanism.h): each planted layout
// mistake is named, on the argument it reads or writes wrongly, and a
// wrong result no mistake explains is left unexplained.

#include "oracles/mechanism.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "generators/op_args.h"
#include "generators/op_registry.h"
#include "generators/rng.h"
#include "oracles/case_tensors.h"
#include "oracles/run_case.h"
#include "tests/oracles/laid_argument.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

const OpSpec& SpecOf(const std::string& op) {
  for (const ClassOp& p : PlantedClassOps()) {
    if (p.spec.op == op) return p.spec;
  }
  for (const PlantedOp& p : PlantedOps()) {
    if (p.spec.op == op) return p.spec;
  }
  ADD_FAILURE() << "no planted op " << op;
  static const OpSpec none;
  return none;
}

CaseOutcome RunOn(const std::string& op, Variant variant,
                  std::vector<Argument> args) {
  Case c;
  c.op = op;
  c.variant = variant;
  c.args = std::move(args);
  absl::StatusOr<CaseOutcome> o = RunCase(SpecOf(op), c);
  EXPECT_TRUE(o.ok()) << o.status();
  return o.ok() ? *o : CaseOutcome{};
}

struct Expected {
  std::string op;
  Variant variant;
  std::vector<Argument> args;
  Verdict verdict;
  std::string mechanism, argument;
};

TEST(MechanismTest, EachPlantedMistakeIsNamedOnItsArgument) {
  const Dims k = {3, 4};
  const std::vector<Expected> cases = {
      // One helper writes out linearly: scrambled when out is transposed,
      // its gaps overwritten when it has gaps.
      {"planted_class::contig_out_neg",
       Variant::kOut,
       {Laid("self", k, {4, 1}), Laid("out", k, {1, 3})},
       Verdict::kMismatch,
       "writes_as_contiguous",
       "out"},
      {"planted_class::contig_out_abs",
       Variant::kOut,
       {Laid("self", k, {4, 1}), Laid("out", k, {8, 2}, 1)},
       Verdict::kOutsideWrite,
       "writes_as_contiguous",
       "out"},
      {"planted_class::contig_out_double",
       Variant::kOut,
       {Laid("self", k, {4, 1}), Laid("out", k, {1, 3})},
       Verdict::kMismatch,
       "writes_as_contiguous",
       "out"},
      {"planted_class::unwritten_neg",
       Variant::kOut,
       {Laid("self", k, {4, 1}), Laid("out", k, {1, 3})},
       Verdict::kMismatch,
       "leaves_unwritten",
       "out"},
      // Memory order of a transposed input with gaps: no gap is read.
      {"planted_class::memory_order_neg",
       Variant::kFunctional,
       {Laid("self", k, {2, 8}, 1)},
       Verdict::kMismatch,
       "reads_as_contiguous",
       "self"},
      {"planted_class::memory_order_double",
       Variant::kFunctional,
       {Laid("self", k, {1, 3})},
       Verdict::kMismatch,
       "reads_as_contiguous",
       "self"},
      {"planted_class::offset_blind_neg",
       Variant::kFunctional,
       {Laid("self", k, {4, 1}, 5)},
       Verdict::kNanIntroduced,
       "reads_ignoring_offset",
       "self"},
      // A running sum taken in memory order: transposed, it lands at other
      // places; no element is read or written where it does not belong.
      {"planted_class::memory_walk_cumsum",
       Variant::kFunctional,
       {Laid("self", k, {1, 3})},
       Verdict::kMismatch,
       "walks_in_memory_order",
       "self"},
      // Linear reads through gaps pull poison in.
      {"planted::flat_neg",
       Variant::kFunctional,
       {Laid("self", k, {8, 2})},
       Verdict::kNanIntroduced,
       "reads_as_contiguous",
       "self"},
      {"planted::cl_scramble",
       Variant::kFunctional,
       {Laid("self", {2, 3, 2, 2}, {12, 1, 6, 3})},
       Verdict::kMismatch,
       "fills_result_as_contiguous",
       "output 0"},
      {"planted::flat_fill_one",
       Variant::kInplace,
       {Laid("self", k, {8, 2})},
       Verdict::kOutsideWrite,
       "writes_as_contiguous",
       "self"},
      // A broken out= promise is what was seen.
      {"planted::realloc_neg",
       Variant::kOut,
       {Laid("self", k, {4, 1}), Laid("out", k, {4, 1})},
       Verdict::kLayoutContract,
       "replaces_out",
       "out"},
      // A memory format dropped is what was seen, on the input that had it.
      {"planted::cl_drop_neg",
       Variant::kFunctional,
       {Laid("self", {2, 3, 2, 2}, {12, 1, 6, 3})},
       Verdict::kLayoutContract,
       "drops_memory_format",
       "self"},
      // Off by one at one element: no layout mistake gives that.
      {"planted_class::skewed_neg",
       Variant::kFunctional,
       {Laid("self", k, {1, 3})},
       Verdict::kMismatch,
       "",
       ""},
  };
  for (const Expected& e : cases) {
    const CaseOutcome o = RunOn(e.op, e.variant, e.args);
    EXPECT_EQ(o.verdict, e.verdict) << e.op << ": " << o.evidence.detail;
    EXPECT_EQ(o.evidence.mechanism, e.mechanism) << e.op;
    EXPECT_EQ(o.evidence.mechanism_argument, e.argument) << e.op;
  }
}

// A backward that reads the gradient it is given as if it were contiguous:
// the baseline's backward run with grad_output read so gives the variant's
// gradient.
TEST(MechanismTest, AGradientReadAsContiguousIsNamedOnGradOutput) {
  Case c;
  c.op = "planted::bad_grad_double";
  c.variant = Variant::kFunctional;
  Argument self = Laid("self", {3, 4}, {4, 1});
  std::get<TensorSpec>(self.value).requires_grad = true;
  c.args = {self};
  Rng rng(9);
  TensorSpec grad = Values({3, 4}, DType::kFloat32, rng);
  grad.layout = StridedLayout{{3, 4}, {1, 3}, 0};
  c.grad_outputs = {grad};
  absl::StatusOr<CaseOutcome> o = RunCase(SpecOf(c.op), c);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->verdict, Verdict::kGradMismatch) << o->evidence.detail;
  EXPECT_EQ(o->evidence.mechanism, "reads_as_contiguous");
  EXPECT_EQ(o->evidence.mechanism_argument, "grad_output");
}

// A kernel that numbers its out= tensor's positions (0, 1, 2, ...) but
// fills a transposed out row by row from its data pointer: its memory
// holds the numbers in memory order, which is both "writes as contiguous"
// and "walks out in memory order". The first is named: it is the name the
// same kernel's mistake has with a gapped out.
TEST(MechanismTest, APermutedOutFilledRowByRowIsWrittenAsContiguous) {
  Case c;
  c.op = "planted_class::contig_out_neg";
  c.variant = Variant::kOut;
  c.args = {Laid("self", {3, 4}, {4, 1}), Laid("out", {3, 4}, {1, 3})};
  absl::StatusOr<CaseTensors> variant = MaterializeVariant(c);
  ASSERT_TRUE(variant.ok()) << variant.status();
  const auto numbered = [](at::Tensor& out) {
    out.copy_(at::arange(out.numel(), out.options()).view(out.sizes()));
  };
  at::Tensor& out = variant->args["out"][0];
  const at::Tensor right = at::arange(12, out.options()).view({3, 4});
  at::Tensor linear = out.as_strided({12}, {1}, out.storage_offset());
  linear.copy_(at::arange(12, out.options()));
  Simulation s = SimulationOf(
      c, *variant, {"out"}, {right}, {out.clone()}, Comparison::kExact,
      [&](CaseTensors& t) -> std::optional<std::vector<at::Tensor>> {
        numbered(t.args["out"][0]);
        return std::vector<at::Tensor>{t.args["out"][0]};
      });
  s.written = {"out"};
  const std::optional<Explanation> e = ExplainWrongValues(s);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->mechanism, "writes_as_contiguous");
  EXPECT_EQ(e->argument, "out");
}

TEST(MechanismTest, AgreeingCasesAndCorrectOpsHaveNone) {
  const CaseOutcome o =
      RunOn("planted::good_neg", Variant::kOut,
            {Laid("self", {3, 4}, {1, 3}), Laid("out", {3, 4}, {8, 2}, 1)});
  EXPECT_EQ(o.verdict, Verdict::kAgree);
  EXPECT_EQ(o.evidence.mechanism, "");
}

// Note [Ops that keep a memory format]: only an input laid out exactly in
// a format, of no ambiguous sizes, is judged; the op that drops it is
// found there and nowhere else, the one that keeps it nowhere.
TEST(MechanismTest, AMemoryFormatIsJudgedWhereTheInputHasOneForSure) {
  const auto dropped = [](std::vector<Argument> args) {
    return RunOn("planted::cl_drop_neg", Variant::kFunctional, std::move(args))
        .verdict;
  };
  // channels_last_3d, exactly.
  EXPECT_EQ(dropped({Laid("self", {1, 2, 2, 2, 3}, {24, 1, 12, 6, 2})}),
            Verdict::kLayoutContract);
  // One channel, or one spatial element: contiguous in both formats.
  EXPECT_EQ(dropped({Laid("self", {2, 1, 2, 3}, {6, 1, 3, 1})}),
            Verdict::kAgree);
  EXPECT_EQ(dropped({Laid("self", {2, 3, 1, 1}, {3, 1, 3, 3})}),
            Verdict::kAgree);
  // channels_last but for the stride of its size-one batch dim, which
  // suggest_memory_format reads too.
  EXPECT_EQ(dropped({Laid("self", {1, 3, 2, 2}, {6, 1, 6, 3})}),
            Verdict::kAgree);
  // A rank no format is for.
  EXPECT_EQ(dropped({Laid("self", {3, 2, 2}, {1, 6, 3})}), Verdict::kAgree);
  EXPECT_EQ(RunOn("planted::cl_keep_neg", Variant::kFunctional,
                  {Laid("self", {2, 3, 2, 2}, {12, 1, 6, 3})})
                .verdict,
            Verdict::kAgree);
}

}  // namespace
}  // namespace dpfuzz
