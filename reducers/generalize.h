// Generalization: where a reduced bug shows beyond the case it was reduced
// to, as ClusterFuzz's variant task re-runs a testcase under other jobs.
//
// The case's lead dtype (its first tensor's, the one its op's spec draws)
// is replaced, in every tensor that has it, by each other dtype its op
// accepts (the op's spec), and each such case runs once in an isolated
// worker: the bug shows in that dtype when the run gives a finding of the
// same op, variant and verdict family. The report's class.md tables and
// report.json say "all dtypes but f64" from it; a maintainer reads there
// whether the kernel's mistake is dtype-independent (one code path) or
// lives in one dtype's dispatch.
//
//   Generality g = Generalize(finding, run, /*max_calls=*/12);
//   g.shown   // {kFloat32, kFloat64}
//   g.quiet   // {kInt64}: the bug did not show

#ifndef DPFUZZ_REDUCERS_GENERALIZE_H_
#define DPFUZZ_REDUCERS_GENERALIZE_H_

#include <set>
#include <string>
#include <vector>

#include "crashes/findings/finding.h"
#include "generators/dtype.h"
#include "reducers/reducer.h"

namespace dpfuzz {

struct Generality {
  std::set<DType> shown;  // The finding's own dtype included.
  std::set<DType> quiet;  // Ran, and the bug did not show.
};

// At most `max_calls` runs, the op's dtypes in its spec's order.
Generality Generalize(const Finding& finding, const CaseRunner& run,
                      int max_calls);

// {"f32", "f64"}: finding.json's spelling of a Generality's sets.
std::vector<std::string> DTypeNames(const std::set<DType>& dtypes);

// "f32, f64" ("only f32"), or "all 9 dtypes tried" / "all 9 dtypes tried
// but f16" when fewer were quiet than shown; "" when nothing was tried.
std::string GeneralitySummary(const Generality& g);

}  // namespace dpfuzz

#endif  // DPFUZZ_REDUCERS_GENERALIZE_H_
