#include "fuzz/report.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/bugs/bug.h"
#include "crashes/bugs/bug_class.h"
#include "fuzz/op_knowledge.h"
#include "fuzz/report_classes.h"
#include "fuzz/report_not_bugs.h"
#include "fuzz/report_tables.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr int kReportVersion = 1;

constexpr Severity kSeverities[] = {Severity::kMemory, Severity::kWrongValues,
                                    Severity::kAssertOrHang,
                                    Severity::kRejection, Severity::kContract};
constexpr ReportFormat kFormats[] = {ReportFormat::kMarkdown,
                                     ReportFormat::kHtml, ReportFormat::kJson};

// `path` relative to `report_dir`, as a link in the report reads it.
std::string RelativePath(const std::string& path,
                         const std::string& report_dir) {
  std::error_code from_ec, to_ec;
  const fs::path from = fs::weakly_canonical(report_dir, from_ec);
  const fs::path to = fs::weakly_canonical(path, to_ec);
  if (from_ec || to_ec) return path;
  const fs::path relative = to.lexically_relative(from);
  return relative.empty() ? path : relative.string();
}

// `key` of a JSON object written by another part of dpfuzz, as text
// whatever its type ("" when absent): robust to a field of a new form.
std::string TextOf(const Json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

Json PictureJson(const std::optional<LayoutPicture>& p) {
  if (!p.has_value()) return nullptr;
  return {{"argument", p->argument},  {"layout", p->layout},
          {"cells", p->cells},        {"cut", p->cut},
          {"view", p->view},          {"wrong", p->wrong},
          {"misplaced", p->misplaced}};
}

Json BugJson(const Bug& bug, const std::string& report_dir) {
  Json findings = Json::array();
  for (const std::string& dir : bug.findings) {
    findings.push_back(RelativePath(dir, report_dir));
  }
  return {
      {"id", bug.id},
      {"key", bug.key},
      {"op", bug.op},
      {"variant", bug.variant},
      {"verdict", std::string(VerdictName(bug.verdict))},
      {"family", bug.family},
      {"culprit", bug.culprit},
      {"feature", bug.feature},
      {"severity", std::string(SeverityName(bug.severity))},
      {"confidence", std::string(ConfidenceName(bug.confidence))},
      {"confidence_reason", bug.confidence_reason},
      {"dtypes", bug.dtypes},
      {"hits", bug.hits},
      {"untriaged", bug.untriaged},
      {"generality", bug.generality},
      {"class", ClassId(bug)},
      {"picture", PictureJson(bug.picture)},
      {"snippet", SnippetOfIssue(bug.issue)},
      {"mechanism",
       {{"name", bug.mechanism.name},
        {"detail", bug.mechanism.detail},
        {"argument", bug.mechanism.argument},
        {"role", bug.mechanism.role}}},
      {"first_seen_seconds", bug.first_seen_seconds.has_value()
                                 ? Json(*bug.first_seen_seconds)
                                 : Json(nullptr)},
      {"detail", bug.detail},
      {"findings", findings},
      {"issue", bug.issue.empty() ? "" : RelativePath(bug.issue, report_dir)}};
}

// A finding that is not a bug: a baseline failure, a flaky or an overlap
// one.
Json FindingEntry(const StoredFinding& s, const std::string& report_dir) {
  const Finding& f = s.finding;
  return {{"dir", RelativePath(s.dir, report_dir)},
          {"op", QualifiedOpName(f.c)},
          {"variant", std::string(VariantName(f.c.variant))},
          {"verdict", std::string(VerdictName(f.outcome.verdict))},
          {"kind", std::string(FindingKindName(f.outcome.kind))},
          {"hits", s.hits},
          {"detail", EvidenceLine(f.outcome.evidence)}};
}

Json ErrorEntry(const std::string& name, const std::string& what,
                const std::string& error, const std::string& case_path) {
  return {
      {"name", name}, {"what", what}, {"error", error}, {"case", case_path}};
}

// errors/<name>/error.json, each read as far as it can be.
Json ReadErrors(const std::string& findings_dir,
                const std::string& report_dir) {
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(fs::path(findings_dir) / "errors", ec), end;
       !ec && it != end; it.increment(ec)) {
    std::error_code dir_ec;
    if (it->is_directory(dir_ec)) dirs.push_back(it->path());
  }
  std::sort(dirs.begin(), dirs.end());
  Json errors = Json::array();
  for (const fs::path& dir : dirs) {
    const std::string name = dir.filename().string();
    absl::StatusOr<std::string> text =
        ReadFile((dir / "error.json").string(), "internal error");
    const Json j = text.ok() ? Json::parse(*text, nullptr, false) : Json();
    if (!j.is_object()) {
      errors.push_back(ErrorEntry(name, "",
                                  text.ok()
                                      ? "error.json is not a JSON object"
                                      : std::string(text.status().message()),
                                  ""));
      continue;
    }
    const std::string case_file = TextOf(j, "case");
    errors.push_back(
        ErrorEntry(name, TextOf(j, j.contains("ticket") ? "ticket" : "op"),
                   TextOf(j, "error"),
                   case_file.empty()
                       ? ""
                       : RelativePath((dir / case_file).string(), report_dir)));
  }
  return errors;
}

