// The report's tables of findings that are not bugs (baseline failures,
// flaky and overlap findings), one row per op, variant and verdict.
//
// A whole-library campaign stores hundreds of them, one per signature: the
// same failure of one op in each dtype it was drawn in (a baseline's
// internal assert in twelve dtypes is twelve findings). Read as a list to
// skim, not as bugs, each group is one row: the finding with the most hits
// first, linked, with how many more the group holds, the group's hits and
// that finding's evidence. report.json keeps every finding.
//
//   Table t = NotBugsTable("flaky", "Flaky findings (not bugs)",
//                          report.at("flaky"));

#ifndef DPFUZZ_FUZZ_REPORT_NOT_BUGS_H_
#define DPFUZZ_FUZZ_REPORT_NOT_BUGS_H_

#include <nlohmann/json.hpp>
#include <string>

#include "fuzz/report_tables.h"

namespace dpfuzz {

// `findings`: report.json's entries ({"dir", "op", "variant", "verdict",
// "hits", "detail", ...}), in the order their groups are listed.
Table NotBugsTable(const std::string& id, const std::string& title,
                   const nlohmann::json& findings);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_REPORT_NOT_BUGS_H_
