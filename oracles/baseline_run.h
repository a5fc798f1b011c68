// BaselineRun: a case's contiguous baseline, already called, beside the
// variant's tensors, not yet called.
//
// BuildCase probes the drawn arguments with the functional call on their
// baseline (an argument set the op rejects is no case). When the case it
// then returns is the case it probed, the probe is that case's baseline
// run, and RunCase need not materialize and call the baseline again: the
// probe hands it over (BuildCaseWithBaseline). That holds for a functional
// case without grad_outputs, aliases or arguments written or mutated by
// design, so that the call left every tensor as it was made; for any other
// case there is no BaselineRun. A forward-only campaign's case then makes
// two op calls rather than three.
//
//   absl::StatusOr<std::optional<BuiltCase>> b =
//       BuildCaseWithBaseline(spec, dtype, variant, seed, options);
//   RunCase(spec, (*b)->c, std::move((*b)->baseline_run));

#ifndef DPFUZZ_ORACLES_BASELINE_RUN_H_
#define DPFUZZ_ORACLES_BASELINE_RUN_H_

#include "oracles/case_tensors.h"
#include "oracles/invoke.h"

namespace dpfuzz {

struct BaselineRun {
  CaseTensors variant;   // MaterializeVariant's, untouched by any call.
  CaseTensors baseline;  // MaterializeBaseline(variant), after the call.
  CallResult call;       // The functional call on `baseline`.
};

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_BASELINE_RUN_H_
