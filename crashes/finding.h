// Finding: a case the oracles judged to be a bug, with what shows it.
//
// Case + verdict + evidence + signature + environment. The signature is
// what makes two findings "the same bug" for deduplication: the op
// overload, the variant, the verdict, the dtypes and devices of the
// tensors, and whether arguments share memory. FindingSignature returns it
// as text; SignatureHash gives the stable 64-bit FNV-1a hash that names the
// finding's directory (stable across runs and machines, unlike absl::Hash).
//
//   Finding f = MakeFinding(c, outcome);
//   f.signature  // "aten::masked_select|out|mismatch|f32,b8|cpu"

#ifndef DPFUZZ_CRASHES_FINDING_H_
#define DPFUZZ_CRASHES_FINDING_H_

#include <cstdint>
#include <string>

#include "generators/case.h"
#include "oracles/run_case.h"

namespace dpfuzz {

struct Finding {
  Case c;
  CaseOutcome outcome;
  std::string signature;
};

std::string FindingSignature(const Case& c, Verdict verdict);

uint64_t SignatureHash(const std::string& signature);

Finding MakeFinding(const Case& c, const CaseOutcome& outcome);

// The version of the LibTorch dpfuzz was built against: "1.13.0".
std::string LibTorchVersion();

// dpfuzz's own version.
std::string DpfuzzVersion();

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_FINDING_H_
