#include "fuzz/reduce_command.h"

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "fuzz/replay.h"
#include "generators/case_json.h"
#include "oracles/resource_oracles.h"
#include "reducers/isolated_runner.h"
#include "reducers/reducer.h"

namespace dpfuzz {

absl::Status RunReduceCommand(const std::vector<std::string>& args,
                              const std::string& out,
                              SupervisorOptions isolation,
                              std::ostream& stdout_, std::ostream& log) {
  DPFUZZ_ASSIGN_OR_RETURN(ReplayItem item, OneReplayItem("reduce", args));
  DPFUZZ_RETURN_IF_ERROR(CheckRunsHere("reduce", item));
  DPFUZZ_ASSIGN_OR_RETURN(Case c, LoadCaseFile(item.case_path));
  if (item.expected.has_value()) {
    TurnOnOracleOf(item.expected->outcome.verdict, isolation.worker.resources);
  }
  DPFUZZ_ASSIGN_OR_RETURN(std::unique_ptr<IsolatedRunner> runner,
                          IsolatedRunner::Start(isolation));
  Finding original;
  if (item.expected.has_value()) {
    original = *item.expected;
    original.c = c;
  } else {
    DPFUZZ_ASSIGN_OR_RETURN(std::optional<Finding> f, runner->Run(c));
    if (!f.has_value()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "reduce: ", item.case_path,
          " shows no finding on this LibTorch; nothing to reduce"));
    }
    original = std::move(*f);
  }
  ReduceOptions options;
  options.verify = [&runner](const Case& x) { return runner->RunFresh(x); };
  options.on_other_finding = [&log](const Finding& f) {
    log << "INFO: met another finding while reducing: " << f.signature << "\n";
  };
  const ReduceResult r = Reduce(
      original, [&runner](const Case& x) { return runner->Run(x); }, options);
  if (r.flaky) {
    return absl::FailedPreconditionError(
        absl::StrCat("reduce: ", item.case_path, " does not reproduce ",
                     ReductionKey(original), " (flaky?); nothing reduced"));
  }
  log << "INFO: reduced " << ReductionKey(original) << " "
      << ReductionSummary(c, r) << std::endl;
  const std::string text = CaseToJson(r.reduced);
  if (out.empty()) {
    stdout_ << text;
    return absl::OkStatus();
  }
  return WriteFileAtomically(out, text, "reduced case");
}

}  // namespace dpfuzz
