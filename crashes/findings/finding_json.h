// A Finding as JSON: the finding.json of the store, and the message a
// worker sends its supervisor.
//
// FindingToJson writes op, overload, variant, verdict, signature, evidence,
// layouts (one readable line per tensor), kind ("layout_bug" or
// "baseline_failure"), culprit and feature (the blame, "" when not
// blamed), flaky, LibTorch and dpfuzz versions;
// with `with_case` the case itself too (under "case", as case file text),
// which is what crosses the worker pipe. FindingFromJson reads either form
// back; the case is required only when `with_case` was used.
//
//   nlohmann::json j = FindingToJson(finding, /*with_case=*/true);
//   absl::StatusOr<Finding> back = FindingFromJson(j.dump(), "worker 1");

#ifndef DPFUZZ_CRASHES_FINDINGS_FINDING_JSON_H_
#define DPFUZZ_CRASHES_FINDINGS_FINDING_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "crashes/findings/finding.h"

namespace dpfuzz {

nlohmann::json EvidenceToJson(const Evidence& evidence);

nlohmann::json FindingToJson(const Finding& finding, bool with_case);

// Needs "verdict", "signature" and "evidence"; "case" (case file text)
// when present is parsed into Finding::c. `source` names the text in
// errors.
absl::StatusOr<Finding> FindingFromJson(absl::string_view text,
                                        absl::string_view source);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_FINDINGS_FINDING_JSON_H_