// quarantine.json's entries (none when it is absent); a malformed file
// is listed in `errors`.
Json ReadQuarantine(const std::string& findings_dir, Json& errors) {
  Json quarantined = Json::array();
  const std::string path = findings_dir + "/quarantine.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) return quarantined;
  absl::StatusOr<std::string> text = ReadFile(path, "quarantine list");
  const Json j = text.ok() ? Json::parse(*text, nullptr, false) : Json();
  if (!j.is_array()) {
    errors.push_back(ErrorEntry(
        "quarantine.json", "",
        text.ok() ? "not a JSON array" : std::string(text.status().message()),
        ""));
    return quarantined;
  }
  for (const Json& q : j) {
    if (!q.is_object()) continue;
    const auto deaths = q.find("deaths");
    quarantined.push_back(
        {{"op", TextOf(q, "op")},
         {"deaths", deaths != q.end() && deaths->is_number_integer()
                        ? deaths->get<int64_t>()
                        : 0},
         {"reason", TextOf(q, "reason")}});
  }
  return quarantined;
}

// The layout-coverage map of a campaign with --corpus (its corpus's cells,
// copied to coverage.cells at its end): op -> feature -> dtypes, from the
// cells of single features (oracles/layout_coverage.h: "op variant dtype
// arg feature"), every variant and argument together.
void ReadCoverage(
    const std::string& findings_dir,
    std::map<std::string, std::map<std::string, std::set<std::string>>>& map) {
  std::ifstream in(absl::StrCat(findings_dir, "/", kCoverageCellsFile));
  std::string line;
  while (std::getline(in, line)) {
    const std::vector<std::string> words = absl::StrSplit(line, ' ');
    if (words.size() != 5 || absl::StrContains(words[4], '=')) continue;
    map[words[0]][words[4]].insert(words[2]);
  }
}

// The valid cases of each op (op_stats.json, fuzz/op_knowledge.h), the
// least valid first: a constrained op that is barely exercised shows; and
// what a draw of it costs (a slow op is drawn less often,
// fuzz/op_schedule.h). `ms_per_draw` is null for an op never timed.
Json ReadValidity(const std::string& findings_dir, Json& errors) {
  Json rows = Json::array();
  absl::StatusOr<OpKnowledge> k =
      OpKnowledge::Load(absl::StrCat(findings_dir, "/", kOpStatsFile));
  if (!k.ok()) {
    errors.push_back(
        ErrorEntry(kOpStatsFile, "", std::string(k.status().message()), ""));
    return rows;
  }
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [op, s] : k->ops()) {
    order.emplace_back(ValidRate(s.all), op);
  }
  std::sort(order.begin(), order.end());
  for (const auto& [rate, op] : order) {
    const OpStats& s = *k->Find(op);
    rows.push_back(
        {{"op", op},
         {"tried", s.all.tried},
         {"valid", s.all.valid},
         {"seeded_tried", s.seeded.tried},
         {"seeded_valid", s.seeded.valid},
         {"valid_rate", rate},
         {"ms_per_draw", s.cost() < 0 ? Json() : Json(1e3 * s.cost())}});
  }
  return rows;
}

