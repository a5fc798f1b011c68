// BrokenOutputPromise: an op's outputs lie where their layouts say.
//
// Nothing reads an output before this holds: a strided output addresses
// only elements of its storage, and a nested one keeps the promises of
// its metadata (oracles/nested_promises.h). A kernel that sets an output's
// geometry without checking it against the storage leaves a tensor whose
// elements lie past the storage's end: 1.13's `self.set_(source, 1,
// (2, 1, 3))` from an empty `source` keeps sizes [2, 1, 3] at offset 1
// over a storage of 0 bytes (2.x raises "setStorage: ... out of bounds").
// Reading such a tensor reads outside its allocation, and a worker that
// did so died in dpfuzz's own code. An output that breaks a promise is a
// layout_contract finding, the baseline's own failure when the contiguous
// baseline's does.
//
//   if (std::optional<CaseOutcome> broken =
//           BrokenOutputPromise(b, FindingKind::kBaselineFailure)) ...

#ifndef DPFUZZ_ORACLES_OUTPUT_PROMISES_H_
#define DPFUZZ_ORACLES_OUTPUT_PROMISES_H_

#include <ATen/ATen.h>

#include <optional>
#include <string>

#include "oracles/invoke.h"
#include "oracles/run_case.h"

namespace dpfuzz {

// Where a strided `output` reaches past the end of its storage, said in
// words; nullopt when it lies inside it, is empty, or is not strided.
std::optional<std::string> CheckInsideStorage(const at::Tensor& output);

// The first output of `result` that breaks a promise (CheckInsideStorage,
// CheckNestedPromises): a layout_contract finding of `kind`, about
// "baseline output I" for a baseline failure, "output I" otherwise.
std::optional<CaseOutcome> BrokenOutputPromise(const CallResult& result,
                                               FindingKind kind);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_OUTPUT_PROMISES_H_
