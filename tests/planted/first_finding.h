// The first finding an op shows over seeds 1, 2, ...: how tests and the
// reduction bench find a planted bug before reducing it.
//
//   absl::StatusOr<std::optional<Finding>> f =
//       FirstFinding(*FindOp("planted::segv_neg"), run, 300);

#ifndef DPFUZZ_TESTS_PLANTED_FIRST_FINDING_H_
#define DPFUZZ_TESTS_PLANTED_FIRST_FINDING_H_

#include <optional>

#include "absl/status/statusor.h"
#include "generators/op_spec.h"
#include "reducers/reducer.h"

namespace dpfuzz {

// Float32 cases of every variant in turn, without aliased outputs; nullopt
// when none of `max_seeds` seeds shows a finding.
absl::StatusOr<std::optional<Finding>> FirstFinding(const OpSpec& spec,
                                                    const CaseRunner& run,
                                                    int max_seeds);

}  // namespace dpfuzz

#endif  // DPFUZZ_TESTS_PLANTED_FIRST_FINDING_H_
