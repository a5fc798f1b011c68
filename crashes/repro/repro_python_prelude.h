// The fixed part of every Python repro: imports and the helpers that build
// tensors exactly, call the op, and judge results as dpfuzz's oracles do.
// It comes in sections (core, compare, backward, storage, layout); a repro
// carries the core and the sections its check uses.
//
// The case-specific part that follows (crashes/repro/repro_python.h) defines
// the constants the helpers read (EXACT, TIED_INDICES, TIE_DIM,
// NONDETERMINISTIC, PROPAGATES_STRIDES, MEMORY_FORMAT, WRITTEN, VERDICT),
// the tensors, `call` and `main`. The prelude mirrors, in order:
//   storage, view, dense   generators/materialize.h, oracles/case_tensors.h
//   attempt                oracles/invoke.h (CallGuarded)
//   flatten, results       oracles/invoke.h, oracles/call_results.h (ResultsOf)
//   first_difference       oracles/compare.h (CompareValues)
//   compare_output         oracles/rules.h (CompareOutput: ties, randomness)
//   backward               oracles/backward.h
//   snapshot, storage_change  oracles/case_tensors.h (CheckStorages)
//   broken_out_contract    oracles/run_case.cc (CheckOutArguments)
//   broken_layout_promise  oracles/rules.h (CheckLayoutPromises)

#ifndef DPFUZZ_CRASHES_REPRO_REPRO_PYTHON_PRELUDE_H_
#define DPFUZZ_CRASHES_REPRO_REPRO_PYTHON_PRELUDE_H_

#include <string>

#include "crashes/repro/repro_plan.h"

namespace dpfuzz {

// Python source for `check`, ending in blank lines.
std::string PythonReproPrelude(ReproCheck check);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_REPRO_PYTHON_PRELUDE_H_
