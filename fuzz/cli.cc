#include "fuzz/cli.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "generators/op_registry.h"
#include "oracles/case_builder.h"

ABSL_FLAG(
    std::string, op, "",
    "Ops to fuzz, comma-separated (masked_select, aten::add.Tensor), or all.");
ABSL_FLAG(int64_t, runs, 0, "Cases to run; 0: no limit.");
ABSL_FLAG(
    std::string, max_time, "60",
    "Time budget: seconds (60) or a duration (90s, 10m, 1h); 0: no limit.");
ABSL_FLAG(uint64_t, seed, 0,
          "Campaign seed; 0: pick one from the clock and print it.");
ABSL_FLAG(std::string, dtypes, "",
          "Allowed dtypes, comma-separated (f32,i64,...); empty: all each op "
          "accepts.");
ABSL_FLAG(std::string, findings, "findings",
          "Directory for findings; empty: do not store.");
ABSL_FLAG(std::string, summary_json, "",
          "Also write the summary as JSON to this file.");
ABSL_FLAG(bool, grad, true, "Check gradients of differentiable ops.");
ABSL_FLAG(bool, alias, false,
          "Also let out= and in-place tensors share memory with inputs. Off by "
          "default until cases run in isolated workers: LibTorch 1.13 corrupts "
          "its heap on some of these (masked_select, tril, triu out=).");
ABSL_FLAG(bool, progress, true,
          "Live progress line on stderr when it is a terminal.");

namespace dpfuzz {
namespace {

constexpr const char* kFlagNames[] = {
    "op",       "runs",         "max_time", "seed",  "dtypes",
    "findings", "summary_json", "grad",     "alias", "progress"};

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
      "usage: dpfuzz --op=NAME[,NAME...] [flags]\n"
      "       dpfuzz list-ops   (the curated ops, their variants and "
      "dtypes)\n\n"
      "flags:\n";
  for (const char* name : kFlagNames) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    absl::StrAppend(
        &text, "  --", name, "  ", flag->Help(), " (default: ",
        flag->DefaultValue().empty() ? "\"\"" : flag->DefaultValue(), ")\n");
  }
  absl::StrAppend(
      &text,
      "\nexit status: 0 no finding, 1 findings, 2 bad usage.\n"
      "Each unique finding is stored in FINDINGS/<verdict>-<op>-<hash>/ as "
      "case.json and finding.json.\n");
  return text;
}

std::string ListOpsText() {
  std::string text;
  for (const OpSpec& spec : CuratedOps()) {
    std::vector<std::string> variants;
    for (Variant v : VariantsOf(spec)) variants.emplace_back(VariantName(v));
    std::vector<std::string> dtypes;
    for (DType d : spec.dtypes) dtypes.emplace_back(DTypeName(d));
    absl::StrAppend(&text, spec.op, spec.overload.empty() ? "" : ".",
                    spec.overload, "\tcurated\t", spec.family, "\t",
                    absl::StrJoin(variants, ","), "\t",
                    absl::StrJoin(dtypes, ","), "\n");
  }
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
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return UsageError(absl::StrCat("flag --", name, "=", value, ": ", error));
    }
  }
  return cl;
}

absl::StatusOr<double> ParseSeconds(const std::string& text) {
  double seconds = 0;
  if (absl::SimpleAtod(text, &seconds) && seconds >= 0) return seconds;
  absl::Duration d;
  if (absl::ParseDuration(text, &d) && d >= absl::ZeroDuration()) {
    return absl::ToDoubleSeconds(d);
  }
  return UsageError(
      absl::StrCat("flag --max_time=", text,
                   ": expected seconds (60) or a duration (90s, 10m, 1h)"));
}

absl::StatusOr<CampaignOptions> CampaignOptionsFromFlags() {
  CampaignOptions options;
  const std::string ops = absl::GetFlag(FLAGS_op);
  if (ops.empty())
    return UsageError("no op given: pass --op=NAME (see dpfuzz --help)");
  for (absl::string_view name :
       absl::StrSplit(ops, ',', absl::SkipWhitespace())) {
    if (name == "all") {
      for (const OpSpec& spec : CuratedOps()) options.ops.push_back(&spec);
      continue;
    }
    const OpSpec* spec = FindCuratedOp(name);
    if (spec == nullptr) {
      return UsageError(absl::StrCat("flag --op: no curated op \"", name,
                                     "\"; dpfuzz knows ", CuratedOps().size(),
                                     " ops (--op=all runs them all)"));
    }
    options.ops.push_back(spec);
  }
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
  DPFUZZ_ASSIGN_OR_RETURN(options.max_time_seconds,
                          ParseSeconds(absl::GetFlag(FLAGS_max_time)));
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
  options.build.check_grad = absl::GetFlag(FLAGS_grad);
  if (!absl::GetFlag(FLAGS_alias)) options.build.alias_one_in = 0;
  options.progress = absl::GetFlag(FLAGS_progress) && isatty(fileno(stderr));
  return options;
}

absl::Status WriteSummaryIfRequested(const CampaignSummary& summary) {
  const std::string path = absl::GetFlag(FLAGS_summary_json);
  if (path.empty()) return absl::OkStatus();
  return WriteFileAtomically(path, SummaryJson(summary), "summary");
}

}  // namespace dpfuzz
