// The delta reducer: shrinks a finding's Case to a minimal one that still
// shows the same bug.
//
// Interesting means: running the candidate gives a finding with the same
// reduction key as the original (ReductionKey: its signature without the
// dtypes and devices, which reduction may simplify, and, for crash,
// timeout and oom, without the crash key, as replay judges them). A
// different finding met on the way is handed to `on_other_finding`, not
// followed. Candidates must be simpler (reducers/case_order.h), so the
// passes (reducers/reduction_passes.h) run to a fixed point and the result
// is deterministic; passes that keep more candidates run first. Results
// are cached by case; calls and time are budgeted. Tensors of the same
// sizes in the original keep the same sizes (reducers/shape_ties.h).
//
// The original is run first: when it does not reproduce, the finding is
// flaky and not reduced. The result is run once more with `verify` (a
// fresh worker) when given; when it fails there, the original is kept.
//
//   ReduceResult r = Reduce(finding, runner, options);
//   r.reduced  // the minimal case; r.finding its finding

#ifndef DPFUZZ_REDUCERS_REDUCER_H_
#define DPFUZZ_REDUCERS_REDUCER_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "crashes/findings/finding.h"

namespace dpfuzz {

// Runs a case: its finding, or nullopt when it shows none. An error when
// it could not be run (not interesting).
using CaseRunner =
    std::function<absl::StatusOr<std::optional<Finding>>(const Case&)>;

struct ReduceOptions {
  int max_calls = 500;       // Runs of candidates (cache hits are free).
  double max_seconds = 120;  // Wall time.
  CaseRunner verify;         // Runs the result afresh; none: not verified.
  std::function<void(const Finding&)> on_other_finding;
};

struct ReduceResult {
  Case reduced;        // The original when flaky or not verified.
  Finding finding;     // What the reduced case shows.
  bool flaky = false;  // The original did not reproduce.
  bool verified = false;
  bool budget_exhausted = false;
  int calls = 0;  // Runner calls, the original's and verify's included.
  int cache_hits = 0;
  double seconds = 0;
  std::map<std::string, int> kept_by_pass;
};

// "op|variant|verdict|dtypes|devices|rest" -> "op|variant|verdict|*|*|rest";
// for crash, timeout and oom, only "op|variant|verdict"; a baseline
// failure's key ends in "|baseline_failure", so that a layout bug never
// reduces to one (nor is triaged as one).
std::string ReductionKey(const Finding& finding);

ReduceResult Reduce(const Finding& original, const CaseRunner& run,
                    const ReduceOptions& options);

// "from 3 tensor(s), rank 3, 20 elements to 3 tensor(s), rank 2, 8
// elements in 107 calls, 17.9 s" (and what went wrong, if anything).
std::string ReductionSummary(const Case& before, const ReduceResult& r);

}  // namespace dpfuzz

#endif  // DPFUZZ_REDUCERS_REDUCER_H_
