// Issue snippets: short, natural, and run with the track's Python they
// show every known LibTorch finding that shows on this LibTorch (exit 1 or
// death by a signal) and exit 0 where the layouts agree; issue.md says what
// was checked.

#include "crashes/bugs/issue_snippet.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <future>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/files.h"
#include "common/run_process.h"
#include "crashes/repro/python_repro_check.h"
#include "crashes/repro/repro_plan.h"
#include "generators/layout_generator.h"
#include "generators/op_registry.h"
#include "oracles/counting_allocator.h"
#include "oracles/resource_oracles.h"
#include "oracles/run_case.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;

struct Known {
  std::string name;
  Finding finding;
  bool shows = false;
};

// Every finding of known_findings/ whose case shows the bug in one run (a
// hand-written repro.py marks those that do not), with the verdict its
// issue.md names. Where the case still is a finding here, the finding is what
// RunCase says (crashes cannot run in this process: KnownFindingShows);
// elsewhere the verdict it had, with the case agreeing.
std::vector<Known> KnownFindings() {
  std::vector<Known> out;
  const fs::path root = fs::path(DPFUZZ_SOURCE_DIR) / "known_findings";
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory()) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    Known k;
    k.name = dir.filename().string();
    if (KnownFindingHasHandWrittenRepro(k.name)) continue;
    const Case c = LoadKnownCase(k.name);
    CaseOutcome outcome;
    outcome.verdict = KnownFindingVerdict(k.name);
    if (IsDeath(outcome.verdict)) {
      k.shows = KnownFindingShows(k.name);
    } else {
      const OpSpec* spec = FindOpFor(c);
      if (spec == nullptr) {
        ADD_FAILURE() << k.name << ": no spec judges its case";
        continue;
      }
      // A resource verdict's case runs with its oracle on.
      ResourceOracles oracles;
      TurnOnOracleOf(outcome.verdict, oracles);
      if (oracles.counts_memory()) InstallCountingCpuAllocator();
      absl::StatusOr<CaseOutcome> here =
          RunCase(*spec, c, std::nullopt, oracles);
      EXPECT_TRUE(here.ok()) << k.name << ": " << here.status();
      k.shows = here.ok() && IsFinding(here->verdict);
      EXPECT_EQ(k.shows, KnownFindingShows(k.name)) << k.name;
      // A real bug is filed as it was found: a rule that makes a layout
      // bug a baseline failure hides a class of bugs.
      if (k.shows) {
        EXPECT_EQ(here->kind, KnownFindingKind(k.name))
            << k.name << ": " << here->evidence.detail;
        outcome = *here;
      }
    }
    k.finding = MakeFinding(c, outcome);
    out.push_back(std::move(k));
  }
  EXPECT_GE(out.size(), 16u);
  return out;
}

Finding NegFinding(const StridedLayout& layout, Verdict verdict,
                   uint64_t seed) {
  Case c;
  c.op = "aten::neg";
  c.variant = Variant::kFunctional;
  TensorSpec self;
  self.layout = layout;
  self.values.seed = seed;
  c.args.push_back({"self", self});
  CaseOutcome outcome;
  outcome.verdict = verdict;
  return MakeFinding(c, outcome);
}

TEST(IssueSnippetTest, KnownFindingsReproduceInFewLines) {
  if (ReproPythonTorchVersion().empty())
    GTEST_SKIP() << kReproPython << " cannot import torch";
  const std::vector<Known> known = KnownFindings();
  std::vector<std::future<IssueCheck>> checks;
  std::vector<IssueSnippet> snippets;
  for (const Known& k : known) {
    absl::StatusOr<IssueSnippet> s = MakeIssueSnippet(k.finding);
    ASSERT_TRUE(s.ok()) << k.name << ": " << s.status();
    EXPECT_LE(s->lines, kMaxIssueSnippetLines) << k.name << "\n" << s->python;
    EXPECT_FALSE(absl::StrContains(s->python, "import dpfuzz")) << k.name;
    snippets.push_back(*s);
    checks.push_back(std::async(std::launch::async, [python = s->python] {
      return CheckIssueSnippet(python, 120);
    }));
  }
  for (size_t i = 0; i < known.size(); ++i) {
    const IssueCheck check = checks[i].get();
    const std::string context =
        absl::StrCat(known[i].name, ": ", check.result, "\n",
                     snippets[i].python, "--- printed:\n", check.output);
    EXPECT_TRUE(check.ran) << context;
    EXPECT_EQ(check.reproduces, known[i].shows) << context;
    if (!known[i].shows) {
      EXPECT_EQ(check.result, "does not reproduce (exit 0)") << context;
    }
  }
}

