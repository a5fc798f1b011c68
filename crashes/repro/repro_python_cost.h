// The Python repro's check for the resource verdicts (leak,
// memory_amplification, perf_cliff; oracles/resource_checks.h): the
// measurement in the form PyTorch users know, the two layouts side by
// side. CPU allocations are read from torch.profiler's memory records
// (profile_memory=True: every CPU allocation and free with its size and
// time), so a call's peak and what calls leave allocated are exact; CUDA
// ones from torch.cuda.memory_allocated and max_memory_allocated; times
// are timeit's, the least of three repeats of as many calls as take a
// millisecond. The thresholds are dpfuzz's defaults
// (oracles/resource_oracles.h), and the script exits 1 past them, but for
// time past half the ratio: each call from Python costs microseconds on
// both sides, which lowers the ratio of the small cases dpfuzz reduces to
// (a cliff of 23x in dpfuzz's calls measured 12x from Python).
//
//   absl::StrCat(prelude, PythonCostHelpers(), ..., PythonCostMain(plan))

#ifndef DPFUZZ_CRASHES_REPRO_REPRO_PYTHON_COST_H_
#define DPFUZZ_CRASHES_REPRO_REPRO_PYTHON_COST_H_

#include <string>

#include "crashes/repro/repro_plan.h"

namespace dpfuzz {

// Functions the main() of a resource verdict calls (after the prelude).
std::string PythonCostHelpers();

// main() for plan.verdict, one of kLeak, kMemoryAmplification and
// kPerfCliff.
std::string PythonCostMain(const ReproPlan& plan);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_REPRO_PYTHON_COST_H_
