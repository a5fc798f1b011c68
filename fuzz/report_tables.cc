#include "fuzz/report_tables.h"

#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace dpfuzz {

Cell Text(const std::string& text) {
  return {Piece{text.empty() ? "-" : text}};
}
Cell Code(const std::string& text) {
  return text.empty() ? Text("") : Cell{Piece{text, "", true}};
}
Cell Link(const std::string& path) {
  if (path.empty()) return Text("");
  return {Piece{std::filesystem::path(path).filename().string(), path}};
}

Cell Snippet(const std::string& code) {
  if (code.empty()) return {};
  Piece p{code};
  p.block = Piece::Block::kSnippet;
  return {p};
}

Cell Svg(const std::string& markup) {
  if (markup.empty()) return {};
  Piece p{markup};
  p.block = Piece::Block::kSvg;
  return {p};
}

namespace {

// A path as a URL path: bytes other than unreserved ones and '/' escaped.
std::string UrlPath(const std::string& path) {
  std::string url;
  for (unsigned char ch : path) {
    if (absl::ascii_isalnum(ch) || absl::StrContains("-._~/", ch)) {
      url += static_cast<char>(ch);
    } else {
      absl::StrAppendFormat(&url, "%%%02X", ch);
    }
  }
  return url;
}

// Text in Markdown, on one line: every character Markdown (and a table)
// would interpret is backslash-escaped; an underscore inside a word
// ("outside_write") cannot start emphasis and stays as it is.
std::string MdText(const std::string& text) {
  std::string md;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '\n' || ch == '\r') {
      md += ' ';
      continue;
    }
    const bool in_word = i > 0 && i + 1 < text.size() &&
                         absl::ascii_isalnum(text[i - 1]) &&
                         absl::ascii_isalnum(text[i + 1]);
    if (absl::StrContains("\\`*[]<>|#!", ch) || (ch == '_' && !in_word)) {
      md += '\\';
    }
    md += ch;
  }
  return md;
}

std::string MdPiece(const Piece& p) {
  if (p.block != Piece::Block::kNone) return "";
  if (!p.link.empty()) {
    return absl::StrCat("[", MdText(p.text), "](", UrlPath(p.link), ")");
  }
  // A code span cannot escape a backtick: such text stays plain.
  if (p.code && !absl::StrContains(p.text, '`')) {
    return absl::StrCat("`", absl::StrReplaceAll(p.text, {{"|", "\\|"}}), "`");
  }
  return MdText(p.text);
}

std::string Html(const std::string& text) {
  return absl::StrReplaceAll(text, {{"&", "&amp;"},
                                    {"<", "&lt;"},
                                    {">", "&gt;"},
                                    {"\"", "&quot;"},
                                    {"'", "&#39;"}});
}

std::string HtmlPiece(const Piece& p) {
  if (p.block == Piece::Block::kSvg) return p.text;
  if (p.block == Piece::Block::kSnippet) {
    return absl::StrCat("<pre class=\"snippet\"><code>", Html(p.text),
                        "</code></pre>");
  }
  if (!p.link.empty()) {
    return absl::StrCat("<a href=\"", Html(UrlPath(p.link)), "\">",
                        Html(p.text), "</a>");
  }
  return p.code ? absl::StrCat("<code>", Html(p.text), "</code>")
                : Html(p.text);
}

constexpr const char* kCss =
    "body{font-family:sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse;margin-bottom:2em}"
    "th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;"
    "vertical-align:top;max-width:26em;overflow-wrap:break-word}"
    "th{background:#eee}code{font-size:90%}"
    "pre.snippet{background:#f6f6f6;padding:6px;margin:0;max-width:56em;"
    "max-height:24em;overflow:auto;font-size:80%;user-select:all}"
    "#class_details td,#bug_details td{max-width:none}"
    "#class_details td:first-child,#bug_details td:first-child{width:16em;"
    "max-width:16em}"
    "tr.memory td:nth-child(3){color:#b00;font-weight:bold}"
    "tr.low td{color:#777}";

}  // namespace

std::string TablesMarkdown(const std::string& findings_dir,
                           const std::string& summary,
                           const std::vector<Table>& tables) {
  std::string md =
      absl::StrCat("# dpfuzz report\n\nFindings directory: ",
                   MdPiece({findings_dir, "", true}), "\n\n", summary, "\n");
  for (const Table& t : tables) {
    if (t.html_only) continue;
    absl::StrAppend(&md, "\n## ", t.title, "\n\n");
    if (t.rows.empty()) {
      absl::StrAppend(&md, "None.\n");
      continue;
    }
    absl::StrAppend(&md, "| ", absl::StrJoin(t.columns, " | "), " |\n|");
    for (size_t i = 0; i < t.columns.size(); ++i) absl::StrAppend(&md, "---|");
    md += '\n';
    for (const Row& row : t.rows) {
      std::vector<std::string> cells;
      for (const Cell& cell : row.cells) {
        std::vector<std::string> pieces;
        for (const Piece& p : cell) {
          if (std::string md_piece = MdPiece(p); !md_piece.empty()) {
            pieces.push_back(std::move(md_piece));
          }
        }
        cells.push_back(absl::StrJoin(pieces, ", "));
      }
      absl::StrAppend(&md, "| ", absl::StrJoin(cells, " | "), " |\n");
    }
  }
  return md;
}

std::string TablesHtml(const std::string& findings_dir,
                       const std::string& summary,
                       const std::vector<Table>& tables) {
  std::string html = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>dpfuzz report</title>\n<style>",
      kCss, "</style>\n</head>\n<body>\n<h1>dpfuzz report</h1>\n",
      "<p>Findings directory: <code>", Html(findings_dir),
      "</code></p>\n<p id=\"summary\">", Html(summary), "</p>\n");
  for (const Table& t : tables) {
    absl::StrAppend(&html, "<h2>", Html(t.title), "</h2>\n<table id=\"", t.id,
                    "\">\n<thead><tr>");
    for (const std::string& c : t.columns) {
      absl::StrAppend(&html, "<th>", Html(c), "</th>");
    }
    absl::StrAppend(&html, "</tr></thead>\n<tbody>\n");
    for (const Row& row : t.rows) {
      absl::StrAppend(&html, "<tr class=\"", Html(row.css_class), "\">");
      for (const Cell& cell : row.cells) {
        std::vector<std::string> pieces;
        for (const Piece& p : cell) pieces.push_back(HtmlPiece(p));
        absl::StrAppend(&html, "<td>", absl::StrJoin(pieces, "<br>"), "</td>");
      }
      absl::StrAppend(&html, "</tr>\n");
    }
    absl::StrAppend(&html, "</tbody>\n</table>\n");
  }
  absl::StrAppend(&html, "</body>\n</html>\n");
  return html;
}

}  // namespace dpfuzz