// neg on a transposed tensor is right: its snippet exits 0, and builds the
// layout with .t(), never as_strided.
TEST(IssueSnippetTest, AgreeingCaseExitsZero) {
  const Finding f = NegFinding({{3, 4}, {1, 3}, 0}, Verdict::kMismatch, 5);
  absl::StatusOr<IssueSnippet> s = MakeIssueSnippet(f);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(absl::StrContains(s->python, "]).t()\n")) << s->python;
  EXPECT_TRUE(absl::StrContains(s->python, "torch.ops.aten.neg.default(self_)"))
      << s->python;
  EXPECT_FALSE(s->uses_as_strided);
  if (ReproPythonTorchVersion().empty())
    GTEST_SKIP() << kReproPython << " cannot import torch";
  const IssueCheck check = CheckIssueSnippet(s->python, 120);
  EXPECT_TRUE(check.ran);
  EXPECT_FALSE(check.reproduces) << check.output;
  EXPECT_EQ(check.result, "does not reproduce (exit 0)") << check.output;
  // A snippet that fails for another reason than the bug does not count.
  const IssueCheck broken =
      CheckIssueSnippet("import torch\ntorch.no_such_function()\n", 120);
  EXPECT_TRUE(broken.ran);
  EXPECT_FALSE(broken.reproduces);
  EXPECT_TRUE(absl::StartsWith(broken.result, "failed: exit 1, AttributeError"))
      << broken.result;
}

// A write outside the views of an argument the schema does not say the
// op writes (the CPU rrelu_with_noise fills `noise`): the snippet checks
// every argument's memory outside its view. neg writes none: exit 0.
TEST(IssueSnippetTest, OutsideWritesOfAnUndeclaredWriteAreChecked) {
  const Finding f =
      NegFinding({{2}, {2}, 0}, Verdict::kOutsideWrite, /*seed=*/5);
  absl::StatusOr<IssueSnippet> s = MakeIssueSnippet(f);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(absl::StrContains(s->python, "may_change[:3:2].fill_(True)"))
      << s->python;
  EXPECT_TRUE(
      absl::StrContains(s->python, "sys.exit(1 if changed.any() else 0)"))
      << s->python;
  if (ReproPythonTorchVersion().empty())
    GTEST_SKIP() << kReproPython << " cannot import torch";
  const IssueCheck check = CheckIssueSnippet(s->python, 120);
  EXPECT_EQ(check.result, "does not reproduce (exit 0)")
      << s->python << check.output;
}

// A nested call with several results (linear_backward's gradients, one
// of them not asked for: None) compares them all, component by component:
// the snippet runs to its comparison. (With its components in order it
// exits 0 on 1.13; 2.x's kernel reads the buffer's poisoned tail into
// grad_weight, which the snippet shows with exit 1.)
TEST(IssueSnippetTest, ANestedCallWithSeveralResultsComparesThemAll) {
  Case c = LoadKnownCase("nested_relu-components-out-of-order-read-as-dense");
  c.op = "aten::linear_backward";
  TensorSpec self = std::get<TensorSpec>(c.args[0].value);
  self.components = {{{1, 2}, {2, 1}, 0}, {{1, 2}, {2, 1}, 2}};
  TensorSpec weight = self;
  weight.components.clear();
  weight.layout = {{2, 2}, {2, 1}, 0};
  c.args = {{"self", self},
            {"grad_output", self},
            {"weight", weight},
            {"output_mask", Dims{1, 1, 0}}};
  CaseOutcome outcome;
  outcome.verdict = Verdict::kMismatch;
  absl::StatusOr<IssueSnippet> s = MakeIssueSnippet(MakeFinding(c, outcome));
  ASSERT_TRUE(s.ok()) << s.status();
  if (ReproPythonTorchVersion().empty())
    GTEST_SKIP() << kReproPython << " cannot import torch";
  const IssueCheck check = CheckIssueSnippet(s->python, 120);
  EXPECT_TRUE(check.result == "does not reproduce (exit 0)" ||
              check.result == "reproduces (exit 1)")
      << check.result << "\n"
      << s->python << "--- printed:\n"
      << check.output;
  EXPECT_TRUE(absl::StrContains(check.output, "expected: [tensor("))
      << check.output;
}

