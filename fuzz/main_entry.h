// dpfuzz's main, shared by the product binary and test binaries that add
// op specs of their own (AddOps) before calling it, so that their workers
// (the same binary, re-executed) know those ops too.
//
// Commands: fuzzing (--op), replay, repro, reduce, report, list-ops,
// --help, and the hidden `__worker` a supervisor starts. Exit status: 0
// nothing found, 1 findings (or cases that reproduce), 2 bad usage or
// input.

#ifndef DPFUZZ_FUZZ_MAIN_ENTRY_H_
#define DPFUZZ_FUZZ_MAIN_ENTRY_H_

namespace dpfuzz {

int DpfuzzMain(int argc, char** argv);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_MAIN_ENTRY_H_
