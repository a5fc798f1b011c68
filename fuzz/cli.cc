#include "fuzz/cli.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <system_error>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "fuzz/op_knowledge.h"
#include "generators/aten_bridge.h"
#include "generators/op_catalog.h"
#include "generators/op_library.h"
#include "generators/op_registry.h"
#include "generators/schema_spec.h"
#include "generators/seed_corpus.h"
#include "oracles/device_memory.h"
#include "oracles/resource_oracles.h"

ABSL_FLAG(
    std::string, op, "",
    "Ops to fuzz, comma-separated: names (masked_select, aten::add.Tensor; "
    "an op name also selects its nested spec), globs (aten::*pool*), "
    "nested:NAME or nested:* for nested-tensor specs only, or all.");
ABSL_FLAG(int64_t, runs, 0,
          "Cases to run; 0: no limit. A campaign killed or interrupted "
          "resumes when started again on the same --findings directory and "
          "ops (its findings/campaign.json): budgets count what it ran "
          "before.");
ABSL_FLAG(
    std::string, max_time, "60",
    "Time budget: seconds (60) or a duration (90s, 10m, 1h); 0: no limit.");
ABSL_FLAG(uint64_t, seed, 0,
          "Campaign seed; 0: pick one from the clock and print it.");
ABSL_FLAG(std::string, shard, "0/1",
          "I/N: this runner's part of a campaign split over N runners given "
          "the same --op and --seed (ops split when there are at least N, "
          "seeds always); merge their findings with dpfuzz report DIR...");
ABSL_FLAG(std::string, dtypes, "",
          "Allowed dtypes, comma-separated (f32,i64,...); empty: all each op "
          "accepts.");
ABSL_FLAG(std::string, device, "cpu",
          "Device the drawn cases run on: cpu, or cuda (also compares the "
          "contiguous baseline on CUDA with the CPU: device_mismatch).");
ABSL_FLAG(std::string, findings, "findings",
          "Directory for findings; empty: do not store.");
ABSL_FLAG(std::string, corpus, "",
          "Directory of the cases that reached new layout coverage (op x "
          "variant x dtype x argument x layout feature, and verdicts), kept "
          "as case files; a campaign mutates them one case in four "
          "(coverage-guided) and adds what it reaches; empty: none.");
ABSL_FLAG(std::string, summary_json, "",
          "Also write the summary as JSON to this file.");
ABSL_FLAG(bool, grad, true, "Check gradients of differentiable ops.");
ABSL_FLAG(bool, alias, true,
          "Also let out= and in-place tensors share memory with inputs.");
ABSL_FLAG(bool, progress, true,
          "Live progress line on stderr when it is a terminal.");
ABSL_FLAG(int32_t, jobs, 1, "Worker processes running cases in parallel.");
ABSL_FLAG(std::string, timeout, "",
          "Per-case time limit, seconds or a duration; past it the case is a "
          "timeout finding; 0: none; empty: 3s on CPU (cases are small: a "
          "case past it almost always loops on a drawn count), 10s with "
          "--device=cuda (first calls load kernels).");
ABSL_FLAG(int64_t, rss_limit_mb, 4096,
          "Per-worker resident memory limit in MB; past it the case is an oom "
          "finding; 0: none.");
ABSL_FLAG(std::string, known, "",
          "Known bugs, comma-separated: a known-issues file (findings matching "
          "its signature patterns, crashes/findings/known_issues.h) or a "
          "directory of "
          "cases (known_findings/, an earlier run's findings/: each case of "
          "an op fuzzed here is run first, and the findings like the one it "
          "shows, any dtypes, fuzz/known_cases.h). Known findings are "
          "counted apart (KNOWN: lines), not reported.");
ABSL_FLAG(bool, python_check, true,
          "Run each new bug's repro.py with the Python dpfuzz was built "
          "for (CMake's DPFUZZ_PYTHON, e.g. /usr/bin/python3) when its torch "
          "is the LibTorch under test; record the result in finding.json. "
          "Also write each bug's issue.md: a short snippet, checked by "
          "running it.");
