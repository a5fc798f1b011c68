#include "fuzz/report_classes.h"

#include <filesystem>
#include <map>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/bugs/bug_class.h"
#include "fuzz/report_svg.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string StringAt(const Json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A Markdown table cell: no line breaks, no column bars.
std::string CellText(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  size_t at = 0;
  while ((at = text.find('|', at)) != std::string::npos) {
    text.replace(at, 1, "\\|");
    at += 2;
  }
  return text;
}

}  // namespace

std::string SnippetOfIssue(const std::string& path) {
  if (path.empty()) return "";
  absl::StatusOr<std::string> text = ReadFile(path, "issue");
  if (!text.ok()) return "";
  const size_t fence = text->find("```python\n");
  if (fence == std::string::npos) return "";
  const size_t start = fence + 10;
  const size_t end = text->find("\n```", start);
  if (end == std::string::npos) return "";
  return text->substr(start, end + 1 - start);
}

Json ClassesJson(const std::vector<Bug>& bugs, const std::string& class_dir) {
  Json classes = Json::array();
  for (const BugClass& k : GroupClasses(bugs)) {
    classes.push_back(
        {{"id", k.id},
         {"mechanism", k.mechanism.name},
         {"detail", k.mechanism.detail},
         {"title", MechanismTitle(k.mechanism)},
         {"explanation", MechanismExplanation(k.mechanism)},
         {"role", k.mechanism.role},
         {"verdict", k.family},
         {"severity", std::string(SeverityName(k.severity))},
         {"confidence", std::string(ConfidenceName(k.confidence))},
         {"members", k.members},
         {"ops", k.ops},
         {"hits", k.hits},
         {"class_md", k.members.size() >= 2
                          ? absl::StrCat(class_dir, "/", k.id, ".md")
                          : ""}});
  }
  return classes;
}

Table ClassesTable(const Json& classes) {
  Table table{"classes",
              "Bug classes (one mechanism, many ops: the issue to file once)",
              {"#", "class", "mechanism", "role", "verdict", "severity",
               "confidence", "bugs", "ops", "member bugs", "umbrella issue"}};
  size_t rank = 0;
  for (const Json& k : classes) {
    const std::vector<std::string> members =
        k.at("members").get<std::vector<std::string>>();
    const std::string class_md = StringAt(k, "class_md");
    const Cell issue = class_md.empty() ? Text("") : Link(class_md);
    table.rows.push_back(
        {absl::StrCat(StringAt(k, "severity"), " ", StringAt(k, "confidence")),
         {Text(absl::StrCat(++rank)), Code(StringAt(k, "id")),
          Text(StringAt(k, "title")), Text(StringAt(k, "role")),
          Text(StringAt(k, "verdict")), Text(StringAt(k, "severity")),
          Text(StringAt(k, "confidence")), Text(absl::StrCat(members.size())),
          Text(
              absl::StrJoin(k.at("ops").get<std::vector<std::string>>(), ", ")),
          Text(absl::StrJoin(members, ", ")), issue}});
  }
  return table;
}

namespace {

// The member a class shows: the one with the shortest snippet (reduced and
// checked, the quickest for a maintainer to read), the first of equals;
// the first member when none has one.
const Json* ShownMember(const std::vector<const Json*>& members) {
  const Json* shown = members.empty() ? nullptr : members.front();
  size_t shortest = 0;
  for (const Json* b : members) {
    const size_t length = StringAt(*b, "snippet").size();
    if (length > 0 && (shortest == 0 || length < shortest)) {
      shown = b;
      shortest = length;
    }
  }
  return shown;
}

// A row of a details table: `head`, then the bug's picture and snippet.
Row DetailsRow(Cell head, const Json& bug) {
  return {"",
          {std::move(head), Svg(LayoutSvg(bug.value("picture", Json()))),
           Snippet(bug.value("snippet", ""))}};
}

}  // namespace

Table ClassDetailsTable(const Json& classes, const Json& bugs) {
  std::map<std::string, const Json*> bug_by_id;
  for (const Json& b : bugs) bug_by_id[StringAt(b, "id")] = &b;
  Table table{"class_details",
              "Each class: a member's failing layout and snippet",
              {"class", "failing layout", "snippet"}};
  table.html_only = true;
  for (const Json& k : classes) {
    std::vector<const Json*> members;
    for (const Json& id : k.at("members")) {
      const auto it = bug_by_id.find(id.get<std::string>());
      if (it != bug_by_id.end()) members.push_back(it->second);
    }
    const Json* shown = ShownMember(members);
    if (shown == nullptr) continue;
    Cell head = Code(StringAt(k, "id"));
    const Cell title = Text(StringAt(k, "title"));
    head.insert(head.end(), title.begin(), title.end());
    table.rows.push_back(DetailsRow(std::move(head), *shown));
  }
  return table;
}