// The report of one or several findings directories (the shards of one
// campaign, fuzz/shard.h): their findings together, so that one bug found
// by two shards is one bug.
absl::StatusOr<Json> ReportJson(const std::vector<std::string>& findings_dirs,
                                const std::string& report_dir) {
  std::vector<StoredFinding> findings;
  std::vector<std::string> relative_dirs;
  for (const std::string& dir : findings_dirs) {
    DPFUZZ_ASSIGN_OR_RETURN(std::vector<StoredFinding> in_dir,
                            ReadFindingsDir(dir));
    findings.insert(findings.end(), in_dir.begin(), in_dir.end());
    relative_dirs.push_back(RelativePath(dir, report_dir));
  }
  const std::vector<Bug> bugs = GroupBugs(findings);
  Json report{{"format", "dpfuzz-report"},
              {"version", kReportVersion},
              {"findings_dir", absl::StrJoin(relative_dirs, ", ")},
              {"bugs", Json::array()},
              {"baseline_failures", Json::array()},
              {"flaky", Json::array()},
              {"overlap", Json::array()},
              {"counts", Json::array()}};
  report["classes"] = ClassesJson(
      bugs, RelativePath(absl::StrCat(findings_dirs.front(), "/", kClassesDir),
                         report_dir));
  std::map<std::string, int64_t> by_severity;
  int64_t low_confidence = 0;
  for (const Bug& bug : bugs) {
    report["bugs"].push_back(BugJson(bug, report_dir));
    ++by_severity[std::string(SeverityName(bug.severity))];
    if (bug.confidence == Confidence::kLow) ++low_confidence;
  }
  // (op, verdict) -> (findings, hits).
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>>
      counts;
  int64_t layout_findings = 0;
  for (const StoredFinding& s : findings) {
    const Finding& f = s.finding;
    auto& count = counts[{QualifiedOpName(f.c),
                          std::string(VerdictName(f.outcome.verdict))}];
    ++count.first;
    count.second += s.hits;
    if (f.dismissal != Dismissal::kNone) {
      report[std::string(DismissalName(f.dismissal))].push_back(
          FindingEntry(s, report_dir));
    } else if (f.outcome.kind == FindingKind::kBaselineFailure) {
      report["baseline_failures"].push_back(FindingEntry(s, report_dir));
    } else {
      ++layout_findings;
    }
  }
  for (const auto& [key, count] : counts) {
    report["counts"].push_back({{"op", key.first},
                                {"verdict", key.second},
                                {"findings", count.first},
                                {"hits", count.second}});
  }
  Json errors = Json::array();
  report["validity"] = Json::array();
  report["quarantined"] = Json::array();
  for (const std::string& dir : findings_dirs) {
    for (Json& row : ReadValidity(dir, errors)) {
      report["validity"].push_back(std::move(row));
    }
    for (Json& row : ReadErrors(dir, report_dir))
      errors.push_back(std::move(row));
    for (Json& row : ReadQuarantine(dir, errors)) {
      report["quarantined"].push_back(std::move(row));
    }
  }
  report["errors"] = std::move(errors);
  std::map<std::string, std::map<std::string, std::set<std::string>>> map;
  for (const std::string& dir : findings_dirs) ReadCoverage(dir, map);
  report["coverage"] = Json::array();
  for (const auto& [op, features] : map) {
    for (const auto& [feature, dtypes] : features) {
      int64_t bugs = 0;
      for (const Json& b : report["bugs"]) {
        bugs += b.at("op").get<std::string>() == op &&
                absl::StrContains(b.at("feature").get<std::string>(), feature);
      }
      report["coverage"].push_back({{"op", op},
                                    {"feature", feature},
                                    {"dtypes", dtypes},
                                    {"bugs", bugs}});
    }
  }
  report["summary"] = {
      {"bugs", bugs.size()},
      {"classes", report["classes"].size()},
      {"by_severity", by_severity},
      {"low_confidence", low_confidence},
      {"untriaged", std::count_if(bugs.begin(), bugs.end(),
                                  [](const Bug& b) { return b.untriaged; })},
      {"findings", findings.size()},
      {"layout_findings", layout_findings},
      {"baseline_failures", report["baseline_failures"].size()},
      {"flaky", report["flaky"].size()},
      {"overlap", report["overlap"].size()},
      {"errors", report["errors"].size()},
      {"quarantined", report["quarantined"].size()}};
  return report;
}