ABSL_FLAG(bool, baseline_failures, false,
          "Exit 1 for baseline failures too (the contiguous baseline itself "
          "crashes, hangs or asserts on the drawn arguments: not a layout "
          "bug, reported apart); by default only layout bugs do.");
ABSL_FLAG(bool, reduce, true,
          "Reduce each new finding to a minimal case before storing it (the "
          "case found is kept as original.json).");
ABSL_FLAG(double, triage_share, 0.25,
          "Share of the campaign's time that reducing and blaming new root "
          "causes may take, beyond a first 20 s; past it they are stored "
          "untriaged and triaged when the share allows again. 0: none in "
          "the campaign (dpfuzz triage FINDINGS does it later).");
ABSL_FLAG(std::string, format, "",
          "repro: python (repro.py, the default) or cpp (repro.cc; "
          "CMakeLists.txt beside --out); report: md (the default), html or "
          "json.");
ABSL_FLAG(std::string, out, "",
          "repro, reduce, report: write here instead of standard output.");
ABSL_FLAG(std::string, seeds, DPFUZZ_DEFAULT_SEEDS,
          "Directory of seed arguments recorded from PyTorch's OpInfo and "
          "module samples (scripts/harvest_seeds.py; the build makes this "
          "track's); half the cases of an op with seeds start from one, "
          "their layouts, dtypes and variants mutated. \"\": none.");
ABSL_FLAG(std::string, oracles, "",
          "Opt-in oracles of what a layout costs, comma-separated, beside "
          "the value oracles (which always run): leak (allocated bytes grow "
          "call after call), memory (peak bytes past --memory_ratio times "
          "the contiguous baseline's plus contiguous copies'), perf (time "
          "past --perf_ratio times the baseline's plus the copies'), or "
          "all. Off by default: they run each case many times more, so "
          "fewer cases per second. perf times CPU cases only; leak and "
          "memory also count CUDA memory (the caching allocator's "
          "statistics, LibTorch 2.9 and later).");
ABSL_FLAG(double, memory_ratio, 4,
          "--oracles=memory: the peak-bytes ratio past which a layout is a "
          "memory_amplification finding (with --memory_excess_kb).");
ABSL_FLAG(int64_t, memory_excess_kb, 64,
          "--oracles=memory: the peak must also exceed what is allowed by "
          "this many KiB (the ratio alone flags bookkeeping on tiny cases).");
ABSL_FLAG(double, perf_ratio, 20,
          "--oracles=perf: the time ratio past which a layout is a "
          "perf_cliff finding, in two measurements.");
ABSL_FLAG(std::vector<std::string>, load, {},
          "Shared library of operators (TORCH_LIBRARY) to load first; "
          "repeatable.");

