// Cost of the delta reducer: predicate calls and seconds per reduction.
//
//   build/default/bench/dpfuzz_reduce_bench [KNOWN_FINDINGS_DIR]
//
// Reduces, as `dpfuzz reduce` and campaigns do (candidates in an isolated
// worker with the checking allocator, the result verified afresh):
//   planted  every planted-bug op (tests/planted), found over seeds first;
//   real     every stored case under KNOWN_FINDINGS_DIR (default: the
//            source tree's known_findings/, the LibTorch 1.13.1 bugs), with
//            the finding it shows on this LibTorch.
// Prints one line per reduction (size before and after, calls, seconds)
// and the median and maximum calls and seconds of each group and of all.
// Crash reductions are dominated by worker restarts, hangs by --timeout.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "fuzz/replay.h"
#include "generators/case_json.h"
#include "generators/op_registry.h"
#include "reducers/isolated_runner.h"
#include "reducers/reducer.h"
#include "tests/planted/first_finding.h"
#include "tests/planted/planted_specs.h"

namespace dpfuzz {
namespace {

constexpr int kMaxSeeds = 300;

struct Row {
  std::string group;
  std::string name;
  std::string summary;
  int calls;
  double seconds;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void PrintStats(const std::string& group, const std::vector<Row>& rows) {
  std::vector<double> calls, seconds;
  for (const Row& r : rows) {
    if (group != "all" && r.group != group) continue;
    calls.push_back(r.calls);
    seconds.push_back(r.seconds);
  }
  if (calls.empty()) return;
  std::cout << absl::StrFormat(
      "%-8s %2d reductions: calls median %.0f max %.0f; seconds median %.1f "
      "max %.1f\n",
      group, calls.size(), Median(calls),
      *std::max_element(calls.begin(), calls.end()), Median(seconds),
      *std::max_element(seconds.begin(), seconds.end()));
}

// Reduces `original` with a fresh runner; false when it could not run.
bool ReduceOne(const std::string& group, const std::string& name,
               const Finding& original, IsolatedRunner& runner,
               std::vector<Row>& rows) {
  ReduceOptions options;
  options.verify = [&runner](const Case& c) { return runner.RunFresh(c); };
  const ReduceResult r = Reduce(
      original, [&runner](const Case& c) { return runner.Run(c); }, options);
  rows.push_back(
      {group, name, ReductionSummary(original.c, r), r.calls, r.seconds});
  std::cout << absl::StrFormat("%-7s %-55s %s\n", group, name,
                               rows.back().summary)
            << std::flush;
  return !r.flaky;
}

int Main(int argc, char** argv) {
  const std::string known =
      argc > 1 ? argv[1] : std::string(DPFUZZ_SOURCE_DIR "/known_findings");
  AddOps(AllPlantedSpecs());
  SupervisorOptions isolation;
  isolation.executable = DPFUZZ_PLANTED_BINARY;
  isolation.timeout_seconds = 1;
  isolation.rss_limit_mb = 512;
  absl::StatusOr<std::unique_ptr<IsolatedRunner>> runner =
      IsolatedRunner::Start(isolation);
  if (!runner.ok()) {
    std::cerr << "reduce_bench: " << runner.status() << "\n";
    return 2;
  }
  std::vector<Row> rows;
  std::vector<PlantedOp> planted = PlantedOps();
  for (const PlantedOp& op : PlantedDeathOps()) planted.push_back(op);
  for (const PlantedOp& op : planted) {
    if (op.expected == Verdict::kAgree) continue;
    absl::StatusOr<std::optional<Finding>> f = FirstFinding(
        op.spec, [&](const Case& c) { return (*runner)->Run(c); }, kMaxSeeds);
    if (!f.ok() || !f->has_value()) {
      std::cerr << "reduce_bench: no finding for " << op.spec.op << "\n";
      return 1;
    }
    ReduceOne("planted", op.spec.op, **f, **runner, rows);
  }
  absl::StatusOr<std::vector<ReplayItem>> items = CollectReplayItems({known});
  if (!items.ok()) {
    std::cerr << "reduce_bench: " << items.status() << "\n";
    return 2;
  }
  for (const ReplayItem& item : *items) {
    // As `dpfuzz reduce` does: what the case shows here is the finding.
    absl::StatusOr<Case> c = LoadCaseFile(item.case_path);
    absl::StatusOr<std::optional<Finding>> original =
        c.ok() ? (*runner)->Run(*c) : c.status();
    if (!original.ok() || !original->has_value()) {
      std::cerr << "reduce_bench: " << item.case_path
                << " shows no finding here; skipped\n";
      continue;
    }
    const std::string dir = item.case_path.substr(
        0, item.case_path.size() - std::string("/case.json").size());
    ReduceOne("real", dir.substr(dir.find_last_of('/') + 1), **original,
              **runner, rows);
  }
  std::cout << "\n";
  for (const char* group : {"planted", "real", "all"}) PrintStats(group, rows);
  return 0;
}

}  // namespace
}  // namespace dpfuzz

int main(int argc, char** argv) { return dpfuzz::Main(argc, argv); }
