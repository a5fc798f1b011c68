// The picture of a failing layout (crashes/bugs/layout_picture.h) as inline
// SVG for report.html: the storage as rows of cells (the view's elements
// numbered in logical order, gaps and margins grey, cells the mistake
// reads or writes outside the view red, cells it uses for another element
// outlined orange), then the view's elements in logical order, each naming
// its storage cell. Markup only, no script; every text escaped.
//
//   std::string svg = LayoutSvg(report["bugs"][0]["picture"]);

#ifndef DPFUZZ_FUZZ_REPORT_SVG_H_
#define DPFUZZ_FUZZ_REPORT_SVG_H_

#include <nlohmann/json.hpp>
#include <string>

namespace dpfuzz {

// "" for a null picture.
std::string LayoutSvg(const nlohmann::json& picture);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_REPORT_SVG_H_
