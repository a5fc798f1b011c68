// The report's page as tables, rendered as Markdown or as one
// self-contained HTML file (fuzz/report.h says what the tables hold).
//
// A cell is a list of pieces: text, optionally code or a link (a path
// relative to the report's directory). Markdown escapes every character it
// would interpret; HTML escapes every text and has no scripts and nothing
// fetched; each table is <table id="ID"> with one <tr> per row in <tbody>.
//
//   std::vector<Table> tables = {{"bugs", "Bugs", {"op", "verdict"}}};
//   tables[0].rows.push_back({"memory high", {Code("aten::tril"), Text("x")}});
//   std::string md = TablesMarkdown("findings", "bugs: 1 ...", tables);

#ifndef DPFUZZ_FUZZ_REPORT_TABLES_H_
#define DPFUZZ_FUZZ_REPORT_TABLES_H_

#include <string>
#include <vector>

namespace dpfuzz {

struct Piece {
  std::string text;
  std::string link = {};  // A relative path; "" for plain text.
  bool code = false;
  // A block only the HTML page shows (a table cell of Markdown cannot hold
  // one; the Markdown links to the files instead): kSnippet, text shown as
  // a preformatted code block; kSvg, `text` is SVG markup dpfuzz made from
  // numbers and escaped text (fuzz/report_svg.h), inserted as it is.
  enum class Block : uint8_t { kNone, kSnippet, kSvg };
  Block block = Block::kNone;
};
using Cell = std::vector<Piece>;
struct Row {
  std::string css_class;
  std::vector<Cell> cells;
};
struct Table {
  std::string id, title;
  std::vector<std::string> columns;
  std::vector<Row> rows = {};
  // Shown on the HTML page alone (pictures and snippets: the Markdown
  // links to the files that hold them).
  bool html_only = false;
};

// A cell of text ("-" when empty), of code, or a link named by the file
// name of `path`; Snippet and Svg: a block for the HTML page alone (an
// empty cell for "").
Cell Text(const std::string& text);
Cell Code(const std::string& text);
Cell Link(const std::string& path);
Cell Snippet(const std::string& code);
Cell Svg(const std::string& markup);

// The page: a heading, the findings directory, the summary line, then each
// table ("None." for one without rows).
std::string TablesMarkdown(const std::string& findings_dir,
                           const std::string& summary,
                           const std::vector<Table>& tables);
std::string TablesHtml(const std::string& findings_dir,
                       const std::string& summary,
                       const std::vector<Table>& tables);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_REPORT_TABLES_H_