namespace dpfuzz {
namespace {

constexpr const char* kFlagNames[] = {"op",
                                      "runs",
                                      "max_time",
                                      "seed",
                                      "shard",
                                      "dtypes",
                                      "device",
                                      "findings",
                                      "corpus",
                                      "summary_json",
                                      "grad",
                                      "alias",
                                      "progress",
                                      "jobs",
                                      "timeout",
                                      "rss_limit_mb",
                                      "known",
                                      "python_check",
                                      "baseline_failures",
                                      "reduce",
                                      "triage_share",
                                      "format",
                                      "out",
                                      "load",
                                      "seeds",
                                      "oracles",
                                      "memory_ratio",
                                      "memory_excess_kb",
                                      "perf_ratio"};

absl::Status UsageError(const std::string& message) {
  return absl::InvalidArgumentError(message);
}

bool IsOurFlag(absl::string_view name) {
  for (const char* n : kFlagNames) {
    if (name == n) return true;
  }
  return false;
}

}  // namespace

std::string UsageText() {
  std::string text =
      "dpfuzz: a differential fuzzer for the stride and memory-layout handling "
      "of "
      "LibTorch.\n\n"
      "Runs each op on a contiguous baseline and on strided, offset, "
      "expanded,\n"
      "overlapping, channels_last and aliased layouts of the same values, and "
      "reports\n"
      "where they disagree (values, NaNs, errors, writes outside views, "
      "gradients).\n\n"
      "usage: dpfuzz --op=NAME[,NAME...] [flags]   fuzz ops\n"
      "       dpfuzz replay PATH...   re-run case files or findings "
      "directories;\n"
      "                               exit 1 when any still reproduces\n"
      "       dpfuzz repro PATH [--format=python|cpp] [--out=FILE]\n"
      "                               a standalone repro of a case file or a\n"
      "                               finding's directory\n"
      "       dpfuzz reduce PATH [--out=FILE]\n"
      "                               a case reduced to a minimal one that\n"
      "                               shows the same bug\n"
      "       dpfuzz report FINDINGS... [--format=md|html|json] [--out=FILE]\n"
      "                               the bugs of a findings directory (or "
      "of\n"
      "                               several: a campaign's shards), "
      "ranked,\n"
      "                               and what is not a bug (default: "
      "Markdown\n"
      "                               on standard output)\n"
      "       dpfuzz triage FINDINGS   reduce, blame and check the root "
      "causes a\n"
      "                               campaign stored untriaged when its "
      "triage\n"
      "                               budget ran out; then rewrite its "
      "report\n"
      "                               (resumable: Ctrl-C, then run again)\n"
      "       dpfuzz list-ops [--op=PATTERN] [--device=cpu|cuda]\n"
      "                               every op: curated, generic or excluded\n"
      "                               (why) on that device, variants, valid\n"
      "                               cases so far (--findings)\n\n"
      "Cases run in --jobs worker processes; a case that kills its worker, "
      "runs past\n"
      "--timeout or past --rss_limit_mb is a crash, timeout or oom "
      "finding.\n"
      "With --oracles (off by default: fewer cases per second), what a "
      "layout costs is\n"
      "judged too: leaks, peak memory and time against the contiguous call "
      "plus\n"
      "contiguous copies (leak, memory_amplification, perf_cliff).\n\n"
      "flags:\n";
  for (const char* name : kFlagNames) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    absl::StrAppend(
        &text, "  --", name, "  ", flag->Help(), " (default: ",
        flag->DefaultValue().empty() ? "\"\"" : flag->DefaultValue(), ")\n");
  }
  absl::StrAppend(
      &text,
      "\nexit status: 0 no new layout bug (known findings, baseline "
      "failures, flaky\nfindings and internal errors aside; "
      "--baseline_failures counts those), 1 new\nlayout bugs, 2 bad usage.\n"
      "Each unique finding is stored in FINDINGS/<verdict>-<op>-<hash>/ as "
      "case.json\n(reduced), original.json (as found), finding.json, repro.py, "
      "repro.cc and\nCMakeLists.txt.\n");
  return text;
}

