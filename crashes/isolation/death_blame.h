// Whom a worker's death is blamed on: the op call of one side of a case,
// or dpfuzz's own code.
//
// See Note [Call phases] (oracles/call_phase.h). A death inside an op call
// is that call's side's: the strided variant's (a layout bug) or the
// contiguous baseline's (a baseline failure). Heap corruption that glibc
// reports later, a segfault in LibTorch's code after an op call returned
// (the destructor of a result the op left corrupt), or memory that ran
// out after an op call returned, is the last call's side's. Any other death
// between op calls (a segfault, an abort, a hang, memory used up before any op
// ran) is dpfuzz's own: an internal error, never a finding, unless the
// supervisor finds that the layouts caused it (Note [Deaths after a call],
// crashes/isolation/supervisor.h).
//
//   BlamedSide(Verdict::kCrash, phase, lines)  // nullopt: dpfuzz's bug

#ifndef DPFUZZ_CRASHES_ISOLATION_DEATH_BLAME_H_
#define DPFUZZ_CRASHES_ISOLATION_DEATH_BLAME_H_

#include <optional>
#include <string>
#include <vector>

#include "oracles/call_phase.h"
#include "oracles/verdict.h"

namespace dpfuzz {

// `verdict`: kCrash, kTimeout or kOom; `phase`: where the case stood,
// nullopt when the worker recorded none (then the variant is blamed, as
// the case in flight always was before phases existed).
std::optional<CallSide> BlamedSide(Verdict verdict,
                                   const std::optional<CallPhase>& phase,
                                   const std::vector<std::string>& last_lines);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_DEATH_BLAME_H_
