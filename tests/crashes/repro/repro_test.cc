// Repro emitters: plans hold the exact storages dpfuzz ran; generated
// Python repros reproduce the known LibTorch findings (exit 1, or death by
// a signal for the heap corruptions) and exit 0 on cases that agree.

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/run_process.h"
#include "crashes/findings/finding.h"
#include "crashes/repro/python_repro_check.h"
#include "crashes/repro/repro_cpp.h"
#include "crashes/repro/repro_plan.h"
#include "crashes/repro/repro_python.h"
#include "crashes/repro/warm_python.h"
#include "generators/case_json.h"
#include "generators/geometry.h"
#include "generators/op_args.h"
#include "generators/op_registry.h"
#include "oracles/case_builder.h"
#include "oracles/run_case.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

struct KnownFinding {
  const char* name;
  Verdict verdict;
  // From this LibTorch release on the case shows `later` instead: the bug
  // changed form (known_findings/README.md says how). Null: it did not.
  const char* changed_in = nullptr;
  Verdict later = Verdict::kAgree;
};

// The findings of known_findings/README.md whose case shows the bug in one
// run, with the verdict they get where they show (KnownFindingShows: not on
// LibTorch releases that fixed them, where they agree). Not listed:
// sparse_coo_tensor-to_dense-zero-stride-values-heap-overflow, whose few
// bytes past the dense result abort one Python run in two on 2.15 (dpfuzz
// replay's checking allocator aborts on every run; its hand-written repro
// loops), and max_pool2d-padding-window-out-of-bounds-index. Its backward
// writes one float just past a one-element grad_input, inside the allocator's
// padding: one run neither aborts nor changes a value dpfuzz compares (RunCase
// says agree, see RunCaseGivesTheListedVerdicts); glibc aborts only in long
// campaigns. Nor nested_select-negative-dim-garbage-offsets, a promise of a
// nested result (its offsets), which the generated repro.py does not check
// (its hand-written one does; dpfuzz replay checks the case). Nor
// vander-requires-grad-leaks-its-graph, a leak the opt-in leak oracle
// judges (tests/oracles/resource_oracles_test.cc).
const KnownFinding kKnownFindings[] = {
    {"cat-out-strided-with-empty-inputs", Verdict::kMismatch},
    {"conv2d-backward-noncontiguous-weight-rejected",
     Verdict::kRejectionMismatch},
    {"masked_scatter-noncontiguous-self-memory-order", Verdict::kMismatch},
    {"masked_select-backward-transposed", Verdict::kGradMismatch},
    {"masked_select-out-aliasing-mask-heap-corruption", Verdict::kCrash},
    {"fft_fftfreq-out-strided-writes-through-resized-empty-slice",
     Verdict::kOutsideWrite},
    {"huber_loss-out-mean-writes-past-0dim-out", Verdict::kOutsideWrite},
    {"median-expanded-input-reads-outside-view", Verdict::kMismatch},
    {"narrow_copy-out-gapped-writes-outside-view", Verdict::kOutsideWrite},
    {"replication_pad2d-out-noncontiguous-wrong-values", Verdict::kMismatch,
     "2.11.0", Verdict::kLayoutContract},
    {"tril-out-aliasing-self-heap-corruption", Verdict::kCrash},
    {"tril-out-gapped-writes-outside-view", Verdict::kOutsideWrite},
    {"cat-out-size-one-strided-unwritten", Verdict::kMismatch},
    {"cat-out-zero-stride-size-one-divides-by-zero", Verdict::kCrash},
    {"copy-overlapping-self-result-overlaps", Verdict::kMismatch},
    {"group_norm-backward-channels-last-segfault", Verdict::kCrash},
    {"upsample_bilinear2d-u8-internal-assert", Verdict::kInternalAssert},
    {"kron-transposed-vector-rejected", Verdict::kRejectionMismatch},
    {"isin-sliced-test-elements-rejected", Verdict::kRejectionMismatch},
    {"hardswish_backward-at-three-depends-on-layout", Verdict::kMismatch},
    {"linalg_solve-left-false-out-gets-conjugate-bit",
     Verdict::kLayoutContract},
    {"cov-0dim-with-weights-modifies-input", Verdict::kInputModified},
    {"ctc_loss-1d-targets-strided-wrong-batch-offsets", Verdict::kMismatch},
    {"slice_scatter-overlapping-self-keeps-overlap", Verdict::kMismatch},
    {"upsample_bicubic2d_aa-out-transposed-wrong-values", Verdict::kMismatch},
    {"gelu-out-gapped-f32-unwritten", Verdict::kMismatch},
    {"batch_norm-backward-2d-strided-weight-read-as-dense",
     Verdict::kGradMismatch},
    {"_masked_softmax-transposed-input-pairs-wrong-mask",
     Verdict::kNanIntroduced},
    {"_upsample_bilinear2d_aa-out-width-one-repeats-first-row",
     Verdict::kMismatch},
    {"upsample_nearest3d-channels-last-ignores-scale", Verdict::kMismatch},
    {"nested_relu-components-out-of-order-read-as-dense", Verdict::kMismatch,
     "2.0.0", Verdict::kRejectionMismatch},
    {"embedding_backward-sparse-size-one-zero-stride-grad-lost",
     Verdict::kMismatch},
    {"_nested_from_padded-strided-size-tensor-read-as-contiguous",
     Verdict::kInternalAssert},
    {"nested_mul-backward-reordered-grad-read-as-dense",
     Verdict::kGradMismatch},
    {"nested_linear_backward-buffer-tail-read-into-grad-weight",
     Verdict::kMismatch},
};

