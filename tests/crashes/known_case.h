// Test helper: the case of one of known_findings/ (a real LibTorch bug),
// for tests that need a realistic case, and whether that bug shows on the
// LibTorch under test.
//
//   Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");
//   Verdict want = KnownFindingShows(name) ? k.verdict : Verdict::kAgree;

#ifndef DPFUZZ_TESTS_CRASHES_KNOWN_CASE_H_
#define DPFUZZ_TESTS_CRASHES_KNOWN_CASE_H_

#include <string>

#include "crashes/findings/finding.h"
#include "generators/case.h"

namespace dpfuzz {

// Fails the calling test (and returns an empty Case) when it cannot load.
Case LoadKnownCase(const std::string& name);

// known_findings/<name>/case.json.
std::string KnownCasePath(const std::string& name);

// Whether the bug shows on the LibTorch under test: not when
// known_findings/<name>/found_in names a later release, nor when fixed_in
// names this one or an earlier one (see known_findings/README.md); fails
// the calling test when either file is malformed.
bool KnownFindingShows(const std::string& name);

// The gapped tril.out finding (an outside write) with `rows` rows in both
// tensors (same strides): a smaller `rows`, a smaller case of the same bug.
// Its evidence detail is "rows <rows>".
Finding TrilOutFinding(int64_t rows);

// The verdict known_findings/<name>/issue.md gives on its "- verdict:"
// line (the first `word` there, e.g. "- verdict: `outside_write`"); fails
// the calling test and returns kAgree when there is none.
Verdict KnownFindingVerdict(const std::string& name);

// The kind of finding dpfuzz files it as: its finding.json's where it keeps
// one (a bug of the arguments, found as a baseline failure), else a layout
// bug; fails the calling test when that file does not parse.
FindingKind KnownFindingKind(const std::string& name);

// Whether known_findings/<name> keeps a hand-written repro.py: its case does
// not show the bug in one run of a generated repro (known_findings/README.md).
bool KnownFindingHasHandWrittenRepro(const std::string& name);

// Whether the LibTorch under test is `release` ("2.11.0") or newer; fails
// the calling test when `release` is malformed.
bool LibTorchIsAtLeast(const std::string& release);

}  // namespace dpfuzz

#endif  // DPFUZZ_TESTS_CRASHES_KNOWN_CASE_H_
