#include "oracles/layout_coverage.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "generators/dtype.h"
#include "generators/layout_features.h"

namespace dpfuzz {
namespace {

void AddTensor(const LayoutCell& base, const std::string& arg,
               const TensorSpec& spec, LayoutCells& cells) {
  uint32_t features = 0;
  std::vector<std::string> names;
  if (spec.is_nested()) {
    names.push_back("nested");
    for (const StridedLayout& component : spec.components) {
      features |= ComputeLayoutFeatures(component);
    }
  } else {
    features = ComputeLayoutFeatures(spec.layout);
  }
  for (int bit = 0; bit < kNumLayoutFeatures; ++bit) {
    if ((features & (1u << bit)) != 0) {
      names.push_back(LayoutFeatureName(static_cast<LayoutFeature>(1u << bit)));
    }
  }
  for (const std::string& name : names) {
    LayoutCell cell = base;
    cell.arg = arg;
    cell.what = name;
    cells.push_back(std::move(cell));
  }
  LayoutCell set = base;
  set.arg = arg;
  set.kind = LayoutCell::Kind::kSet;
  set.what = names.empty() ? "none" : absl::StrJoin(names, "+");
  cells.push_back(std::move(set));
}

}  // namespace

std::string LayoutCell::ToString() const {
  const char* prefix = kind == Kind::kVerdict ? "verdict="
                       : kind == Kind::kSet   ? "set="
                                              : "";
  return absl::StrCat(op, " ", VariantName(variant), " ", dtype,
                      arg.empty() ? "" : " ", arg, " ", prefix, what);
}

uint64_t LayoutCell::Hash() const { return CellHash(ToString()); }

uint64_t CellHash(absl::string_view cell) {
  uint64_t hash = 0xCBF29CE484222325ull;  // FNV-1a: the same in every process.
  for (unsigned char ch : cell) hash = (hash ^ ch) * 0x100000001B3ull;
  return hash;
}

LayoutCells LayoutCellsOf(const Case& c, Verdict verdict) {
  LayoutCell base;
  base.op = QualifiedOpName(c);
  base.variant = c.variant;
  const std::vector<const TensorSpec*> tensors = AllTensorSpecsOf(c);
  base.dtype =
      tensors.empty() ? "-" : std::string(DTypeName(tensors[0]->dtype));
  LayoutCells cells;
  for (const Argument& a : c.args) {
    if (const auto* spec = std::get_if<TensorSpec>(&a.value)) {
      AddTensor(base, a.name, *spec, cells);
    } else if (const auto* list =
                   std::get_if<std::vector<TensorSpec>>(&a.value)) {
      for (size_t i = 0; i < list->size(); ++i) {
        AddTensor(base, absl::StrCat(a.name, "[", i, "]"), (*list)[i], cells);
      }
    }
  }
  for (size_t i = 0; i < c.grad_outputs.size(); ++i) {
    AddTensor(base, absl::StrCat("grad_outputs[", i, "]"), c.grad_outputs[i],
              cells);
  }
  LayoutCell judged = base;
  judged.kind = LayoutCell::Kind::kVerdict;
  judged.what = std::string(VerdictName(verdict));
  cells.push_back(std::move(judged));
  return cells;
}

std::vector<uint64_t> CellHashes(const LayoutCells& cells) {
  std::vector<uint64_t> hashes;
  hashes.reserve(cells.size());
  for (const LayoutCell& cell : cells) hashes.push_back(cell.Hash());
  return hashes;
}

}  // namespace dpfuzz
