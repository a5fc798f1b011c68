// dpfuzz_fuzzer: dpfuzz as a libFuzzer target, for an existing fuzzing
// engine (libFuzzer itself, ClusterFuzzLite, OSS-Fuzz) to run.
//
// Each input is a case in its byte form (oracles/case_bytes.h): a case file,
// or a choice stream the op generators draw from. The case runs in process
// through every oracle (oracles/run_case.h), as a dpfuzz worker runs it;
// its layout-coverage cells (oracles/layout_coverage.h) are the coverage
// libFuzzer sees, as extra counters, since LibTorch itself is not
// instrumented. The custom mutator decodes an input, mutates the case
// structurally (generators/case_mutator.h) or, one time in two, draws a
// new case from fresh choices (a choice stream: libFuzzer's byte mutations
// of it), and hands
// back the case form: every input libFuzzer keeps or crashes on, but for
// those given to it, is a case file, which `dpfuzz replay` replays.
//
// A layout-bug finding is confirmed by running its case again, then stops
// the target with a line naming its bug identity (crashes/bugs/bug.h), the
// identity dpfuzz deduplicates on:
//   dpfuzz: FINDING: bug=<id> verdict=<verdict> op=<op>
// Baseline failures (the contiguous call fails alone), findings of the
// known list, findings that do not show again and findings that show only
// while an out= or in-place tensor shares memory with an input (its
// unshared twin agrees) do not stop it, as dpfuzz's triage reports none of
// them as bugs. A crash
// of LibTorch stops it as any crash does.
//
// libFuzzer owns argv, so the target takes its settings from the
// environment:
//   DPFUZZ_OPS      the ops, as dpfuzz's --op takes them (default "all")
//   DPFUZZ_LOAD     shared libraries of operators to load first, ':'-separated
//   DPFUZZ_DEVICE   cpu (default) or cuda
//   DPFUZZ_GRAD     0: no gradients (default 1)
//   DPFUZZ_KNOWN    a known-findings file (dpfuzz --known) to leave out
//   DPFUZZ_UNIFORM  1: generate each case afresh from the input's hash,
//                   ignoring its structure: uniform random generation, for
//                   comparison with coverage guidance
//                   (bench/coverage_compare.sh)
//   DPFUZZ_CELLS    a file to write every layout-coverage cell reached to,
//                   one per line, when the target exits
//   DPFUZZ_NO_STOP  1: findings are printed, not stopped on (measurements)

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crashes/bugs/bug.h"
#include "crashes/findings/finding.h"
#include "crashes/findings/known_issues.h"
#include "generators/case_mutator.h"
#include "generators/dtype.h"
#include "generators/op_catalog.h"
#include "generators/op_library.h"
#include "generators/op_registry.h"
#include "generators/rng.h"
#include "oracles/case_bytes.h"
#include "oracles/invoke.h"
#include "oracles/layout_coverage.h"
#include "oracles/run_case.h"
#include "oracles/verdict.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace dpfuzz {
namespace {

// See oracles/layout_coverage.h. libFuzzer reads this section after each input
// and clears it before the next.
constexpr size_t kNumCounters = 1 << 16;
__attribute__((used, section("__libfuzzer_extra_counters")))
uint8_t extra_counters[kNumCounters];

struct Target {
  std::vector<const OpSpec*> ops;
  BuildOptions build;
  KnownIssues known;
  bool uniform = false;
  bool stop = true;             // On a finding; DPFUZZ_NO_STOP=1: not.
  std::string cells_file;       // DPFUZZ_CELLS; "": none.
  std::set<std::string> cells;  // Reached, when cells_file is set.
};

Target* target = nullptr;

std::string Env(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

[[noreturn]] void Fail(const std::string& message) {
  std::cerr << "dpfuzz_fuzzer: " << message << std::endl;
  std::exit(2);
}

void WriteCells();

Target* MakeTarget() {
  SkipErrorBacktraces();
  auto* t = new Target;
  for (absl::string_view lib :
       absl::StrSplit(Env("DPFUZZ_LOAD", ""), ':', absl::SkipEmpty())) {
    if (absl::Status s = LoadOpLibrary(std::string(lib)); !s.ok()) {
      Fail(absl::StrCat("DPFUZZ_LOAD: ", s.message()));
    }
  }
  absl::StatusOr<Device> device = ParseDevice(Env("DPFUZZ_DEVICE", "cpu"));
  if (!device.ok())
    Fail(absl::StrCat("DPFUZZ_DEVICE: ", device.status().message()));
  t->build.device = *device;
  t->build.check_grad = Env("DPFUZZ_GRAD", "1") != "0";
  t->uniform = Env("DPFUZZ_UNIFORM", "0") == "1";
  t->cells_file = Env("DPFUZZ_CELLS", "");
  t->stop = Env("DPFUZZ_NO_STOP", "0") != "1";
  for (absl::string_view name :
       absl::StrSplit(Env("DPFUZZ_OPS", "all"), ',', absl::SkipEmpty())) {
    absl::StatusOr<std::vector<const OpSpec*>> specs =
        ResolveOps(name, *device);
    if (!specs.ok())
      Fail(absl::StrCat("DPFUZZ_OPS: ", specs.status().message()));
    for (const OpSpec* spec : *specs) {
      // Ops whose arguments only recorded seeds give are left to dpfuzz.
      if (spec->seeds_only.empty()) t->ops.push_back(spec);
    }
  }
  if (t->ops.empty()) Fail("DPFUZZ_OPS names no op a choice stream can draw");
  if (!t->cells_file.empty()) std::atexit(WriteCells);
  const std::string known = Env("DPFUZZ_KNOWN", "");
  if (!known.empty()) {
    absl::StatusOr<KnownIssues> k = KnownIssues::Load(known);
    if (!k.ok()) Fail(absl::StrCat("DPFUZZ_KNOWN: ", k.status().message()));
    t->known = std::move(*k);
  }
  std::cerr << "INFO: dpfuzz_fuzzer: " << t->ops.size() << " ops on "
            << DeviceName(*device) << (t->uniform ? ", uniform generation" : "")
            << std::endl;
  return t;
}

// The empty input (libFuzzer's first) is no case: every input that can
// stop the target is then one the custom mutator wrote, a case form.
std::optional<Case> Decode(const uint8_t* data, size_t size) {
  if (size == 0) return std::nullopt;
  absl::StatusOr<std::optional<Case>> c =
      DecodeCase(data, size, target->ops, target->build);
  if (!c.ok() || !c->has_value()) return std::nullopt;
  return std::move(**c);
}

// The uniform baseline: a fresh case from the input's hash alone.
std::optional<Case> DecodeUniform(const uint8_t* data, size_t size) {
  uint64_t seed = 0;
  Rng hashed = Rng::FromChoices(data, size);
  while (hashed.choices_left() > 0) hashed.Next();
  seed = hashed.Next();
  Rng rng(seed);
  uint8_t bytes[64];
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.Next());
  return Decode(bytes, sizeof(bytes));
}

void Count(const Case& c, Verdict verdict) {
  for (const LayoutCell& cell : LayoutCellsOf(c, verdict)) {
    extra_counters[cell.Hash() % kNumCounters] = 1;
    if (!target->cells_file.empty()) target->cells.insert(cell.ToString());
  }
}

void WriteCells() {
  std::ofstream out(target->cells_file);
  for (const std::string& cell : target->cells) out << cell << "\n";
}

void ReportFinding(const Case& c, const CaseOutcome& outcome) {
  const Finding finding = MakeFinding(c, outcome);
  std::cerr << "dpfuzz: FINDING: bug=" << BugId(finding)
            << " verdict=" << VerdictName(outcome.verdict)
            << " op=" << QualifiedOpName(c) << "\n"
            << "dpfuzz: " << EvidenceLine(outcome.evidence) << "\n"
            << CaseToString(c) << std::endl;
  if (target->stop) std::abort();
}

// See Note [Overlap findings] in fuzz/triage.cc: a finding that shows only
// while a written tensor shares memory with an input is no bug to file.
bool ShowsOnlyWhileShared(const OpSpec& spec, const Case& c, Verdict verdict) {
  if (c.aliases.empty() || IsDeath(verdict) ||
      verdict == Verdict::kInternalAssert) {
    return false;
  }
  Case unshared = c;
  unshared.aliases.clear();
  absl::StatusOr<CaseOutcome> twin = RunCase(spec, unshared);
  return twin.ok() && !IsFinding(twin->verdict);
}

int RunOne(const uint8_t* data, size_t size) {
  std::optional<Case> c =
      target->uniform ? DecodeUniform(data, size) : Decode(data, size);
  if (!c.has_value()) return 0;
  const OpSpec* spec = FindOpFor(*c);
  if (spec == nullptr) return 0;
  absl::StatusOr<CaseOutcome> outcome = RunCase(*spec, *c);
  if (!outcome.ok()) return 0;  // dpfuzz's own error: never a finding.
  Count(*c, outcome->verdict);
  if (!IsFinding(outcome->verdict) ||
      outcome->kind != FindingKind::kLayoutBug ||
      target->known.Match(FindingSignature(*c, outcome->verdict))) {
    return 0;
  }
  absl::StatusOr<CaseOutcome> again = RunCase(*spec, *c);  // Flaky: no stop.
  if (!again.ok() || again->verdict != outcome->verdict) return 0;
  if (ShowsOnlyWhileShared(*spec, *c, outcome->verdict)) return 0;
  ReportFinding(*c, *outcome);
  return 0;
}

size_t Emit(const std::string& bytes, uint8_t* out, size_t max_size) {
  if (bytes.size() > max_size) return 0;
  std::memcpy(out, bytes.data(), bytes.size());
  return bytes.size();
}

// A case form's text is a poor choice stream (every one starts alike, so
// its first draws, the op, dtype and variant, would never change): a case
// form gets fresh choices instead, a choice form libFuzzer's byte mutations.
constexpr size_t kFreshChoices = 64;

size_t Mutate(uint8_t* data, size_t size, size_t max_size, unsigned seed) {
  Rng rng(seed);
  const bool case_form = IsCaseForm(data, size);
  if (!case_form || rng.OneIn(2)) {
    size_t n = 0;
    if (case_form && max_size >= kFreshChoices) {
      for (n = 0; n < kFreshChoices; ++n)
        data[n] = static_cast<uint8_t>(rng.Next());
    } else {
      n = LLVMFuzzerMutate(data, size, max_size);
    }
    if (n > 0 && data[0] == '{') data[0] = '}';  // Stays a choice form.
    std::optional<Case> c = Decode(data, n);
    if (!c.has_value()) return n;
    const size_t m = Emit(EncodeCase(*c), data, max_size);
    return m > 0 ? m : n;
  }
  std::optional<Case> c = Decode(data, size);
  if (!c.has_value()) return LLVMFuzzerMutate(data, size, max_size);
  const size_t m = Emit(EncodeCase(MutateCase(*c, rng)), data, max_size);
  return m > 0 ? m : size;
}

}  // namespace
}  // namespace dpfuzz

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  dpfuzz::target = dpfuzz::MakeTarget();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return dpfuzz::RunOne(data, size);
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size,
                                          size_t max_size, unsigned int seed) {
  return dpfuzz::Mutate(data, size, max_size, seed);
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* data1, size_t size1,
                                            const uint8_t* data2, size_t size2,
                                            uint8_t* out, size_t max_out_size,
                                            unsigned int seed) {
  using namespace dpfuzz;  // NOLINT: the entry points are C.
  std::optional<Case> a = Decode(data1, size1);
  std::optional<Case> b = Decode(data2, size2);
  if (!a.has_value() || !b.has_value()) return 0;
  Rng rng(seed);
  return Emit(EncodeCase(CrossOver(*a, *b, rng)), out, max_out_size);
}
