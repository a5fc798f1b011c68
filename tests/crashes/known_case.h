// Test helper: the case of one of known_findings/ (a real LibTorch bug),
// for tests that need a realistic case.
//
//   Case c = LoadKnownCase("tril-out-gapped-writes-outside-view");

#ifndef DPFUZZ_TESTS_CRASHES_KNOWN_CASE_H_
#define DPFUZZ_TESTS_CRASHES_KNOWN_CASE_H_

#include <string>

#include "generators/case.h"

namespace dpfuzz {

// Fails the calling test (and returns an empty Case) when it cannot load.
Case LoadKnownCase(const std::string& name);

// known_findings/<name>/case.json.
std::string KnownCasePath(const std::string& name);

}  // namespace dpfuzz

#endif  // DPFUZZ_TESTS_CRASHES_KNOWN_CASE_H_
