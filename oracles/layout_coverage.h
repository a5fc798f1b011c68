// Layout coverage: which corners of the layout space a case exercised.
//
// LibTorch is not instrumented, so code coverage cannot guide a fuzzer
// through it; what dpfuzz can see is the layout space itself. A case covers
// cells: for each of its tensors (arguments, Tensor[] elements, out=,
// grad_outputs), each layout feature of that tensor (generators/
// layout_features.h; "nested" for a nested tensor, with its components'
// features) within its op, variant and dtype; the whole feature set of
// each argument at once; and the verdict the case got within its op and
// variant. The libFuzzer target feeds the cells to libFuzzer as extra
// counters (fuzz/libfuzzer_target.cc); a campaign with --corpus keeps the
// cases that reached a cell no case had reached before.
//
//   LayoutCells cells = LayoutCellsOf(c, Verdict::kAgree);
//   cells.front().ToString()  // "aten::add.Tensor out f32 self gapped"
//   for (uint64_t h : CellHashes(cells)) counters[h % n] = 1;

#ifndef DPFUZZ_ORACLES_LAYOUT_COVERAGE_H_
#define DPFUZZ_ORACLES_LAYOUT_COVERAGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "generators/case.h"
#include "oracles/verdict.h"

namespace dpfuzz {

struct LayoutCell {
  std::string op;  // "aten::add.Tensor".
  Variant variant = Variant::kFunctional;
  std::string dtype;  // Of the case's first tensor: "f32".
  std::string arg;    // "self", "tensors[1]", "grad_outputs[0]"; "" for a
                      // verdict cell.
  // One feature ("gapped"), a feature set ("permuted+offset", kind kSet),
  // or a verdict name (kind kVerdict).
  std::string what;
  enum class Kind : uint8_t {
    kFeature,  // One layout feature of one argument.
    kSet,      // The full feature set of one argument.
    kVerdict,  // The verdict of the case.
  };
  Kind kind = Kind::kFeature;

  // "aten::add.Tensor out f32 self gapped", "... self set=gapped+offset",
  // "aten::add.Tensor out f32 verdict=agree": one string per cell.
  std::string ToString() const;
  uint64_t Hash() const;  // CellHash(ToString()).
};

// A stable hash of a cell's string (the same in every process and build).
uint64_t CellHash(absl::string_view cell);

using LayoutCells = std::vector<LayoutCell>;

LayoutCells LayoutCellsOf(const Case& c, Verdict verdict);

// One stable hash per cell (the same in every process and build).
std::vector<uint64_t> CellHashes(const LayoutCells& cells);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_LAYOUT_COVERAGE_H_
