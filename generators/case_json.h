// The case file: a Case as stable, human-readable, diffable JSON.
//
// Keys are sorted, floats are written so that they read back bit for bit
// (NaN and infinities as the strings "nan", "inf", "-inf"), and every field
// is checked on load: unknown fields, wrong types, out-of-range numbers and
// inconsistent layouts are rejected with the file, the field path and the
// offending value, never with a crash.
//
//   {
//     "args": [
//       {"name": "self", "tensor": {"device": "cpu", "dtype": "f32",
//         "requires_grad": false, "sizes": [2, 3], "storage_offset": 0,
//         "strides": [1, 2],
//         "values": {"distribution": "dyadic", "seed": 7, "specials": []}}},
//       {"name": "dim", "int": 1}
//     ],
//     "format": "dpfuzz-case", "op": "aten::sum", "overload": "dim_IntList",
//     "seed": 42, "variant": "functional", "version": 1
//   }
//
// An argument holds exactly one of: "none" (null), "bool", "int", "float",
// "string", "ints", "tensor", "tensors". Optional top-level fields:
// "aliases" ([{"arg": "out", "base": "self"}]: out lives in self's storage)
// and "grad_outputs" (tensors fed to backward).

#ifndef DPFUZZ_GENERATORS_CASE_JSON_H_
#define DPFUZZ_GENERATORS_CASE_JSON_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "generators/case.h"

namespace dpfuzz {

inline constexpr int kCaseFormatVersion = 1;

// The case file text, ending in a newline.
std::string CaseToJson(const Case& c);

// Parses case file text; `source` names it in errors ("findings/x/case.json").
absl::StatusOr<Case> CaseFromJson(absl::string_view text,
                                  absl::string_view source = "<case>");

absl::StatusOr<Case> LoadCaseFile(const std::string& path);

// Writes atomically: a temporary file beside `path`, then a rename, so that
// an interrupted run never leaves a half-written case.
absl::Status SaveCaseFile(const Case& c, const std::string& path);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_CASE_JSON_H_