// The verdict `k`'s case gets on the LibTorch under test; kAgree where the
// bug does not show.
Verdict VerdictHere(const KnownFinding& k) {
  if (!KnownFindingShows(k.name)) return Verdict::kAgree;
  if (k.changed_in != nullptr && LibTorchIsAtLeast(k.changed_in)) {
    return k.later;
  }
  return k.verdict;
}

// The verdict whose repro checks `k`: the one it gets here, or where it
// does not show, the one it had.
Verdict ReproVerdict(const KnownFinding& k) {
  const Verdict here = VerdictHere(k);
  return here == Verdict::kAgree ? k.verdict : here;
}

const OpSpec& SpecOf(const Case& c) {
  const OpSpec* spec = FindOpFor(c);
  EXPECT_NE(spec, nullptr) << QualifiedOpName(c);
  static const OpSpec kNone;
  return spec != nullptr ? *spec : kNone;
}

std::filesystem::path FreshDir(const std::string& name) {
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) /
      absl::StrCat("dpfuzz_repro_", name, "_", getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string WriteFile(const std::filesystem::path& path,
                      const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

TEST(ReproPlanTest, ExactFloatTextReadsBackBitForBit) {
  for (double v : {0.0, -0.0, 1.5, -7.0, 3.75, 1e-8, 0.1, 1.0 / 3.0,
                   static_cast<double>(0.1f), 5e-324, 1.7976931348623157e308,
                   static_cast<double>(65504.0f), -2.2250738585072014e-308}) {
    const FloatText text = ExactFloatText(v);
    const double back = std::strtod(text.text.c_str(), nullptr);
    EXPECT_EQ(std::memcmp(&back, &v, sizeof(v)), 0) << text.text;
    EXPECT_NE(text.text.find_first_of(".ep"), std::string::npos) << text.text;
  }
  EXPECT_EQ(ExactFloatText(1.5).text, "1.5");
  EXPECT_EQ(ExactFloatText(-0.0).text, "-0.0");
  EXPECT_TRUE(ExactFloatText(1.0 / 3.0).is_hex);
}

// Every element a view addresses holds its logical value; every other one
// is poison, exactly as dpfuzz materialized the storage.
TEST(ReproPlanTest, StoragesHoldTheLogicalValuesAndPoisonElsewhere) {
  const Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");
  absl::StatusOr<ReproPlan> plan =
      BuildReproPlan(c, SpecOf(c), Verdict::kOutsideWrite);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->tensors.size(), 2u);
  EXPECT_EQ(plan->written, std::vector<std::string>{"out"});
  EXPECT_EQ(plan->check, ReproCheck::kStorage);
  for (const ReproTensor& t : plan->tensors) {
    const ReproStorage& storage = plan->storages[t.storage];
    const std::vector<int64_t> indices = ComputeStorageIndices(t.layout);
    ASSERT_EQ(indices.size(), t.baseline.size()) << t.name;
    std::vector<bool> addressed(storage.elements.size(), false);
    for (size_t n = 0; n < indices.size(); ++n) {
      const ReproElement& e = storage.elements.at(indices[n]);
      EXPECT_EQ(e.kind, ReproElement::Kind::kInt) << t.name << " " << n;
      EXPECT_EQ(e.integer, t.baseline[n].integer) << t.name << " " << n;
      addressed[indices[n]] = true;
    }
    for (size_t i = 0; i < addressed.size(); ++i) {
      if (!addressed[i]) {
        EXPECT_EQ(storage.elements[i].kind, ReproElement::Kind::kPoison)
            << t.name << " storage[" << i << "]";
      }
    }
  }
}

TEST(ReproPlanTest, AliasedArgumentsShareOneStorage) {
  const Case c =
      LoadKnownCase("masked_select-out-aliasing-mask-heap-corruption");
  absl::StatusOr<ReproPlan> plan =
      BuildReproPlan(c, SpecOf(c), Verdict::kCrash);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->storages.size(), 2u);  // self; mask and out.
  int mask = -1, out = -2;
  for (const ReproTensor& t : plan->tensors) {
    if (t.arg == "mask") mask = t.storage;
    if (t.arg == "out") out = t.storage;
  }
  EXPECT_EQ(mask, out);
  EXPECT_TRUE(plan->rejection_allowed);
}

