// LayoutPicture: what a picture of a bug's failing layout shows.
//
// The argument a bug is about (its mechanism's argument, else its
// culprit), from the lead finding's case: its storage as a strip of cells,
// which cell holds which element of the view (logical order), and the
// cells the mechanism reads or writes wrongly: for "reads_as_contiguous" /
// "writes_as_contiguous" the numel cells from the data pointer, for the
// "ignoring_offset" ones the layout's cells shifted to the storage's start:
// those the view does not address (a gap, a margin, memory before the
// offset) and those it uses for another element. The report draws it
// (fuzz/report_svg.h).
//
//   std::optional<LayoutPicture> p = PictureOf(finding, MechanismOf(finding));
//   p->view   // {0, 3, 6, 9, 1, 4, ...}: storage cell of each element
//   p->wrong  // {2, 5}: cells read or written that the view does not own

#ifndef DPFUZZ_CRASHES_BUGS_LAYOUT_PICTURE_H_
#define DPFUZZ_CRASHES_BUGS_LAYOUT_PICTURE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "crashes/bugs/bug_mechanism.h"
#include "crashes/findings/finding.h"

namespace dpfuzz {

// Pictures stop at this many storage cells (a reduced case has few).
inline constexpr int64_t kMaxPictureCells = 96;

struct LayoutPicture {
  std::string argument;       // "out"
  std::string layout;         // "f32 cpu [3, 4]@[1, 3]+0"
  int64_t cells = 0;          // Storage cells drawn (at most kMaxPictureCells).
  bool cut = false;           // The storage has more.
  std::vector<int64_t> view;  // Each element's cell, in logical order.
  // Cells the mistake reads or writes that the view does not own (gaps,
  // margins, memory before the offset), and cells of the view it uses for
  // another element than their own; both sorted.
  std::vector<int64_t> wrong, misplaced;
};

// Nothing when the finding names no strided tensor argument (unblamed and
// unexplained, or a nested one).
std::optional<LayoutPicture> PictureOf(const Finding& f, const BugMechanism& m);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_BUGS_LAYOUT_PICTURE_H_
