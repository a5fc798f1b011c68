// Which case of a finding, or finding of a bug, is the better evidence:
// the one a maintainer reads first (Note [The most ordinary lead] in
// fuzz/triage.cc).
//
// The findings store keeps, of the cases of one finding signature, the
// best by EvidenceRank; a bug leads with its best finding by the same
// rank first (GroupBugs, the triage's lead).
//
//   if (EvidenceRank(found.c) < EvidenceRank(stored.c)) ...  // replace

#ifndef DPFUZZ_CRASHES_BUGS_EVIDENCE_ORDER_H_
#define DPFUZZ_CRASHES_BUGS_EVIDENCE_ORDER_H_

#include <cstdint>
#include <utility>

#include "generators/case.h"

namespace dpfuzz {

// A tensor of the case holds values a maintainer reads as contrived:
// specials its dtype has (NaN, infinities, -0, subnormals, integer
// extremes), values across the dtype's range, explicit values that are
// not finite.
bool HoldsUnusualValues(const Case& c);

// 2 when the case's arguments share memory (calls PyTorch leaves
// undefined), 1 when it HoldsUnusualValues, else 0.
int Oddity(const Case& c);

// Total elements of a case's tensors.
int64_t CaseSize(const Case& c);

// (Oddity, CaseSize): the lower, the better evidence.
std::pair<int, int64_t> EvidenceRank(const Case& c);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_BUGS_EVIDENCE_ORDER_H_
