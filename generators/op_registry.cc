#include "generators/op_registry.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace dpfuzz {

const std::vector<OpSpec>& CuratedOps() {
  static const std::vector<OpSpec>* ops = [] {
    auto* v = new std::vector<OpSpec>;
    AddPointwiseOps(*v);
    AddReductionOps(*v);
    AddIndexingOps(*v);
    AddSortingOps(*v);
    AddShapeOps(*v);
    AddLinalgOps(*v);
    AddNnOps(*v);
    AddCopyOps(*v);
    return v;
  }();
  return *ops;
}

const OpSpec* FindCuratedOp(absl::string_view name) {
  const std::string qualified = absl::StrContains(name, "::")
                                    ? std::string(name)
                                    : absl::StrCat("aten::", name);
  for (const OpSpec& spec : CuratedOps()) {
    if (spec.op == qualified ||
        (!spec.overload.empty() &&
         absl::StrCat(spec.op, ".", spec.overload) == qualified)) {
      return &spec;
    }
  }
  return nullptr;
}

}  // namespace dpfuzz
