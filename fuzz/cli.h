// The dpfuzz command line: flags, their parsing, and the options they make.
//
// Flags are Abseil flags, but parsed here (through absl/flags/reflection)
// rather than by absl::ParseCommandLine, so that every usage error is one
// clear line and exit status 2, as scripts expect, and --help prints
// dpfuzz's own usage instead of every flag linked into the binary.
//
//   absl::StatusOr<CommandLine> cl = ParseCommandLine(argc, argv);
//   absl::StatusOr<CampaignOptions> o = CampaignOptionsFromFlags();

#ifndef DPFUZZ_FUZZ_CLI_H_
#define DPFUZZ_FUZZ_CLI_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "crashes/repro/repro_files.h"
#include "fuzz/campaign.h"
#include "fuzz/report.h"

namespace dpfuzz {

struct CommandLine {
  bool help = false;
  std::vector<std::string> positional;  // Arguments that are not flags.
  std::vector<std::string> load;        // --load, in order.
};

// Loads the --load libraries (and keeps their list for the workers); an
// error names the one that cannot be loaded.
absl::Status LoadLibraries(const CommandLine& cl);

absl::StatusOr<CommandLine> ParseCommandLine(int argc, char** argv);

// The usage text --help prints.
std::string UsageText();

// `dpfuzz list-ops [--op=PATTERN] [--findings=DIR] [--device=D]`: one line
// per overload that PATTERN names (default: all) as fuzzed on D (default
// cpu; no GPU needed to list cuda's), tab-separated: name, status
// (curated, generic, excluded), family or why excluded, variants, dtypes,
// cases ("valid/drawn" from DIR's op stats), and "private" / "random"
// marks; then SUMMARY: lines counting ops with a valid case. A usage error
// for an unknown device.
absl::StatusOr<std::string> ListOpsText();

// Options of a fuzzing campaign from the parsed flags; errors name the
// flag, the value and what is accepted.
absl::StatusOr<CampaignOptions> CampaignOptionsFromFlags();

// --device; a usage error when the device cannot be used here.
absl::StatusOr<Device> DeviceFromFlags();

// --jobs, --timeout and --rss_limit_mb (replay and repro use them too).
absl::StatusOr<SupervisorOptions> IsolationFromFlags();

// --format, which means a repro format to repro (default python) and a
// report format to report (default md).
absl::StatusOr<ReproFormat> ReproFormatFromFlags();
absl::StatusOr<ReportFormat> ReportFormatFromFlags();
// --out; "" for standard output.
std::string OutFlag();

// Writes the summary JSON if --summary_json was given.
absl::Status WriteSummaryIfRequested(const CampaignSummary& summary);

// "60" (seconds), "90s", "10m", "1h" -> seconds; errors name --flag.
absl::StatusOr<double> ParseSeconds(const std::string& flag,
                                    const std::string& text);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_CLI_H_
