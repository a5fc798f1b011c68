// The fixed part of every C++ repro: includes and the helpers that build
// tensors exactly, call the op through the dispatcher, and judge results
// as dpfuzz's oracles do. It needs nothing but LibTorch. It comes in
// sections (core, compare, backward, reference, storage, layout); a repro
// carries the core and the sections its check uses.
//
// The case-specific part that follows (crashes/repro/repro_cpp.h) defines the
// constants the helpers read (kExact, kTiedIndices, kTieDim,
// kNondeterministic, kPropagatesStrides, kMemoryFormat, kWritten, ...),
// the tensors, Call() and main(). The helpers mirror those of the Python
// prelude (crashes/repro/repro_python_prelude.h), one for one, under C++ names:
// Storage, View, Dense, Try, Results, Widen, FirstDifference,
// CompareOutput, Backward, StorageChange, BrokenOutContract,
// BrokenLayoutPromise.

#ifndef DPFUZZ_CRASHES_REPRO_REPRO_CPP_PRELUDE_H_
#define DPFUZZ_CRASHES_REPRO_REPRO_CPP_PRELUDE_H_

#include <string>

#include "crashes/repro/repro_plan.h"

namespace dpfuzz {

// C++ source for `check`: the includes and the helpers before the case's
// constants. The helpers read the constants through declarations in the
// prelude, so the case part must define every one of them.
std::string CppReproPrelude(ReproCheck check);

// The sections `check` adds to the core
// (crashes/repro/repro_cpp_prelude_checks.cc).
std::string CppReproCheckHelpers(ReproCheck check);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_REPRO_CPP_PRELUDE_H_
