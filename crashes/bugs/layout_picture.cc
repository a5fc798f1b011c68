#include "crashes/bugs/layout_picture.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

std::optional<LayoutPicture> PictureOf(const Finding& f,
                                       const BugMechanism& m) {
  std::string name = m.argument;
  // A culprit of two arguments sharing memory ("mask,out"): the first.
  name = name.substr(0, name.find(','));
  const Argument* arg = name.empty() ? nullptr : FindArgument(f.c, name);
  const TensorSpec* spec =
      arg != nullptr ? std::get_if<TensorSpec>(&arg->value) : nullptr;
  if (spec == nullptr || spec->is_nested()) return std::nullopt;
  LayoutPicture p;
  p.argument = name;
  p.layout = TensorSpecLayoutString(*spec);
  const int64_t extent = spec->storage_extent();
  p.cells = std::min(extent, kMaxPictureCells);
  p.cut = extent > p.cells;
  p.view = SpecStorageIndices(*spec);
  const std::set<int64_t> owned(p.view.begin(), p.view.end());
  // The cell the mistake uses for element i, when it has one.
  const int64_t offset = spec->layout.storage_offset;
  const bool linear = absl::EndsWith(m.name, "_as_contiguous");
  const bool shifted = absl::EndsWith(m.name, "_ignoring_offset");
  if (!linear && !shifted) return p;
  std::set<int64_t> wrong, misplaced;
  for (int64_t i = 0; i < static_cast<int64_t>(p.view.size()); ++i) {
    const int64_t cell = linear ? offset + i : p.view[i] - offset;
    if (cell < 0 || cell == p.view[i]) continue;
    (owned.count(cell) == 0 ? wrong : misplaced).insert(cell);
  }
  p.wrong.assign(wrong.begin(), wrong.end());
  p.misplaced.assign(misplaced.begin(), misplaced.end());
  return p;
}

}  // namespace dpfuzz