absl::StatusOr<std::string> ListOpsText() {
  const std::string op_flag = absl::GetFlag(FLAGS_op);
  const std::string pattern = op_flag.empty() ? "all" : op_flag;
  const std::string findings = absl::GetFlag(FLAGS_findings);
  absl::StatusOr<OpKnowledge> knowledge =
      findings.empty() ? OpKnowledge()
                       : OpKnowledge::Load(findings + "/" + kOpStatsFile);
  absl::StatusOr<SeedCorpus> seeds =
      SeedCorpus::Open(absl::GetFlag(FLAGS_seeds));
  const absl::StatusOr<Device> device =
      ParseDevice(absl::GetFlag(FLAGS_device));
  if (!device.ok()) {
    return UsageError(
        absl::StrCat("flag --device: ", device.status().message()));
  }
  std::string text =
      "# overload\tstatus\tfamily or reason\tvariants\tdtypes\tvalid/tried "
      "(all)\tvalid/tried (seeded)\tvalid rate\trecorded seeds\tseeds "
      "of\tmarks\n";
  int64_t counted = 0, covered = 0, no_dense_kernel = 0;
  // Dense-kernel functional non-random overloads, private ones included;
  // of them, those an exact rule excludes (with its reason above).
  int64_t dense = 0, dense_covered = 0, dense_excluded = 0;
  std::vector<double> rates;  // Of the counted overloads with draws.
  for (const CatalogEntry& e : Catalog(pattern, *device)) {
    std::vector<std::string> variants, dtypes;
    std::string detail = e.reason;
    if (e.spec != nullptr) {
      detail = e.spec->seeds_only.empty()
                   ? e.spec->family
                   : absl::StrCat(e.spec->family,
                                  ", from seeds only: ", e.spec->seeds_only);
      for (Variant v : VariantsOf(*e.spec)) {
        variants.emplace_back(VariantName(v));
      }
      for (DType d : e.spec->dtypes) dtypes.emplace_back(DTypeName(d));
    }
    const OpStats* stats = knowledge.ok() ? knowledge->Find(e.name) : nullptr;
    const Tally cases = stats != nullptr ? stats->all : Tally{};
    const Tally seeded = stats != nullptr ? stats->seeded : Tally{};
    // Recorded for this overload or borrowed from another (SourceFor).
    const std::string source =
        seeds.ok() && e.spec != nullptr ? seeds->SourceFor(e.name) : "";
    const SeedIndexEntry* recorded =
        source.empty() ? nullptr : seeds->Find(source);
    std::vector<std::string> marks;
    if (e.is_private) marks.emplace_back("private");
    if (e.is_random) marks.emplace_back("random");
    absl::StrAppend(
        &text, e.name, "\t", e.status, "\t", detail, "\t",
        absl::StrJoin(variants, ","), "\t", absl::StrJoin(dtypes, ","), "\t",
        cases.valid, "/", cases.tried, "\t", seeded.valid, "/", seeded.tried,
        "\t",
        cases.tried > 0 ? absl::StrFormat("%.1f%%", 100 * ValidRate(cases))
                        : "-",
        "\t", recorded != nullptr ? recorded->cases : 0, "\t",
        source == e.name ? "" : source, "\t", absl::StrJoin(marks, ","), "\n");
    // Nested specs are layouts of ops counted already, not overloads.
    if (absl::StartsWith(e.name, kNestedPrefix)) continue;
    if (!e.is_random && !e.writes && e.dense_kernel) {
      ++dense;
      if (cases.valid > 0) ++dense_covered;
      if (e.spec == nullptr) ++dense_excluded;
    }
    if (!e.is_private && !e.is_random && !e.writes) {
      ++counted;
      if (cases.valid > 0) ++covered;
      if (!e.dense_kernel) ++no_dense_kernel;
      if (cases.tried > 0) rates.push_back(ValidRate(cases));
    }
  }
  std::sort(rates.begin(), rates.end());
  absl::StrAppend(
      &text, "SUMMARY: ", covered, " of ", counted,
      " functional, non-private, non-random overloads (", covered, " of the ",
      counted - no_dense_kernel, " with a kernel for dense ",
      DeviceName(*device), " tensors) have had a valid case",
      findings.empty()
          ? ""
          : absl::StrCat(" (stats in ", findings, "/", kOpStatsFile, ")"),
      "\n");
  absl::StrAppend(
      &text, "SUMMARY: ", dense_covered, " of ", dense,
      " functional, non-random overloads with a kernel for dense ",
      DeviceName(*device),
      " tensors, private ones included, have had a valid case (",
      absl::StrFormat("%.1f%%",
                      dense > 0 ? 100.0 * dense_covered / dense : 0.0),
      "); ", dense_covered, " of the ", dense - dense_excluded,
      " not excluded by a rule (",
      absl::StrFormat("%.1f%%",
                      dense > dense_excluded
                          ? 100.0 * dense_covered / (dense - dense_excluded)
                          : 0.0),
      "); median valid rate ",
      rates.empty() ? std::string("-")
                    : absl::StrFormat("%.1f%%", 100 * rates[rates.size() / 2]),
      " over the ", rates.size(), " non-private ones drawn; ",
      seeds.ok()
          ? absl::StrCat(seeds->index().size(),
                         " overloads have recorded seeds (", seeds->dir(), ")")
          : std::string(seeds.status().message()),
      "\n");
  absl::StrAppend(&text,
                  "SUMMARY: every op is judged by the value oracles; "
                  "leak, memory and perf (what a layout costs) run only "
                  "with --oracles, on CPU cases\n");
  return text;
}

