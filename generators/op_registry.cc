#include "generators/op_registry.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "generators/schema_spec.h"

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
    AddNestedOps(*v);
    AddSparseCompressedOps(*v);
    return v;
  }();
  return *ops;
}

namespace {

std::deque<OpSpec>& AddedOps() {
  static auto* ops = new std::deque<OpSpec>;
  return *ops;
}

// Whether `name` is "<spec.op>.<spec.overload>", without building it: a
// worker looks its op up a few times per case, over every listed spec.
bool IsFullName(const OpSpec& spec, absl::string_view name) {
  return !spec.overload.empty() &&
         name.size() == spec.op.size() + 1 + spec.overload.size() &&
         absl::StartsWith(name, spec.op) && name[spec.op.size()] == '.' &&
         absl::EndsWith(name, spec.overload);
}

bool HasName(const OpSpec& spec, const std::string& qualified) {
  return spec.op == qualified || IsFullName(spec, qualified);
}

// The curated or added spec named exactly `full` ("aten::add.Tensor",
// "aten::relu"), or, with `by_op`, any whose op is `full`.
const OpSpec* FindListed(const std::string& full, bool by_op, bool nested) {
  auto named = [&](const OpSpec& spec) {
    if (spec.nested != nested) return false;
    const bool own =
        spec.overload.empty() ? spec.op == full : IsFullName(spec, full);
    return own || (by_op && spec.op == full);
  };
  for (const OpSpec& spec : CuratedOps()) {
    if (named(spec)) return &spec;
  }
  for (const OpSpec& spec : AddedOps()) {
    if (named(spec)) return &spec;
  }
  return nullptr;
}

// The generic spec of `overload`, dense or nested, made once; nullptr when
// none can be made.
const OpSpec* Generic(const OverloadName& overload, bool nested) {
  // By spec name ("aten::sin", "nested:aten::sin"); nullptr: none.
  static auto* made = new std::map<std::string, std::unique_ptr<OpSpec>>;
  const std::string full = overload.Full();
  auto [it, inserted] =
      made->try_emplace(nested ? absl::StrCat(kNestedPrefix, full) : full);
  if (inserted) {
    absl::StatusOr<OpSpec> spec =
        nested ? GenericNestedOpSpec(overload) : GenericOpSpec(overload);
    if (spec.ok()) it->second = std::make_unique<OpSpec>(std::move(*spec));
  }
  return it->second.get();
}

}  // namespace

OverloadName SplitOverload(absl::string_view name) {
  const std::string qualified = WithNamespace(name);
  const size_t colons = qualified.find("::");
  const size_t dot = qualified.find('.', colons + 2);
  if (dot == std::string::npos) return {qualified, ""};
  return {qualified.substr(0, dot), qualified.substr(dot + 1)};
}

const OpSpec* FindCuratedOp(absl::string_view name) {
  const std::string qualified = WithNamespace(name);
  for (const OpSpec& spec : CuratedOps()) {
    if (!spec.nested && HasName(spec, qualified)) return &spec;
  }
  return nullptr;
}

void AddOps(const std::vector<OpSpec>& specs) {
  AddedOps().insert(AddedOps().end(), specs.begin(), specs.end());
}

std::string WithNamespace(absl::string_view name) {
  return absl::StrContains(name, "::") ? std::string(name)
                                       : absl::StrCat("aten::", name);
}

const OpSpec* FindOp(absl::string_view name) {
  if (absl::ConsumePrefix(&name, kNestedPrefix)) {
    const OverloadName overload = SplitOverload(name);
    const std::string full = overload.Full();
    if (const OpSpec* exact =
            FindListed(full, /*by_op=*/false, /*nested=*/true)) {
      return exact;
    }
    if (const OpSpec* generic = Generic(overload, /*nested=*/true)) {
      return generic;
    }
    return FindListed(full, /*by_op=*/true, /*nested=*/true);
  }
  const OverloadName overload = SplitOverload(name);
  const std::string full = overload.Full();
  if (const OpSpec* listed =
          FindListed(full, /*by_op=*/false, /*nested=*/false)) {
    return listed;
  }
  if (const OpSpec* generic = Generic(overload, /*nested=*/false)) {
    return generic;
  }
  // "add": the op's curated spec when it has no overload of that name.
  return overload.overload.empty()
             ? FindListed(full, /*by_op=*/true, /*nested=*/false)
             : nullptr;
}

const OpSpec* FindOpFor(const Case& c) {
  const std::vector<const TensorSpec*> tensors = TensorSpecsOf(c);
  const bool nested_args =
      std::any_of(tensors.begin(), tensors.end(),
                  [](const TensorSpec* t) { return t->is_nested(); });
  // A nested constructor's case (dense arguments, a nested result) by the
  // nested spec listed for it: a constructor from padded tensors, or any
  // when the op has no dense spec, listed or generic. A dense case of an
  // op that also has a nested spec (aten::gelu) keeps its dense spec.
  const OverloadName overload = SplitOverload(QualifiedOpName(c));
  const std::string full = overload.Full();
  const OpSpec* listed_nested =
      FindListed(full, /*by_op=*/false, /*nested=*/true);
  const bool nested_only =
      listed_nested != nullptr &&
      (listed_nested->nested_reference == NestedReference::kFromPadded ||
       (FindListed(full, /*by_op=*/false, /*nested=*/false) == nullptr &&
        Generic(overload, /*nested=*/false) == nullptr));
  if (nested_args || nested_only) {
    if (const OpSpec* nested =
            FindOp(absl::StrCat(kNestedPrefix, QualifiedOpName(c)))) {
      return nested;
    }
  }
  const OpSpec* spec = FindOp(QualifiedOpName(c));
  return spec != nullptr ? spec : FindOp(c.op);
}

std::vector<const OpSpec*> AllOps() {
  std::vector<const OpSpec*> all;
  for (const OpSpec& spec : CuratedOps()) all.push_back(&spec);
  for (const OpSpec& spec : AddedOps()) all.push_back(&spec);
  return all;
}

}  // namespace dpfuzz
