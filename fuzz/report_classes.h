// The report's bug classes (crashes/bugs/bug_class.h): their JSON, their
// table, and the umbrella issue (class.md) of each class of two or more
// bugs.
//
// report.json's "classes": [{"id", "mechanism", "detail", "title", "role",
// "verdict" (the family), "severity", "confidence", "members" (bug ids),
// "ops", "hits", "class_md" (relative path, "" for a class of one)}].
// A class's class.md, written into <findings>/classes/<id>.md, is the issue
// a maintainer would file once for all of them: a title naming the
// mechanism, what goes wrong in two sentences, a member table (op
// overload, variant, dtypes, the layouts it shows with, evidence, a link
// to the member's issue.md) and the snippet of the first member that has
// an issue.md.
//
//   Json classes = ClassesJson(bugs, "classes");
//   absl::Status s = WriteClassFiles("findings", report);

#ifndef DPFUZZ_FUZZ_REPORT_CLASSES_H_
#define DPFUZZ_FUZZ_REPORT_CLASSES_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "crashes/bugs/bug.h"
#include "fuzz/report_tables.h"

namespace dpfuzz {

// The Python snippet of the issue.md at `path` (its first ```python
// block, without the fences); "" when there is none or it cannot be read.
std::string SnippetOfIssue(const std::string& path);

// Where a findings directory keeps its classes' class.md files.
inline constexpr char kClassesDir[] = "classes";

// The classes of `bugs`, ranked; "class_md" paths start with `class_dir`
// (the classes folder relative to the report's directory).
nlohmann::json ClassesJson(const std::vector<Bug>& bugs,
                           const std::string& class_dir);

// The table that leads the report: one row per class, its members' ids
// under its mechanism.
Table ClassesTable(const nlohmann::json& classes);

// For the HTML page alone: each class with a member's failing layout
// (report_svg.h) and snippet, copyable: the first member with a snippet,
// else the first (`bugs`: report.json's).
Table ClassDetailsTable(const nlohmann::json& classes,
                        const nlohmann::json& bugs);

// For the HTML page alone: each bug with a picture or a snippet, them.
Table BugDetailsTable(const nlohmann::json& bugs);

// class.md of a class (an entry of ClassesJson) whose member bugs are
// `bugs` (report.json's entries, paths relative to `report_dir`); links
// relative to `class_dir`. Its snippet is the shortest a member has: the
// quickest for a maintainer to read (the HTML details table shows the
// same member).
std::string ClassMarkdown(const nlohmann::json& klass,
                          const std::vector<nlohmann::json>& bugs,
                          const std::string& report_dir,
                          const std::string& class_dir);

// Writes class.md for each class of two or more members of `report` (the
// JSON report of `findings_dir`, paths relative to it) into
// <findings_dir>/classes/, each atomically.
absl::Status WriteClassFiles(const std::string& findings_dir,
                             const nlohmann::json& report);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_REPORT_CLASSES_H_