absl::StatusOr<CommandLine> ParseCommandLine(int argc, char** argv) {
  CommandLine cl;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "--helpfull") {
      cl.help = true;
      continue;
    }
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      cl.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    bool negated = false;
    if (!IsOurFlag(name) && name.rfind("no", 0) == 0 &&
        IsOurFlag(name.substr(2))) {
      name = name.substr(2);
      negated = true;
    }
    if (!IsOurFlag(name)) {
      return UsageError(
          absl::StrCat("unknown flag --", name, "; see dpfuzz --help"));
    }
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    const bool is_bool = flag->IsOfType<bool>();
    if (negated && (!is_bool || has_value)) {
      return UsageError(
          absl::StrCat("unknown flag --no", name, "; see dpfuzz --help"));
    }
    if (!has_value) {
      if (is_bool) {
        value = negated ? "false" : "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        return UsageError(absl::StrCat("flag --", name, " needs a value"));
      }
    }
    if (name == "load") {  // Repeatable: each one adds a library.
      if (value.empty()) return UsageError("flag --load needs a path");
      cl.load.push_back(value);
      continue;
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return UsageError(absl::StrCat("flag --", name, "=", value, ": ", error));
    }
  }
  return cl;
}

absl::Status LoadLibraries(const CommandLine& cl) {
  for (const std::string& path : cl.load) {
    absl::Status loaded = LoadOpLibrary(path);
    if (!loaded.ok()) return UsageError(std::string(loaded.message()));
  }
  absl::SetFlag(&FLAGS_load, cl.load);
  return absl::OkStatus();
}

absl::StatusOr<double> ParseSeconds(const std::string& flag,
                                    const std::string& text) {
  double seconds = 0;
  if (absl::SimpleAtod(text, &seconds) && seconds >= 0) return seconds;
  absl::Duration d;
  if (absl::ParseDuration(text, &d) && d >= absl::ZeroDuration()) {
    return absl::ToDoubleSeconds(d);
  }
  return UsageError(
      absl::StrCat("flag --", flag, "=", text,
                   ": expected seconds (60) or a duration (90s, 10m, 1h)"));
}

// A selection of ops whose arguments only recorded seeds give
// (OpSpec::seeds_only), none of which has seeds in --seeds, is a usage
// error that says so; with other ops, the campaign skips them.
absl::Status CheckSomeOpIsDrawable(const CampaignOptions& options) {
  for (const OpSpec* spec : options.ops) {
    if (spec->seeds_only.empty()) return absl::OkStatus();
  }
  const std::string& dir = options.isolation.worker.seeds_dir;
  absl::StatusOr<SeedCorpus> seeds = SeedCorpus::Open(dir);
  for (const OpSpec* spec : options.ops) {
    if (seeds.ok() && !seeds->CasesFor(SpecName(*spec)).empty()) {
      return absl::OkStatus();
    }
  }
  const OpSpec& first = *options.ops.front();
  return UsageError(absl::StrCat(
      "flag --op: ", SpecName(first),
      options.ops.size() > 1
          ? absl::StrCat(" and the ", options.ops.size() - 1, " other ops")
          : "",
      " take arguments only recorded seeds give (", first.seeds_only, "), and ",
      dir.empty() ? "--seeds is empty"
                  : absl::StrCat("the seeds in \"", dir, "\" record none"),
      " (scripts/harvest_seeds.py records them)"));
}

