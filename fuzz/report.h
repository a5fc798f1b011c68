// The report of a findings directory: its bugs ranked, and what is not a
// bug, for people (Markdown, HTML) and for programs (JSON).
//
// Read from the directory alone, so it can be made at a campaign's end
// (WriteReports writes report.md, report.html and report.json into the
// directory) or at any later time (`dpfuzz report FINDINGS`). It holds:
//  - the bugs (crashes/bugs/bug.h), ranked: id, op, variant, verdict and
//    family, culprit, feature, severity, confidence (and why it is low),
//    dtypes, hits, one line of evidence, its findings and its issue.md;
//  - baseline failures (the contiguous baseline itself fails), flaky
//    findings (not shown again in a fresh worker) and overlap findings,
//    which are never bugs: on the page one row per op, variant and verdict
//    (fuzz/report_not_bugs.h), in JSON every finding;
//  - internal errors: dpfuzz's own failures, errors/<name>/error.json
//    ({"ticket" or "op", "error", "case": a file beside it}), read as far
//    as they can be: an unreadable one is listed as such;
//  - quarantined ops: quarantine.json ([{"op", "deaths", "reason"}]);
//  - findings and hits per op and verdict;
//  - valid cases per op (op_stats.json: drawn, valid, seeded), the least
//    valid first.
// Paths in a report are relative to the report's own directory, so the
// links work wherever the directory is moved. The HTML page is one
// self-contained file (inline CSS, no scripts, nothing fetched), every
// text HTML-escaped; its tables have ids: bugs, baseline_failures, flaky,
// errors, quarantined, counts, validity (one <tr> per entry in <tbody>).
//
// The bug classes lead (fuzz/report_classes.h): one mechanism across ops,
// each class of two or more bugs with its class.md in <findings>/classes/.
//
// JSON (format "dpfuzz-report", version 1):
//   {"bugs": [{"id": "tril-out-wrong_values-1a2b3c4d", "op": "aten::tril",
//              "variant": "out", "verdict": "outside_write",
//              "family": "wrong_values", "culprit": "out",
//              "feature": "gapped", "severity": "memory",
//              "confidence": "high", "confidence_reason": "",
//              "dtypes": ["f32"], "hits": 3, "untriaged": false,
//              "generality": "all 9 dtypes tried but f16",
//              "detail": "...",
//              "findings": ["outside_write-tril-0123456789abcdef"],
//              "issue": "outside_write-tril-0123456789abcdef/issue.md",
//              "class": "writes_as_contiguous-out-wrong_values-0a1b2c3d",
//              "mechanism": {"name": "writes_as_contiguous", "detail": "",
//                            "argument": "out", "role": "out"},
//              "first_seen_seconds": 4.2}],
//    "classes": [{"id", "mechanism", "detail", "title", "explanation",
//                 "role", "verdict", "severity", "confidence", "members",
//                 "ops", "hits", "class_md"}],
//    "baseline_failures": [...], "flaky": [...], "errors": [...],
//    "quarantined": [...], "counts": [{"op", "verdict", "findings",
//    "hits"}], "validity": [{"op", "tried", "valid", "seeded_tried",
//    "seeded_valid", "valid_rate"}], "summary": {...}}
//
//   absl::StatusOr<std::string> md = RenderReport("findings",
//                                                 ReportFormat::kMarkdown);
//   absl::Status s = WriteReports("findings");  // findings/report.{md,...}

#ifndef DPFUZZ_FUZZ_REPORT_H_
#define DPFUZZ_FUZZ_REPORT_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dpfuzz {

// A campaign's layout-coverage cells (crashes/findings/layout_corpus.h), copied
// into its findings directory at its end: the report's coverage map.
inline constexpr char kCoverageCellsFile[] = "coverage.cells";

enum class ReportFormat : uint8_t {
  kMarkdown,  // "md": report.md.
  kHtml,      // "html": report.html, one self-contained page.
  kJson,      // "json": report.json.
};

// "md", "html", "json".
absl::string_view ReportFormatName(ReportFormat format);
// The inverse; the error lists the accepted names.
absl::StatusOr<ReportFormat> ParseReportFormat(absl::string_view name);

// The report of `findings_dirs` (one, or the shards of one campaign,
// fuzz/shard.h, read as one) with paths relative to `report_dir` (the
// directory the report will be read from; "" means the first findings
// directory). An error when a directory or a finding in it cannot be read.
absl::StatusOr<std::string> RenderReport(
    const std::vector<std::string>& findings_dirs, ReportFormat format,
    const std::string& report_dir = "");

// Writes report.md, report.html and report.json into `findings_dir`, each
// atomically.
absl::Status WriteReports(const std::string& findings_dir);

// `dpfuzz report FINDINGS...`: `args` are the words after "report" (one
// findings directory, or the shards' of one campaign). The report goes to `out`
// (atomically; paths relative to its directory) or, when `out` is "", to
// `stdout_` (paths relative to the working directory). Errors are one line for
// the user.
absl::Status RunReportCommand(const std::vector<std::string>& args,
                              ReportFormat format, const std::string& out,
                              std::ostream& stdout_);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_REPORT_H_
