// dpfuzz: parse flags, make options, install the stop request, run.

#include <csignal>
#include <iostream>

#include "crashes/finding.h"
#include "fuzz/campaign.h"
#include "fuzz/cli.h"

namespace {

std::atomic<bool> stop_requested{false};

void RequestStop(int) { stop_requested.store(true); }

}  // namespace

int main(int argc, char** argv) {
  absl::StatusOr<dpfuzz::CommandLine> cl = dpfuzz::ParseCommandLine(argc, argv);
  if (cl.ok() && cl->help) {
    std::cout << dpfuzz::UsageText();
    return 0;
  }
  if (cl.ok() && cl->positional.size() == 1 &&
      cl->positional[0] == "list-ops") {
    std::cout << dpfuzz::ListOpsText();
    return 0;
  }
  if (cl.ok() && !cl->positional.empty()) {
    cl = absl::InvalidArgumentError("unexpected argument \"" +
                                    cl->positional.front() +
                                    "\"; see dpfuzz --help");
  }
  absl::StatusOr<dpfuzz::CampaignOptions> options =
      cl.ok() ? dpfuzz::CampaignOptionsFromFlags() : cl.status();
  if (!options.ok()) {
    std::cerr << "dpfuzz: " << options.status().message() << "\n";
    return 2;
  }
  std::signal(SIGINT, RequestStop);
  std::signal(SIGTERM, RequestStop);
  std::cout << "INFO: dpfuzz " << dpfuzz::DpfuzzVersion() << " on LibTorch "
            << dpfuzz::LibTorchVersion() << "; " << options->ops.size()
            << " op(s), seed " << options->seed << std::endl;
  const dpfuzz::CampaignSummary summary =
      dpfuzz::RunCampaign(*options, std::cout, &stop_requested);
  std::cout << dpfuzz::SummaryLine(summary) << std::endl;
  if (absl::Status s = dpfuzz::WriteSummaryIfRequested(summary); !s.ok()) {
    std::cerr << "dpfuzz: " << s.message() << "\n";
    return 2;
  }
  return summary.findings.empty() ? 0 : 1;
}