absl::StatusOr<CampaignOptions> CampaignOptionsFromFlags() {
  CampaignOptions options;
  const std::string ops = absl::GetFlag(FLAGS_op);
  if (ops.empty())
    return UsageError("no op given: pass --op=NAME (see dpfuzz --help)");
  DPFUZZ_ASSIGN_OR_RETURN(options.isolation, IsolationFromFlags());
  DPFUZZ_ASSIGN_OR_RETURN(options.isolation.worker.device, DeviceFromFlags());
  std::set<const OpSpec*> chosen;
  for (absl::string_view name :
       absl::StrSplit(ops, ',', absl::SkipWhitespace())) {
    absl::StatusOr<std::vector<const OpSpec*>> specs =
        ResolveOps(name, options.isolation.worker.device);
    if (!specs.ok()) {
      return UsageError(absl::StrCat("flag --op: ", specs.status().message(),
                                     " (dpfuzz list-ops lists the ops)"));
    }
    for (const OpSpec* spec : *specs) {
      if (chosen.insert(spec).second) options.ops.push_back(spec);
    }
  }
  DPFUZZ_RETURN_IF_ERROR(CheckSomeOpIsDrawable(options));
  for (absl::string_view name : absl::StrSplit(absl::GetFlag(FLAGS_dtypes), ',',
                                               absl::SkipWhitespace())) {
    absl::StatusOr<DType> dtype = ParseDType(name);
    if (!dtype.ok())
      return UsageError(
          absl::StrCat("flag --dtypes: ", dtype.status().message()));
    options.dtypes.push_back(*dtype);
  }
  if (absl::GetFlag(FLAGS_runs) < 0) {
    return UsageError(absl::StrCat("flag --runs=", absl::GetFlag(FLAGS_runs),
                                   ": must be >= 0"));
  }
  options.runs = absl::GetFlag(FLAGS_runs);
  DPFUZZ_ASSIGN_OR_RETURN(
      options.max_time_seconds,
      ParseSeconds("max_time", absl::GetFlag(FLAGS_max_time)));
  absl::StatusOr<Shard> shard = ParseShard(absl::GetFlag(FLAGS_shard));
  if (!shard.ok()) {
    return UsageError(absl::StrCat("flag --shard: ", shard.status().message()));
  }
  options.shard = *shard;
  options.seed = absl::GetFlag(FLAGS_seed);
  if (options.seed == 0) {
    options.seed = static_cast<uint64_t>(
        std::chrono::system_clock::now().time_since_epoch().count());
  }
  options.findings_dir = absl::GetFlag(FLAGS_findings);
  if (!options.findings_dir.empty()) {
    absl::Status dir =
        MakeDirectories(options.findings_dir, "flag --findings: directory");
    if (!dir.ok()) return UsageError(std::string(dir.message()));
  }
  options.corpus_dir = absl::GetFlag(FLAGS_corpus);
  if (!options.corpus_dir.empty()) {
    absl::Status dir =
        MakeDirectories(options.corpus_dir, "flag --corpus: directory");
    if (!dir.ok()) return UsageError(std::string(dir.message()));
    options.isolation.worker.corpus_dir = options.corpus_dir;
  }
  options.isolation.worker.check_grad = absl::GetFlag(FLAGS_grad);
  if (!absl::GetFlag(FLAGS_alias)) options.isolation.worker.alias_one_in = 0;
  std::vector<KnownIssues::Entry> known;
  for (absl::string_view path :
       absl::StrSplit(absl::GetFlag(FLAGS_known), ',', absl::SkipEmpty())) {
    std::error_code error;
    if (std::filesystem::is_directory(std::string(path), error)) {
      options.known_case_dirs.emplace_back(path);
      continue;
    }
    absl::StatusOr<KnownIssues> k = KnownIssues::Load(std::string(path));
    if (!k.ok()) {
      return UsageError(absl::StrCat("flag --known: ", k.status().message()));
    }
    known.insert(known.end(), k->entries().begin(), k->entries().end());
  }
  options.known = KnownIssues(std::move(known));
  options.python_check = absl::GetFlag(FLAGS_python_check);
  options.reduce = absl::GetFlag(FLAGS_reduce);
  options.triage_share = absl::GetFlag(FLAGS_triage_share);
  if (!(options.triage_share >= 0 && options.triage_share <= 1)) {
    return UsageError("flag --triage_share: a share from 0 to 1, e.g. 0.25");
  }
  options.fail_on_baseline_failures = absl::GetFlag(FLAGS_baseline_failures);
  options.progress = absl::GetFlag(FLAGS_progress) && isatty(fileno(stderr));
  return options;
}

absl::StatusOr<Device> DeviceFromFlags() {
  const std::string name = absl::GetFlag(FLAGS_device);
  absl::StatusOr<Device> device = ParseDevice(name);
  if (!device.ok()) {
    return UsageError(
        absl::StrCat("flag --device=", name, ": ", device.status().message()));
  }
  if (absl::Status s = CheckDeviceAvailable(*device); !s.ok()) {
    return UsageError(absl::StrCat(
        "flag --device=", name, ": ", s.message(),
        "; run where a GPU and a CUDA-enabled LibTorch are, or use "
        "--device=cpu"));
  }
  return *device;
}