Cell Number(const Json& n) { return Text(n.dump()); }

// A string field of the report's own JSON.
std::string Field(const Json& j, const char* key) {
  return j.at(key).get<std::string>();
}

Row BugRow(const Json& b, size_t rank) {
  const std::string confidence = Field(b, "confidence");
  const std::string reason = Field(b, "confidence_reason");
  Cell findings;
  for (const Json& dir : b.at("findings")) {
    findings.push_back(Link(dir.get<std::string>()).front());
  }
  return {
      absl::StrCat(Field(b, "severity"), " ", confidence),
      {Text(absl::StrCat(rank)), Code(Field(b, "id")),
       Text(Field(b, "severity")),
       Text(reason.empty() ? confidence
                           : absl::StrCat(confidence, ": ", reason)),
       Code(Field(b, "op")), Text(Field(b, "variant")),
       Text(absl::StrCat(Field(b, "verdict"), " (", Field(b, "family"), ")")),
       Text(Field(b, "culprit")), Text(Field(b, "feature")),
       Text(
           absl::StrJoin(b.at("dtypes").get<std::vector<std::string>>(), ", ")),
       Number(b.at("hits")), Text(Field(b, "detail")), findings,
       Link(Field(b, "issue"))}};
}

// One row per op, one column per layout feature reached: the dtypes that
// reached it, and the bugs found there.
Table CoverageTable(const Json& coverage) {
  std::vector<std::string> features;
  std::map<std::string, std::map<std::string, Cell>> cells;
  for (const Json& c : coverage) {
    const std::string feature = Field(c, "feature");
    if (std::find(features.begin(), features.end(), feature) ==
        features.end()) {
      features.push_back(feature);
    }
    const int64_t bugs = c.at("bugs").get<int64_t>();
    cells[Field(c, "op")][feature] = Text(absl::StrCat(
        absl::StrJoin(c.at("dtypes").get<std::vector<std::string>>(), " "),
        bugs > 0 ? absl::StrCat(" (", bugs, " bug", bugs > 1 ? "s" : "", ")")
                 : ""));
  }
  std::sort(features.begin(), features.end());
  Table t{"coverage",
          "Layout coverage (--corpus): the dtypes that reached each op x "
          "layout feature, and the bugs there",
          {"op"}};
  t.columns.insert(t.columns.end(), features.begin(), features.end());
  for (auto& [op, by_feature] : cells) {
    Row row{"", {Code(op)}};
    for (const std::string& f : features) {
      auto it = by_feature.find(f);
      row.cells.push_back(it == by_feature.end() ? Text("") : it->second);
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<Table> ReportTables(const Json& r) {
  std::vector<Table> tables;
  tables.push_back(ClassesTable(r.at("classes")));
  tables.push_back(ClassDetailsTable(r.at("classes"), r.at("bugs")));
  Table& bugs = tables.emplace_back(
      Table{"bugs",
            "Bugs",
            {"#", "bug", "severity", "confidence", "op", "variant", "verdict",
             "culprit", "feature", "dtypes", "hits", "evidence", "findings",
             "issue"}});
  // Low confidence bugs rank last (crashes/bugs/bug.h) and get a table of
  // their own, numbered on.
  Table low = {"low_confidence_bugs",
               "Low-confidence bugs (behaviour PyTorch leaves undefined or "
               "an op's stated layout precondition)",
               bugs.columns};
  size_t rank = 0;
  for (const Json& b : r.at("bugs")) {
    Table& table = Field(b, "confidence") == "low" ? low : bugs;
    table.rows.push_back(BugRow(b, ++rank));
  }
  tables.push_back(std::move(low));
  tables.push_back(BugDetailsTable(r.at("bugs")));
  for (const auto& [id, title] :
       {std::pair<const char*, const char*>{"baseline_failures",
                                            "Baseline failures (not bugs)"},
        {"flaky", "Flaky findings (not bugs)"},
        {"overlap",
         "Overlap findings (not bugs: they show only while a written tensor "
         "shares memory with an input, which PyTorch leaves undefined)"}}) {
    tables.push_back(NotBugsTable(id, title, r.at(id)));
  }
  Table& errors =
      tables.emplace_back(Table{"errors",
                                "Internal errors (dpfuzz's own, not findings)",
                                {"name", "ticket or op", "error", "case"}});
  for (const Json& e : r.at("errors")) {
    errors.rows.push_back({"",
                           {Code(Field(e, "name")), Code(Field(e, "what")),
                            Text(Field(e, "error")), Link(Field(e, "case"))}});
  }
  Table& quarantined = tables.emplace_back(
      Table{"quarantined", "Quarantined ops", {"op", "deaths", "reason"}});
  for (const Json& q : r.at("quarantined")) {
    quarantined.rows.push_back({"",
                                {Code(Field(q, "op")), Number(q.at("deaths")),
                                 Text(Field(q, "reason"))}});
  }
  Table& counts =
      tables.emplace_back(Table{"counts",
                                "Findings per op and verdict",
                                {"op", "verdict", "findings", "hits"}});
  for (const Json& c : r.at("counts")) {
    counts.rows.push_back({"",
                           {Code(Field(c, "op")), Text(Field(c, "verdict")),
                            Number(c.at("findings")), Number(c.at("hits"))}});
  }
  Table& validity =
      tables.emplace_back(Table{"validity",
                                "Valid cases per op (least valid first)",
                                {"op", "valid / tried", "seeded valid / tried",
                                 "valid rate", "ms per draw"}});
  for (const Json& v : r.at("validity")) {
    validity.rows.push_back(
        {"",
         {Code(Field(v, "op")),
          Text(absl::StrCat(v.at("valid").dump(), " / ", v.at("tried").dump())),
          Text(absl::StrCat(v.at("seeded_valid").dump(), " / ",
                            v.at("seeded_tried").dump())),
          Text(absl::StrFormat("%.1f%%",
                               100 * v.at("valid_rate").get<double>())),
          Text(v.at("ms_per_draw").is_null()
                   ? std::string("-")
                   : absl::StrFormat("%.3f",
                                     v.at("ms_per_draw").get<double>()))}});
  }
  tables.push_back(CoverageTable(r.at("coverage")));
  return tables;
}

// "bugs: 2 in 1 classes (memory 1, wrong_values 1; low confidence 1) from 5
// layout-bug findings; baseline failures: 1; ..."
std::string SummaryText(const Json& s) {
  std::vector<std::string> severities;
  for (Severity severity : kSeverities) {
    const std::string name(SeverityName(severity));
    if (s.at("by_severity").contains(name)) {
      severities.push_back(
          absl::StrCat(name, " ", s.at("by_severity").at(name).dump()));
    }
  }
  return absl::StrCat(
      "bugs: ", s.at("bugs").dump(), " in ", s.value("classes", Json(0)).dump(),
      " classes (",
      severities.empty() ? "none" : absl::StrJoin(severities, ", "),
      "; low confidence ", s.at("low_confidence").dump(), ") from ",
      s.at("layout_findings").dump(), " layout-bug findings",
      s.value("untriaged", 0) > 0
          ? absl::StrCat("; untriaged bugs: ", s.at("untriaged").dump(),
                         " (not reduced or blamed yet: dpfuzz triage "
                         "FINDINGS finishes them)")
          : "",
      "; baseline failures: ", s.at("baseline_failures").dump(),
      "; flaky findings: ", s.at("flaky").dump(),
      "; overlap findings: ", s.value("overlap", Json(0)).dump(),
      "; internal errors: ", s.at("errors").dump(),
      "; quarantined ops: ", s.at("quarantined").dump(), ".");
}

std::string RenderMarkdown(const Json& r) {
  return TablesMarkdown(Field(r, "findings_dir"), SummaryText(r.at("summary")),
                        ReportTables(r));
}

std::string RenderHtml(const Json& r) {
  return TablesHtml(Field(r, "findings_dir"), SummaryText(r.at("summary")),
                    ReportTables(r));
}

std::string Render(const Json& report, ReportFormat format) {
  switch (format) {
    case ReportFormat::kMarkdown:
      return RenderMarkdown(report);
    case ReportFormat::kHtml:
      return RenderHtml(report);
    case ReportFormat::kJson:
      break;
  }
  // Text from LibTorch or a file system need not be UTF-8: replaced, not
  // thrown on.
  return report.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

absl::string_view ReportFormatName(ReportFormat format) {
  switch (format) {
    case ReportFormat::kMarkdown:
      return "md";
    case ReportFormat::kHtml:
      return "html";
    case ReportFormat::kJson:
      return "json";
  }
  return "unknown";
}

absl::StatusOr<ReportFormat> ParseReportFormat(absl::string_view name) {
  for (ReportFormat f : kFormats) {
    if (name == ReportFormatName(f)) return f;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown report format \"", name, "\"; expected md, html or json"));
}

absl::StatusOr<std::string> RenderReport(
    const std::vector<std::string>& findings_dirs, ReportFormat format,
    const std::string& report_dir) {
  DPFUZZ_ASSIGN_OR_RETURN(
      const Json report,
      ReportJson(findings_dirs,
                 report_dir.empty() ? findings_dirs.front() : report_dir));
  return Render(report, format);
}

absl::Status WriteReports(const std::string& findings_dir) {
  DPFUZZ_ASSIGN_OR_RETURN(const Json report,
                          ReportJson({findings_dir}, findings_dir));
  DPFUZZ_RETURN_IF_ERROR(WriteClassFiles(findings_dir, report));
  for (ReportFormat f : kFormats) {
    DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(
        absl::StrCat(findings_dir, "/report.", ReportFormatName(f)),
        Render(report, f), "report"));
  }
  return absl::OkStatus();
}

absl::Status RunReportCommand(const std::vector<std::string>& args,
                              ReportFormat format, const std::string& out,
                              std::ostream& stdout_) {
  if (args.empty()) {
    return absl::InvalidArgumentError(
        "report: name a findings directory, or several (the shards of one "
        "campaign): dpfuzz report findings/");
  }
  // The classes' class.md files live beside the findings (in the first
  // directory's classes/), where every report of them links.
  DPFUZZ_ASSIGN_OR_RETURN(const Json in_first, ReportJson(args, args.front()));
  DPFUZZ_RETURN_IF_ERROR(WriteClassFiles(args.front(), in_first));
  const std::string out_dir = fs::path(out).parent_path().string();
  DPFUZZ_ASSIGN_OR_RETURN(
      const std::string text,
      RenderReport(args, format,
                   out.empty() || out_dir.empty() ? "." : out_dir));
  if (out.empty()) {
    stdout_ << text;
    return absl::OkStatus();
  }
  return WriteFileAtomically(out, text, "report");
}

}  // namespace dpfuzz