// The tensors a snippet builds have exactly the case's layout and values,
// for many generated layouts (as the value and storage checks build them).
TEST(IssueSnippetTest, TensorsHaveTheCaseLayoutsAndValues) {
  std::string script = "import torch\nbad = 0\n";
  Rng rng(21);
  int natural = 0, exact = 0;
  const int kCases = 300;
  for (int i = 0; i < kCases; ++i) {
    const Dims sizes = GenerateSizes(rng, 4, 4);
    const StridedLayout layout =
        GenerateLayout(sizes, DType::kFloat32, {}, rng).layout;
    const Verdict verdict =
        i % 3 == 0 ? Verdict::kInputModified : Verdict::kMismatch;
    const Finding f = NegFinding(layout, verdict, i);
    absl::StatusOr<IssueSnippet> s = MakeIssueSnippet(f);
    ASSERT_TRUE(s.ok()) << layout << ": " << s.status();
    natural += !s->uses_as_strided;
    exact += !s->values_changed;
    const size_t begin = s->python.find("import torch\n\n") + 14;
    const std::string block =
        s->python.substr(begin, s->python.find("\n\ndef call") - begin);
    absl::StatusOr<ReproPlan> plan =
        BuildReproPlan(f.c, *FindOp("aten::neg"), verdict);
    ASSERT_TRUE(plan.ok()) << plan.status();
    std::vector<std::string> values, strides;
    for (const ReproElement& e : plan->tensors[0].baseline) {
      values.push_back(ExactFloatText(e.real).text);
    }
    for (int64_t d = 0; d < layout.dim(); ++d) {
      if (layout.sizes[d] > 1)
        strides.push_back(absl::StrCat(layout.strides[d]));
    }
    absl::StrAppend(
        &script, "ns = {'torch': torch}\nexec('''", block, "''', ns)\n",
        "t = ns['self_']\n", "if not (list(t.shape) == [",
        absl::StrJoin(layout.sizes, ", "),
        "] and [s for s, n in zip(t.stride(), t.shape) if n > 1] == [",
        absl::StrJoin(strides, ", "),
        "] and t.storage_offset() == ", layout.storage_offset,
        // Values replaced by arange (too many to list) are not compared.
        s->values_changed ? "" : " and t.contiguous().view(-1).tolist() == [",
        s->values_changed ? "" : absl::StrJoin(values, ", ") + "]",
        "):\n    bad += 1\n    print('BAD ", LayoutToString(layout),
        "', t.shape, t.stride(), t.storage_offset())\n");
  }
  absl::StrAppend(&script, "print('bad', bad)\n");
  // as_strided: mostly stride 0 on size-1 dims; arange: over 25 lines.
  EXPECT_GT(natural, kCases * 8 / 10);
  EXPECT_GT(exact, kCases * 8 / 10);
  if (ReproPythonTorchVersion().empty())
    GTEST_SKIP() << kReproPython << " cannot import torch";
  absl::StatusOr<std::string> dir = MakeTempDirectory("dpfuzz_issue_test_");
  ASSERT_TRUE(dir.ok());
  const std::string path = *dir + "/layouts.py";
  ASSERT_TRUE(WriteFileAtomically(path, script, "script").ok());
  const ProcessResult r = RunProcesses({{kReproPython, path}}, 300)[0];
  EXPECT_TRUE(r.exited && r.exit_status == 0) << r.output;
  EXPECT_TRUE(absl::StrContains(r.output, "bad 0\n")) << r.output;
  fs::remove_all(*dir);
}

