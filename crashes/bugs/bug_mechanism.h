// What explains a finding: the mechanism a bug class is made of.
//
// Wrong values are explained by simulation in the worker
// (oracles/mechanism.h, Note [Mechanisms by simulation]; writes with no
// values to simulate, by the places they changed: oracles/places_written.h),
// a broken out= promise by what was seen ("replaces_out", "marks_out_conj",
// "returns_other_tensor", oracles/run_case.cc), and a memory format an op
// should keep by the input that had it ("drops_memory_format",
// oracles/rules.h): the finding's evidence names the mistake and the
// argument. Other verdicts are explained by what
// the op said or where it died:
//  - a rejection whose error says an internal `.view` failed ("view size
//    is not compatible with input tensor's size and stride", "use
//    .reshape(...) instead"): "view_not_reshape";
//  - any other rejection: "rejects", detailed by its error's first line
//    with numbers, shapes and names in quotes normalized, so that one
//    check reached from many ops is one mechanism;
//  - an internal assert: "internal_assert_at", detailed by the source
//    file and line it names;
//  - a crash: "crash_at", detailed by the crash key (signal and top
//    frames, crashes/isolation/crash_signature.h) in its signature, when
//    that key names a function of LibTorch's; a key of glibc's message or
//    of library names alone (heap corruption noticed at a later free(), a
//    crash in an unsymbolized parallel region) says nothing of which
//    kernel died, and the crash is unexplained;
//  - a finding blamed on a size-one dim's stride (feature
//    "odd_unit_stride": the case with only that stride made canonical
//    agrees): "size_one_stride_used";
//  - a leak, memory_amplification or perf_cliff: "unexplained_cost" (a
//    cost is measured, its cause not simulated);
//  - anything else: "unexplained", never a guess.
//
//   BugMechanism m = MechanismOf(finding);
//   m.name      // "writes_as_contiguous"
//   m.argument  // "out"
//   m.role      // "out"

#ifndef DPFUZZ_CRASHES_BUGS_BUG_MECHANISM_H_
#define DPFUZZ_CRASHES_BUGS_BUG_MECHANISM_H_

#include <string>

#include "crashes/findings/finding.h"

namespace dpfuzz {

struct BugMechanism {
  std::string name;      // "reads_as_contiguous", ..., "unexplained".
  std::string detail;    // What names it further: an error's normalized
                         // first line, "aten/src/ATen/native/Foo.cpp:12".
  std::string argument;  // The argument it is about ("" when unknown).
  // The argument's role: "out" (written: out= or an in-place self),
  // "result" (returned), "grad_output", "index" (integer dtype), "mask"
  // (bool), "input", "shared" (arguments sharing memory), "" unknown.
  std::string role;
};

BugMechanism MechanismOf(const Finding& f);

// True when the mechanism explains anything ("unexplained" and
// "unexplained_cost" do not).
bool Explains(const BugMechanism& m);

// Whether a mechanism's argument names a result of the call ("output 0",
// a gradient "grad of self") rather than an argument.
bool NamesAResult(const std::string& name);

// A title naming the mechanism, for people: "writes `out` as if it were
// contiguous".
std::string MechanismTitle(const BugMechanism& m);

// What goes wrong, in two sentences, for a class's umbrella issue.
std::string MechanismExplanation(const BugMechanism& m);

// An error's first line with what varies from call to call (numbers,
// bracketed shapes, quoted names) made one text.
std::string NormalizedErrorLine(const std::string& error);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_BUGS_BUG_MECHANISM_H_