Table BugDetailsTable(const Json& bugs) {
  Table table{"bug_details",
              "Each bug: its failing layout and snippet",
              {"bug", "failing layout", "snippet"}};
  table.html_only = true;
  for (const Json& b : bugs) {
    if (b.value("picture", Json()).is_null() &&
        StringAt(b, "snippet").empty()) {
      continue;
    }
    table.rows.push_back(DetailsRow(Code(StringAt(b, "id")), b));
  }
  return table;
}

std::string ClassMarkdown(const Json& klass, const std::vector<Json>& bugs,
                          const std::string& report_dir,
                          const std::string& class_dir) {
  const auto relative = [&](const std::string& path) {
    return fs::path(path)
        .lexically_relative(fs::path(class_dir).lexically_relative(report_dir))
        .string();
  };
  std::string md = absl::StrCat(
      "# ", klass.at("ops").size(), " ops where the kernel ",
      StringAt(klass, "title"), "\n\n", StringAt(klass, "explanation"), "\n\n",
      "- mechanism: `", StringAt(klass, "mechanism"), "`",
      StringAt(klass, "detail").empty()
          ? ""
          : absl::StrCat(" (", StringAt(klass, "detail"), ")"),
      "\n- role of the argument: ", StringAt(klass, "role"),
      "\n- verdict: ", StringAt(klass, "verdict"),
      "\n- severity: ", StringAt(klass, "severity"),
      ", confidence: ", StringAt(klass, "confidence"), "\n- dpfuzz class: `",
      StringAt(klass, "id"), "`\n\n## Members\n\n",
      "| op | variant | verdict | dtypes seen | shows in | layouts seen | "
      "evidence | issue |\n|---|---|---|---|---|---|---|---|\n");
  std::vector<const Json*> members;
  for (const Json& b : bugs) members.push_back(&b);
  const Json* shown = ShownMember(members);
  std::string snippet;
  for (const Json& b : bugs) {
    const std::string issue = StringAt(b, "issue");
    absl::StrAppend(
        &md, "| `", StringAt(b, "op"), "` | ", StringAt(b, "variant"), " | ",
        StringAt(b, "verdict"), " | ",
        absl::StrJoin(b.at("dtypes").get<std::vector<std::string>>(), ", "),
        " | ",
        StringAt(b, "generality").empty() ? std::string("-")
                                          : StringAt(b, "generality"),
        " | ",
        StringAt(b, "culprit").empty()
            ? std::string("-")
            : CellText(absl::StrCat(StringAt(b, "culprit"), " ",
                                    StringAt(b, "feature"))),
        " | ", CellText(StringAt(b, "detail").substr(0, 160)), " | ",
        issue.empty() ? std::string("-")
                      : absl::StrCat("[issue.md](", relative(issue), ")"),
        " |\n");
    if (&b == shown && !StringAt(b, "snippet").empty()) {
      snippet =
          absl::StrCat("## Reproduce (", StringAt(b, "op"), ")\n\n```python\n",
                       StringAt(b, "snippet"), "```\n");
    }
  }
  absl::StrAppend(
      &md, "\n",
      snippet.empty() ? "No member has a verified snippet yet.\n" : snippet);
  return md;
}

absl::Status WriteClassFiles(const std::string& findings_dir,
                             const Json& report) {
  std::map<std::string, const Json*> bug_by_id;
  for (const Json& b : report.at("bugs")) {
    bug_by_id[StringAt(b, "id")] = &b;
  }
  for (const Json& k : report.at("classes")) {
    const std::string class_md = StringAt(k, "class_md");
    if (class_md.empty()) continue;
    std::vector<Json> members;
    for (const Json& id : k.at("members")) {
      const auto it = bug_by_id.find(id.get<std::string>());
      if (it != bug_by_id.end()) members.push_back(*it->second);
    }
    const fs::path path = fs::path(findings_dir) / class_md;
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      return absl::InternalError(absl::StrCat(
          "cannot create ", path.parent_path().string(), ": ", ec.message()));
    }
    DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(
        path.string(),
        ClassMarkdown(k, members, findings_dir,
                      (fs::path(findings_dir) / kClassesDir).string()),
        "class.md"));
  }
  return absl::OkStatus();
}

}  // namespace dpfuzz