TEST(ReproPlanTest, AVerdictThatIsNoFindingHasNoRepro) {
  const Case c = LoadKnownCase("cat-out-strided-with-empty-inputs");
  EXPECT_FALSE(PythonRepro(c, SpecOf(c), Verdict::kAgree).ok());
  EXPECT_FALSE(CppRepro(c, SpecOf(c), Verdict::kBothRejected).ok());
}

TEST(PythonReproTest, ScriptBuildsExactViewsAndCallsTheSchema) {
  const Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");
  absl::StatusOr<std::string> py =
      PythonRepro(c, SpecOf(c), Verdict::kOutsideWrite);
  ASSERT_TRUE(py.ok()) << py.status();
  for (const std::string& needle :
       {std::string("verdict outside_write"), "LibTorch " + LibTorchVersion(),
        std::string("out_storage = storage(torch.int8, ["),
        std::string("out = view(out_storage, (4, 4, 3, 1), (108, 3, 12, 12), "
                    "5)"),
        std::string("    return torch.ops.aten.tril.out\n"),
        std::string("    return op()(\n"),
        std::string("a[\"self\"], 1, out=a[\"out\"])"),
        std::string("change = storage_change(storages, before, variant)")}) {
    EXPECT_NE(py->find(needle), std::string::npos) << needle;
  }
}