TEST(IssueMarkdownTest, SaysWhatWasCheckedAndNamesTheCulprit) {
  Finding f = NegFinding({{3, 4}, {1, 3}, 0}, Verdict::kMismatch, 5);
  f.blame = {"self", "permuted"};
  absl::StatusOr<IssueSnippet> s = MakeIssueSnippet(f);
  ASSERT_TRUE(s.ok()) << s.status();
  IssueCheck check;
  check.ran = true;
  check.reproduces = true;
  check.result = "reproduces (exit 1)";
  check.output = "expected: 1\nactual:   2\n";
  check.python = "/usr/bin/python3 (torch 1.13.0a0)";
  std::string md = IssueMarkdown(f, *s, check, "dpfuzz --op=neg");
  for (const std::string& needle :
       {std::string("# aten::neg gives wrong values when `self` is "
                    "transposed\n"),
        std::string("With `self` as f32 [3, 4]@[1, 3]+0, `aten::neg` returns "
                    "other values than on contiguous copies. The check: "),
        "```python\n" + s->python + "```\n",
        std::string("Checked with /usr/bin/python3 (torch 1.13.0a0): it "
                    "reproduces (exit 1). It printed:\n\n```\nexpected: 1\n"),
        "- LibTorch " + LibTorchVersion(), "- dpfuzz " + DpfuzzVersion(),
        std::string("## Found by\n\n```\ndpfuzz --op=neg\n```\n")}) {
    EXPECT_TRUE(absl::StrContains(md, needle)) << needle << "\n---\n" << md;
  }
  f.outcome.evidence.detail = "1 of 12 elements differ";
  f.outcome.evidence.where = "output 0";
  md = IssueMarkdown(f, *s, check, "dpfuzz --op=neg");
  EXPECT_TRUE(absl::StrContains(
      md,
      "contiguous copies. dpfuzz saw in output 0: 1 of 12 elements "
      "differ.\n"))
      << md;
  check.reproduces = false;
  check.result = "does not reproduce (exit 0)";
  md = IssueMarkdown(f, *s, check, "dpfuzz --op=neg");
  EXPECT_TRUE(absl::StrContains(md, "**This snippet does not show the bug**"))
      << md;
  EXPECT_TRUE(absl::StrContains(md, "repro.py")) << md;
  EXPECT_FALSE(absl::StrContains(md, "Checked with")) << md;
  check = IssueCheck{};
  check.result = "not run: /usr/bin/python3 cannot import torch";
  md = IssueMarkdown(f, *s, check, "dpfuzz --op=neg");
  EXPECT_TRUE(absl::StrContains(
      md, "Not checked (not run: /usr/bin/python3 cannot import torch)"))
      << md;
  md = IssueMarkdown(f, IssueSnippet{}, check, "dpfuzz --op=neg");
  EXPECT_TRUE(absl::StrContains(md, "No short snippet: not run")) << md;
  EXPECT_FALSE(absl::StrContains(md, "```python")) << md;
}

// Without blame: arguments sharing memory, the written argument of a write
// outside a view, else the only strided one; none for a baseline failure,
// nor where several are strided (no guess: every strided one is listed).
TEST(IssueMarkdownTest, NamesWhatTheFindingIsAbout) {
  struct Example {
    const char* name;
    Verdict verdict;
    std::string title;
    std::string sentence;
  };
  const Example examples[] = {
      {"masked_select-out-aliasing-mask-heap-corruption", Verdict::kCrash,
       "# aten::masked_select.out crashes when `out` and `mask` share memory\n",
       "With `out` as b8 [6]@[3]+0 and `mask` as b8 [2, 1]@[1, 4]+0 in one "
       "memory, `aten::masked_select.out` kills the process."},
      {"huber_loss-out-mean-writes-past-0dim-out", Verdict::kOutsideWrite,
       "# aten::huber_loss.out writes outside its output\n",
       "With `out` as f32 []@[]+0, `aten::huber_loss.out` writes memory "
       "outside the view it was given to write."},
      {"median-expanded-input-reads-outside-view", Verdict::kMismatch,
       "# aten::median.dim_values gives wrong values on strided arguments\n",
       "With `self` as i16 [2]@[0]+0, `values` as i16 []@[]+2, `indices` as "
       "i64 []@[]+5 (which of them the bug needs is not known yet), "
       "`aten::median.dim_values` returns"},
  };
  IssueCheck check;
  check.result = "not run: test";
  for (const Example& e : examples) {
    CaseOutcome outcome;
    outcome.verdict = e.verdict;
    Finding f = MakeFinding(LoadKnownCase(e.name), outcome);
    std::string md = IssueMarkdown(f, IssueSnippet{}, check, "dpfuzz");
    EXPECT_TRUE(absl::StartsWith(md, e.title)) << md;
    EXPECT_TRUE(absl::StrContains(md, e.sentence)) << md;
    f.outcome.kind = FindingKind::kBaselineFailure;
    md = IssueMarkdown(f, IssueSnippet{}, check, "dpfuzz");
    EXPECT_TRUE(absl::StrContains(md,
                                  " on contiguous arguments\n\nOn "
                                  "contiguous arguments, "))
        << md;
  }
  const std::string md =
      IssueMarkdown(NegFinding({{3, 4}, {1, 3}, 0}, Verdict::kMismatch, 5),
                    IssueSnippet{}, check, "dpfuzz");
  EXPECT_TRUE(absl::StartsWith(
      md, "# aten::neg gives wrong values when `self` is transposed\n"))
      << md;
}

