// The byte form of a case: what the libFuzzer target reads and writes.
//
// Two forms, told apart by their first byte:
//
//  - the case form, a case file (generators/case_json.h), which starts with
//    '{': every Case (a seed, a reduced case, a finding of dpfuzz) has one,
//    EncodeCase writes it and `dpfuzz replay` reads it as it reads any
//    case file;
//  - the choice form, any other bytes: a choice stream (Note [Choice
//    streams], generators/rng.h) from which the first draws pick the op
//    (among `ops`), the dtype and the variant, and the rest drive the op's
//    generator through BuildCase, as a campaign's seed would. Every byte
//    string is a choice form, so libFuzzer's own byte mutations always give
//    a case; the case it gives re-encodes to its case form, which is what
//    the custom mutator (generators/case_mutator.h) hands back to libFuzzer.
//
//   absl::StatusOr<std::optional<Case>> c = DecodeCase(data, size, ops, {});
//   if (c.ok() && c->has_value()) std::string bytes = EncodeCase(**c);
//
// Decoding a choice form is deterministic in (bytes, ops, options); decoding
// a case form does not need the ops at all.

#ifndef DPFUZZ_ORACLES_CASE_BYTES_H_
#define DPFUZZ_ORACLES_CASE_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "generators/op_spec.h"
#include "oracles/case_builder.h"

namespace dpfuzz {

// True for the case form (a case file's text).
bool IsCaseForm(const uint8_t* data, size_t size);

// The case `data` holds: nullopt when a choice form's arguments are ones the
// op itself rejects (no case, as for a campaign's invalid draw); an error
// for a malformed case form, or a choice form with no op to pick.
absl::StatusOr<std::optional<Case>> DecodeCase(
    const uint8_t* data, size_t size, const std::vector<const OpSpec*>& ops,
    const BuildOptions& options);

// The case form of `c`.
std::string EncodeCase(const Case& c);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_CASE_BYTES_H_