// bool[3] is written as Python bools (torch rejects ints there); the
// repro of an agreeing case runs and exits 0.
TEST(PythonReproTest, BoolListsArePythonBools) {
  const OpSpec* spec = FindOp("aten::native_layer_norm_backward");
  ASSERT_NE(spec, nullptr);
  Rng rng(3);
  Case c;
  c.op = spec->op;
  c.variant = Variant::kFunctional;
  for (const char* name : {"grad_out", "input"}) {
    c.args.push_back(Arg(name, Values({3, 2}, DType::kFloat64, rng)));
  }
  c.args.push_back(Arg("normalized_shape", Dims{2}));
  for (const char* name : {"mean", "rstd"}) {
    c.args.push_back(Arg(name, Values({3, 1}, DType::kFloat64, rng)));
  }
  c.args.push_back(Arg("output_mask", Dims{0, 1, 1}));
  absl::StatusOr<std::string> py = PythonRepro(c, *spec, Verdict::kMismatch);
  ASSERT_TRUE(py.ok()) << py.status();
  EXPECT_NE(py->find("[False, True, True]"), std::string::npos) << *py;
  if (ReproPythonTorchVersion().empty())
    GTEST_SKIP() << kReproPython << " cannot import torch";
  const std::filesystem::path dir = FreshDir("bool_list");
  const std::vector<ProcessResult> r =
      RunProcesses({{kReproPython, WriteFile(dir / "repro.py", *py)}});
  EXPECT_TRUE(r[0].exited && r[0].exit_status == 0) << r[0].output;
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

TEST(CppReproTest, ProgramBuildsExactViewsAndCallsTheDispatcher) {
  const Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");
  absl::StatusOr<std::string> cc =
      CppRepro(c, SpecOf(c), Verdict::kOutsideWrite);
  ASSERT_TRUE(cc.ok()) << cc.status();
  for (const std::string& needle :
       {std::string("verdict outside_write"),
        std::string("const at::Tensor out_storage = Storage(at::kChar, {"),
        std::string("View(out_storage, {4, 4, 3, 1}, {108, 3, 12, 12}, 5)"),
        std::string("findSchemaOrThrow(\"aten::tril\", \"out\")"),
        std::string("StorageChange(storages, before, &after)")}) {
    EXPECT_NE(cc->find(needle), std::string::npos) << needle;
  }
  const std::string cmake = CppReproCMakeLists();
  EXPECT_NE(cmake.find("find_package(Torch REQUIRED)"), std::string::npos);
  EXPECT_NE(cmake.find("add_executable(repro repro.cc)"), std::string::npos);
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

// A case on CUDA: every storage and every baseline tensor is placed on the
// device, the values being the same bits (no device needed to write it).
TEST(ReproDeviceTest, CudaCasesPlaceTheirTensorsOnCuda) {
  Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");
  PlaceOnDevice(c, Device::kCuda);
  absl::StatusOr<std::string> py =
      PythonRepro(c, SpecOf(c), Verdict::kOutsideWrite);
  ASSERT_TRUE(py.ok()) << py.status();
  // Both storages (self, out) and both baseline tensors.
  EXPECT_EQ(Count(*py, "device=\"cuda\")"), 4) << *py;
  EXPECT_NE(py->find("base_out = dense(torch.int8, (4, 4, 3, 1), ["),
            std::string::npos);
  absl::StatusOr<std::string> cc =
      CppRepro(c, SpecOf(c), Verdict::kOutsideWrite);
  ASSERT_TRUE(cc.ok()) << cc.status();
  EXPECT_EQ(Count(*cc, "/*requires_grad=*/false, \"cuda\");"), 2) << *cc;
  EXPECT_EQ(Count(*cc, "\"cuda\");"), 4) << *cc;
  // The same case's CPU repro names no device.
  PlaceOnDevice(c, Device::kCpu);
  py = PythonRepro(c, SpecOf(c), Verdict::kOutsideWrite);
  ASSERT_TRUE(py.ok()) << py.status();
  EXPECT_EQ(py->find("device=\"cuda\""), std::string::npos);
}

// The crash check of a CUDA case waits for the kernels the call queued and
// counts a CUDA error (the context is then lost, and reading a storage
// would raise again) as the bug showing; a CPU case's check has none of it.
TEST(ReproDeviceTest, CudaCrashChecksTakeADeviceErrorAsTheBug) {
  Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");
  PlaceOnDevice(c, Device::kCuda);
  absl::StatusOr<std::string> py = PythonRepro(c, SpecOf(c), Verdict::kCrash);
  ASSERT_TRUE(py.ok()) << py.status();
  const std::string check =
      "        _, error = attempt(torch.cuda.synchronize)\n"
      "    if error and \"CUDA error\" in error:";
  EXPECT_NE(py->find(check), std::string::npos) << *py;
  EXPECT_LT(py->find(check), py->find("past_end = overflow(storages"));
  PlaceOnDevice(c, Device::kCpu);
  py = PythonRepro(c, SpecOf(c), Verdict::kCrash);
  ASSERT_TRUE(py.ok()) << py.status();
  EXPECT_EQ(py->find("torch.cuda"), std::string::npos);
}

// An out= of the wrong size is resized in place (contiguous from its
// offset) when its memory holds the result, and then the op may write
// there: dpfuzz's storage check allows it (MarkResized), and so must the
// repro, whose storages go on into a guard that makes room for 40
// elements where dpfuzz's 0-dim out had 5.
TEST(ResizedOutReproTest, WritesOfAnOutResizedInPlaceAreTheOps) {
  Case c;
  c.op = "aten::add";
  c.overload = "Tensor";
  c.variant = Variant::kOut;
  ValueRecipe values;
  values.distribution = Distribution::kDyadic;
  c.args = {Argument{"self", Contiguous({5, 8}, DType::kFloat32, values)},
            Argument{"other", Contiguous({5, 8}, DType::kFloat32, values)},
            Argument{"out", Contiguous({}, DType::kFloat32, values)}};
  absl::StatusOr<CaseOutcome> outcome = RunCase(SpecOf(c), c);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  EXPECT_EQ(outcome->verdict, Verdict::kAgree) << outcome->evidence.detail;
  if (ReproPythonTorchVersion().empty())
    GTEST_SKIP() << kReproPython << " cannot import torch";
  const std::filesystem::path dir = FreshDir("resized");
  std::vector<std::vector<std::string>> commands;
  for (Verdict verdict : {Verdict::kOutsideWrite, Verdict::kCrash}) {
    absl::StatusOr<std::string> py = PythonRepro(c, SpecOf(c), verdict);
    ASSERT_TRUE(py.ok()) << py.status();
    commands.push_back(
        {kReproPython,
         WriteFile(dir / absl::StrCat(VerdictName(verdict), ".py"), *py)});
  }
  for (const ProcessResult& r : RunProcesses(commands)) {
    EXPECT_TRUE(r.exited && r.exit_status == 0) << Describe(r) << "\n"
                                                << r.output;
  }
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

// device_mismatch: the baseline on its device against the same values on
// the CPU, compared as values are.
TEST(ReproDeviceTest, DeviceMismatchComparesTheBaselineAcrossDevices) {
  Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");
  PlaceOnDevice(c, Device::kCuda);
  absl::StatusOr<std::string> py =
      PythonRepro(c, SpecOf(c), Verdict::kDeviceMismatch);
  ASSERT_TRUE(py.ok()) << py.status();
  for (const char* needle :
       {"verdict device_mismatch", "def on_cpu(args):",
        "    variant, _ = baseline_tensors()\n    baseline = on_cpu(variant)\n",
        "compare_output(expected[i], actual[i]"}) {
    EXPECT_NE(py->find(needle), std::string::npos) << needle;
  }
  absl::StatusOr<std::string> cc =
      CppRepro(c, SpecOf(c), Verdict::kDeviceMismatch);
  ASSERT_TRUE(cc.ok()) << cc.status();
  for (const char* needle :
       {"Tensors OnCpu(const Tensors& args)",
        "  const Tensors variant = BaselineTensors(grad_outputs);\n"
        "  const Tensors baseline = OnCpu(variant);\n",
        "CompareOutput(expected[i], actual[i]"}) {
    EXPECT_NE(cc->find(needle), std::string::npos) << needle;
  }
}

// The table above is what dpfuzz's oracles say today (crash cases abort
// the process, so they are not run here).
TEST(KnownFindingReprosTest, RunCaseGivesTheListedVerdicts) {
  for (const KnownFinding& k : kKnownFindings) {
    if (k.verdict == Verdict::kCrash) continue;
    const Case c = LoadKnownCase(k.name);
    absl::StatusOr<CaseOutcome> o = RunCase(SpecOf(c), c);
    ASSERT_TRUE(o.ok()) << k.name << ": " << o.status();
    const Verdict want = VerdictHere(k);
    if (want == Verdict::kAgree) {
      // Agreeing or rejected both ways (a dtype this release lacks).
      EXPECT_FALSE(IsFinding(o->verdict))
          << k.name << ": " << VerdictName(o->verdict);
    } else {
      EXPECT_EQ(o->verdict, want) << k.name;
    }
  }
  const Case pool =
      LoadKnownCase("max_pool2d-padding-window-out-of-bounds-index");
  absl::StatusOr<CaseOutcome> o = RunCase(SpecOf(pool), pool);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->verdict, Verdict::kAgree)
      << "max_pool2d now shows in one run: list it in kKnownFindings";
}

TEST(KnownFindingReprosTest, GeneratedPythonReprosReproduce) {
  if (ReproPythonTorchVersion().empty())
    GTEST_SKIP() << kReproPython << " cannot import torch";
  const std::filesystem::path dir = FreshDir("known");
  // As dpfuzz runs repros: forked from one warm interpreter, and again in a
  // fresh process where the warm run does not show the bug.
  std::vector<std::future<ProcessResult>> runs;
  for (const KnownFinding& k : kKnownFindings) {
    const Case c = LoadKnownCase(k.name);
    absl::StatusOr<std::string> py = PythonRepro(c, SpecOf(c), ReproVerdict(k));
    ASSERT_TRUE(py.ok()) << k.name << ": " << py.status();
    runs.push_back(std::async(
        std::launch::async,
        [script = WriteFile(dir / (std::string(k.name) + ".py"), *py)] {
          return RunReproPython(script, 300);
        }));
  }
  for (size_t i = 0; i < runs.size(); ++i) {
    const KnownFinding& k = kKnownFindings[i];
    const ProcessResult r = runs[i].get();
    if (!KnownFindingShows(k.name)) {
      EXPECT_TRUE(r.exited && r.exit_status == 0)
          << k.name << " is fixed on this LibTorch: " << Describe(r) << "\n"
          << r.output;
      continue;
    }
    if (ReproVerdict(k) == Verdict::kCrash) {
      // A heap corruption aborts (or segfaults) in the call or in free().
      EXPECT_TRUE(r.signal != 0 || (r.exited && r.exit_status == 1))
          << k.name << ": " << Describe(r) << "\n"
          << r.output;
      continue;
    }
    EXPECT_TRUE(r.exited && r.exit_status == 1)
        << k.name << ": " << Describe(r) << "\n"
        << r.output;
    EXPECT_NE(r.output.find("expected: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("actual:   "), std::string::npos) << r.output;
  }
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

// True when some tensor argument of `c` with two or more elements has a
// layout other than the contiguous one.
bool HasStridedTensor(const Case& c) {
  for (const TensorSpec* spec : TensorSpecsOf(c)) {
    const StridedLayout& l = spec->layout;
    if (spec->numel() > 1 &&
        (l.storage_offset != 0 ||
         !ComputeIsContiguous(l.sizes, l.strides, MemoryFormat::kContiguous))) {
      return true;
    }
  }
  return false;
}

// A case of `op` with a strided tensor that RunCase judges agree, built
// with BuildCase; with grad_outputs when `backward`.
std::optional<Case> AgreeingCase(const char* op, DType dtype, Variant variant,
                                 bool backward) {
  const OpSpec* spec = FindCuratedOp(op);
  if (spec == nullptr) return std::nullopt;
  BuildOptions options;
  options.alias_one_in = 0;
  options.layout_one_in = 100;  // Almost every tensor strided.
  for (uint64_t seed = 1; seed < 40; ++seed) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(*spec, dtype, variant, seed, options);
    if (!c.ok() || !c->has_value()) continue;
    if (backward && (*c)->grad_outputs.empty()) continue;
    if (!HasStridedTensor(**c)) continue;
    absl::StatusOr<CaseOutcome> o = RunCase(*spec, **c);
    if (o.ok() && o->verdict == Verdict::kAgree) return **c;
  }
  return std::nullopt;
}

// Runs every repro's main() twice in one Python process (torch imports
// once): as generated, and with `call` sabotaged for the strided variant
// only, so that each check must see a bug. Prints "RESULT <label> <plain
// status> <sabotaged status>" per repro.
constexpr char kDriver[] = R"py(import sys
import torch


def perturb(t):
    """Every element changed, to a finite value (NaN + 1 is still NaN)."""
    if t.dtype == torch.bool:
        return t.logical_not()
    return torch.where(t == 1, 2, 1).to(t.dtype)


def sabotage(ns, kind):
    real_call, real_variant = ns["call"], ns["variant_tensors"]
    variant_ids = set()

    def variant_tensors():
        args, grad_outputs, storages = real_variant()
        variant_ids.add(id(args))
        return args, grad_outputs, storages

    def call(a):
        if id(a) not in variant_ids:
            return real_call(a)
        if kind == "raise":
            raise RuntimeError("sabotaged: the variant is rejected")
        if kind == "assert":
            raise RuntimeError("sabotaged: INTERNAL ASSERT FAILED at x.cpp:1")
        if kind == "oom":
            raise RuntimeError("sabotaged: DefaultCPUAllocator: can't "
                               "allocate memory")
        result = real_call(a)
        written = ns["WRITTEN"]
        if kind == "values" and written:
            a[written[0]].copy_(perturb(a[written[0]]))
        elif kind == "values":
            return perturb(result)
        elif kind == "grads":
            return result * 2
        elif kind.startswith("storage:"):
            t = a[kind.split(":")[1]].detach()
            torch.as_strided(t, (1,), (1,), t.storage().size() - 1).fill_(0)
        elif kind == "layout":
            a["out"].set_(a["out"].clone())
        return result

    ns["variant_tensors"] = variant_tensors
    ns["call"] = call


def load(path):
    ns = {"__name__": "dpfuzz_repro"}
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


for label, path, kind in REPROS:
    plain = load(path)["main"]()
    ns = load(path)
    sabotage(ns, kind)
    print("RESULT %s %d %d" % (label, plain, ns["main"]()), flush=True)
)py";

TEST(AgreeingCasesTest, GeneratedPythonReprosExitZeroUnlessSabotaged) {
  if (ReproPythonTorchVersion().empty())
    GTEST_SKIP() << kReproPython << " cannot import torch";
  struct Check {
    Verdict verdict;
    const char* sabotage;  // How the driver breaks the variant's call.
  };
  struct Planned {
    const char* op;
    DType dtype;
    Variant variant;
    bool backward;
    std::vector<Check> checks;
  };
  const Planned planned[] = {
      {"aten::add.Tensor",
       DType::kFloat32,
       Variant::kOut,
       false,
       {{Verdict::kMismatch, "values"},
        {Verdict::kOutsideWrite, "storage:out"},
        {Verdict::kLayoutContract, "layout"}}},
      {"aten::add.Tensor",
       DType::kInt32,
       Variant::kInplace,
       false,
       {{Verdict::kMismatch, "values"},
        {Verdict::kInputModified, "storage:other"}}},
      {"aten::sum",
       DType::kFloat32,
       Variant::kFunctional,
       true,
       {{Verdict::kNanIntroduced, "values"},
        {Verdict::kGradMismatch, "grads"},
        {Verdict::kRejectionMismatch, "raise"}}},
      {"aten::index_select",
       DType::kBool,
       Variant::kFunctional,
       false,
       {{Verdict::kMismatch, "values"},
        {Verdict::kInternalAssert, "assert"},
        // Bool storages: their poison byte 0xA5 is no valid bool.
        {Verdict::kInputModified, "storage:self"},
        {Verdict::kTimeout, "none"},
        {Verdict::kOom, "oom"}}},
  };
  const std::filesystem::path dir = FreshDir("agree");
  std::string repros = "REPROS = [\n";
  std::vector<std::string> labels;
  std::vector<bool> sabotaged;
  std::optional<std::string> crash;  // A crash repro of an agreeing case.
  for (const Planned& p : planned) {
    const std::optional<Case> c =
        AgreeingCase(p.op, p.dtype, p.variant, p.backward);
    ASSERT_TRUE(c.has_value()) << "no agreeing case of " << p.op;
    for (const Check& check : p.checks) {
      absl::StatusOr<std::string> py =
          PythonRepro(*c, SpecOf(*c), check.verdict);
      ASSERT_TRUE(py.ok()) << p.op << " " << check.verdict << ": "
                           << py.status();
      const std::string label =
          absl::StrCat(labels.size(), "_", VariantName(p.variant), "_",
                       VerdictName(check.verdict));
      absl::StrAppend(&repros, "    (\"", label, "\", \"",
                      WriteFile(dir / (label + ".py"), *py), "\", \"",
                      check.sabotage, "\"),\n");
      labels.push_back(label);
      sabotaged.push_back(std::string(check.sabotage) != "none");
    }
    if (!crash.has_value()) {
      absl::StatusOr<std::string> py =
          PythonRepro(*c, SpecOf(*c), Verdict::kCrash);
      ASSERT_TRUE(py.ok()) << py.status();
      crash = *py;
    }
  }
  absl::StrAppend(&repros, "]\n");
  // The crash check: the call returns here; aborting in it must show.
  const std::string main_guard = "\nif __name__ == \"__main__\":";
  const size_t guard = crash->rfind(main_guard);
  ASSERT_NE(guard, std::string::npos);
  const std::string aborting = crash->substr(0, guard) +
                               "\nimport os\n\n\ndef call(a):\n" +
                               "    os.abort()\n\n" + crash->substr(guard);
  const std::vector<ProcessResult> results = RunProcesses(
      {{kReproPython, WriteFile(dir / "driver.py", repros + kDriver)},
       {kReproPython, WriteFile(dir / "crash.py", *crash)},
       {kReproPython, WriteFile(dir / "crash_aborting.py", aborting)}});
  const ProcessResult& driver = results[0];
  EXPECT_TRUE(driver.exited && driver.exit_status == 0)
      << Describe(driver) << "\n"
      << driver.output;
  for (size_t i = 0; i < labels.size(); ++i) {
    // A timeout cannot be sabotaged in a test's time: both runs return.
    const char* expected = sabotaged[i] ? " 0 1\n" : " 0 0\n";
    EXPECT_NE(driver.output.find(absl::StrCat("RESULT ", labels[i], expected)),
              std::string::npos)
        << labels[i] << " should give" << expected << driver.output;
  }
  EXPECT_TRUE(results[1].exited && results[1].exit_status == 0)
      << Describe(results[1]) << "\n"
      << results[1].output;
  EXPECT_NE(results[1].output.find("actual:   the call returned"),
            std::string::npos)
      << results[1].output;
  EXPECT_EQ(results[2].signal, SIGABRT) << Describe(results[2]) << "\n"
                                        << results[2].output;
  if (!HasFailure()) std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dpfuzz