// A death after the op returned a sparse result (Evidence::layout set from
// the worker's call phase) is shown by reading the result as dpfuzz did:
// to_dense, where sparse values of odd strides corrupt the heap.
TEST(IssueSnippetTest, ASparseResultIsReadDenseWhereTheWorkerDid) {
  CaseOutcome outcome;
  outcome.verdict = Verdict::kCrash;
  Finding f = MakeFinding(
      LoadKnownCase(
          "sparse_coo_tensor-to_dense-zero-stride-values-heap-overflow"),
      outcome);
  absl::StatusOr<IssueSnippet> plain = MakeIssueSnippet(f);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(absl::StrContains(plain->python, ".to_dense()"))
      << plain->python;
  f.outcome.evidence.layout = "sparse or compressed";
  absl::StatusOr<IssueSnippet> dense = MakeIssueSnippet(f);
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_TRUE(absl::StrContains(dense->python, ").to_dense()\n"))
      << dense->python;
}

// A nested culprit, here a gradient given, is named by where its components
// lie.
TEST(IssueMarkdownTest, NamesANestedGradOutput) {
  CaseOutcome outcome;
  outcome.verdict = Verdict::kGradMismatch;
  Finding f = MakeFinding(
      LoadKnownCase("nested_mul-backward-reordered-grad-read-as-dense"),
      outcome);
  f.blame = {"grad_output", "nested_component_order"};
  IssueCheck check;
  check.result = "not run: test";
  const std::string md = IssueMarkdown(f, IssueSnippet{}, check, "dpfuzz");
  EXPECT_TRUE(absl::StartsWith(
      md,
      "# aten::mul.Scalar gives wrong gradients when `grad_output_0` is "
      "nested, its components out of order or apart in their buffer\n"))
      << md;
  EXPECT_TRUE(absl::StrContains(
      md, "With `grad_output_0` as f64 nested{[1]@[1]+3, [3]@[1]+0}, "))
      << md;
}

TEST(IssueMarkdownTest, WriteIssueWritesBothFiles) {
  const Finding f = NegFinding({{2, 3}, {1, 2}, 0}, Verdict::kMismatch, 1);
  absl::StatusOr<std::string> dir = MakeTempDirectory("dpfuzz_issue_test_");
  ASSERT_TRUE(dir.ok());
  absl::StatusOr<IssueCheck> check =
      WriteIssue(f, *dir, "dpfuzz --op=neg", 120);
  ASSERT_TRUE(check.ok()) << check.status();
  absl::StatusOr<std::string> md = ReadFile(*dir + "/issue.md", "issue");
  absl::StatusOr<std::string> py = ReadFile(*dir + "/issue.py", "snippet");
  ASSERT_TRUE(md.ok() && py.ok());
  EXPECT_TRUE(absl::StrContains(*md, "```python\n" + *py)) << *md;
  EXPECT_TRUE(absl::StrContains(*md, check->result)) << *md;
  if (!ReproPythonTorchVersion().empty()) {
    EXPECT_FALSE(check->reproduces) << check->output;
  }
  fs::remove_all(*dir);
}

}  // namespace
}  // namespace dpfuzz
