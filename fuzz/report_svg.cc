#include "fuzz/report_svg.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace dpfuzz {
namespace {

constexpr int kCell = 22;     // Pixels per cell.
constexpr int kPerRow = 32;   // Cells per row.
constexpr int kMaxView = 64;  // View elements drawn.

std::string Escaped(const std::string& text) {
  return absl::StrReplaceAll(
      text, {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

std::vector<int64_t> Ints(const nlohmann::json& j, const char* key) {
  std::vector<int64_t> v;
  if (j.contains(key) && j[key].is_array()) {
    for (const auto& x : j[key]) v.push_back(x.get<int64_t>());
  }
  return v;
}

// One cell at row-wrapped position `i` below `top`: a box and its label.
std::string CellSvg(int i, int top, const std::string& fill,
                    const std::string& stroke, int stroke_width,
                    const std::string& label) {
  const int x = 4 + (i % kPerRow) * kCell;
  const int y = top + (i / kPerRow) * kCell;
  return absl::StrCat("<rect x=\"", x, "\" y=\"", y, "\" width=\"", kCell - 2,
                      "\" height=\"", kCell - 2, "\" fill=\"", fill,
                      "\" stroke=\"", stroke, "\" stroke-width=\"",
                      stroke_width, "\"/><text x=\"", x + (kCell - 2) / 2,
                      "\" y=\"", y + 14, "\" font-size=\"9\" ",
                      "text-anchor=\"middle\">", Escaped(label), "</text>");
}

int Rows(int cells) { return std::max(1, (cells + kPerRow - 1) / kPerRow); }

}  // namespace

std::string LayoutSvg(const nlohmann::json& picture) {
  if (!picture.is_object()) return "";
  const int cells = picture.value("cells", 0);
  const std::vector<int64_t> view = Ints(picture, "view");
  const std::vector<int64_t> wrong_list = Ints(picture, "wrong");
  const std::vector<int64_t> misplaced_list = Ints(picture, "misplaced");
  const std::set<int64_t> wrong(wrong_list.begin(), wrong_list.end());
  const std::set<int64_t> misplaced(misplaced_list.begin(),
                                    misplaced_list.end());
  std::map<int64_t, int64_t> element_at;  // Cell -> first element there.
  for (size_t i = 0; i < view.size(); ++i) element_at.emplace(view[i], i);
  const int shown = std::min<int>(view.size(), kMaxView);
  const int storage_top = 20;
  const int view_top = storage_top + Rows(cells) * kCell + 22;
  const int height = view_top + Rows(shown) * kCell + 40;
  const int width = 8 + std::min(std::max(cells, shown), kPerRow) * kCell;
  std::string svg = absl::StrCat(
      "<svg class=\"layout\" width=\"", std::max(width, 360), "\" height=\"",
      height, "\" role=\"img\">",
      "<text x=\"4\" y=\"13\" font-size=\"11\">storage of ",
      Escaped(picture.value("argument", "")), ": ",
      Escaped(picture.value("layout", "")),
      picture.value("cut", false) ? " (first cells)" : "", "</text>");
  for (int c = 0; c < cells; ++c) {
    const auto owner = element_at.find(c);
    const bool owned = owner != element_at.end();
    absl::StrAppend(&svg, CellSvg(c, storage_top,
                                  wrong.count(c) ? "#f4a6a6"
                                  : owned        ? "#cfe3ff"
                                                 : "#e4e4e4",
                                  misplaced.count(c) ? "#e08600" : "#888",
                                  misplaced.count(c) ? 3 : 1,
                                  owned ? absl::StrCat(owner->second) : "nan"));
  }
  absl::StrAppend(&svg, "<text x=\"4\" y=\"", view_top - 6,
                  "\" font-size=\"11\">the view in logical order (each "
                  "element's storage cell)</text>");
  for (int i = 0; i < shown; ++i) {
    absl::StrAppend(&svg, CellSvg(i, view_top, "#cfe3ff", "#888", 1,
                                  absl::StrCat(view[i])));
  }
  absl::StrAppend(
      &svg, "<text x=\"4\" y=\"", height - 20,
      "\" font-size=\"10\">blue: element (logical index); grey: gap or "
      "margin (poison);</text><text x=\"4\" y=\"",
      height - 8,
      "\" font-size=\"10\">red: used by the mistake outside the view; "
      "orange: used for another element</text></svg>");
  return svg;
}

}  // namespace dpfuzz