namespace {

absl::StatusOr<ResourceOracles> ResourceOraclesFromFlags() {
  absl::StatusOr<ResourceOracles> r =
      ParseOracleList(absl::GetFlag(FLAGS_oracles));
  if (!r.ok()) return UsageError(std::string(r.status().message()));
  r->memory_ratio = absl::GetFlag(FLAGS_memory_ratio);
  r->memory_excess_bytes = absl::GetFlag(FLAGS_memory_excess_kb) * 1024;
  r->perf_ratio = absl::GetFlag(FLAGS_perf_ratio);
  if (!(r->memory_ratio >= 1) || !(r->perf_ratio >= 1)) {
    return UsageError(
        absl::StrCat("flags --memory_ratio=", r->memory_ratio,
                     " and --perf_ratio=", r->perf_ratio,
                     ": ratios of at least 1 (a layout may cost as much "
                     "as contiguous copies)"));
  }
  if (r->memory_excess_bytes < 0) {
    return UsageError("flag --memory_excess_kb: must be >= 0");
  }
  if (absl::GetFlag(FLAGS_device) != "cpu") {
    if (r->perf) {
      return UsageError(absl::StrCat(
          "flag --oracles=", absl::GetFlag(FLAGS_oracles),
          ": perf times CPU cases only; use --device=cpu, or leak,memory "
          "on CUDA"));
    }
    if (r->counts_memory() && !MemoryCountedOn(Device::kCuda)) {
      return UsageError(
          absl::StrCat("flag --oracles=", absl::GetFlag(FLAGS_oracles),
                       ": leak and memory count CUDA memory, and ",
                       WhyMemoryNotCountedOn(Device::kCuda)));
    }
  }
  return *r;
}

}  // namespace

absl::StatusOr<SupervisorOptions> IsolationFromFlags() {
  SupervisorOptions o;
  o.jobs = absl::GetFlag(FLAGS_jobs);
  if (o.jobs < 1 || o.jobs > 256) {
    return UsageError(
        absl::StrCat("flag --jobs=", o.jobs, ": must be between 1 and 256"));
  }
  std::string timeout = absl::GetFlag(FLAGS_timeout);
  if (timeout.empty())
    timeout = absl::GetFlag(FLAGS_device) == "cuda" ? "10" : "3";
  DPFUZZ_ASSIGN_OR_RETURN(o.timeout_seconds, ParseSeconds("timeout", timeout));
  o.rss_limit_mb = absl::GetFlag(FLAGS_rss_limit_mb);
  DPFUZZ_ASSIGN_OR_RETURN(o.worker.resources, ResourceOraclesFromFlags());
  o.worker.libraries = absl::GetFlag(FLAGS_load);
  o.worker.seeds_dir = absl::GetFlag(FLAGS_seeds);
  if (o.rss_limit_mb < 0) {
    return UsageError(
        absl::StrCat("flag --rss_limit_mb=", o.rss_limit_mb, ": must be >= 0"));
  }
  return o;
}

absl::StatusOr<ReproFormat> ReproFormatFromFlags() {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format.empty() || format == "python") return ReproFormat::kPython;
  if (format == "cpp") return ReproFormat::kCpp;
  return UsageError(
      absl::StrCat("flag --format=", format, ": expected python or cpp"));
}

absl::StatusOr<ReportFormat> ReportFormatFromFlags() {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format.empty()) return ReportFormat::kMarkdown;
  absl::StatusOr<ReportFormat> parsed = ParseReportFormat(format);
  if (!parsed.ok()) {
    return UsageError(
        absl::StrCat("flag --format=", format, ": expected md, html or json"));
  }
  return *parsed;
}

std::string OutFlag() { return absl::GetFlag(FLAGS_out); }

absl::Status WriteSummaryIfRequested(const CampaignSummary& summary) {
  const std::string path = absl::GetFlag(FLAGS_summary_json);
  if (path.empty()) return absl::OkStatus();
  return WriteFileAtomically(path, SummaryJson(summary), "summary");
}

}  // namespace dpfuzz
