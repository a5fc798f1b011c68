#include "reducers/blame.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "generators/geometry.h"
#include "generators/layout_features.h"

namespace dpfuzz {
namespace {

constexpr char kGradOutputs[] = "grad_output";

// The tensors of argument `name` (every element of a Tensor[]; the
// grad_outputs under kGradOutputs).
std::vector<TensorSpec*> TensorsNamed(Case& c, const std::string& name) {
  std::vector<TensorSpec*> out;
  if (name == kGradOutputs) {
    for (TensorSpec& t : c.grad_outputs) out.push_back(&t);
    return out;
  }
  for (Argument& a : c.args) {
    if (a.name != name) continue;
    if (auto* t = std::get_if<TensorSpec>(&a.value)) out.push_back(t);
    if (auto* list = std::get_if<std::vector<TensorSpec>>(&a.value)) {
      for (TensorSpec& t : *list) out.push_back(&t);
    }
  }
  return out;
}

void DropAliasesOf(Case& c, const std::string& name) {
  c.aliases.erase(std::remove_if(c.aliases.begin(), c.aliases.end(),
                                 [&](const Alias& a) {
                                   return a.arg == name || a.base == name;
                                 }),
                  c.aliases.end());
}

// `c` with the tensors of `names` contiguous and sharing no memory.
Case WithPlain(const Case& c, const std::vector<std::string>& names) {
  Case plain = c;
  for (const std::string& name : names) {
    for (TensorSpec* t : TensorsNamed(plain, name)) {
      if (t->is_nested()) {
        t->components = ContiguousComponents(ComponentSizes(t->components));
        continue;
      }
      t->layout.strides = ComputeContiguousStrides(t->layout.sizes);
      t->layout.storage_offset = 0;
    }
    DropAliasesOf(plain, name);
  }
  return plain;
}

// Names of the arguments whose layout is not plain or that share memory.
std::vector<std::string> Suspects(const Case& c) {
  Case copy = c;
  std::vector<std::string> names;
  for (const Argument& a : c.args) names.push_back(a.name);
  if (!c.grad_outputs.empty()) names.push_back(kGradOutputs);
  std::vector<std::string> suspects;
  for (const std::string& name : names) {
    const std::vector<TensorSpec*> tensors = TensorsNamed(copy, name);
    const bool shared = std::any_of(
        c.aliases.begin(), c.aliases.end(),
        [&](const Alias& a) { return a.arg == name || a.base == name; });
    if (shared ||
        std::any_of(tensors.begin(), tensors.end(),
                    [](const TensorSpec* t) { return !IsPlain(*t); })) {
      if (std::find(suspects.begin(), suspects.end(), name) == suspects.end())
        suspects.push_back(name);
    }
  }
  return suspects;
}

struct FeatureEdit {
  uint32_t features;  // Applies when the layout has any of these.
  std::function<void(StridedLayout&)> remove;
};

const std::vector<FeatureEdit>& FeatureEdits() {
  static const auto* edits = new std::vector<FeatureEdit>{
      {kFeatureOffset, [](StridedLayout& l) { l.storage_offset = 0; }},
      {kFeatureOddUnitStride,
       [](StridedLayout& l) {
         const Dims contiguous = ComputeContiguousStrides(l.sizes);
         for (size_t d = 0; d < l.sizes.size(); ++d) {
           if (l.sizes[d] <= 1) l.strides[d] = contiguous[d];
         }
       }},
      {kFeatureZeroStride | kFeatureOverlapping | kFeatureGapped,
       [](StridedLayout& l) {
         l.strides = ComputeDenseStridesInOrder(l.sizes, l.strides);
       }},
  };
  return *edits;
}

// The name of the first of `features` present, in the order below.
std::string FirstFeatureName(uint32_t present, uint32_t features) {
  for (LayoutFeature f :
       {kFeatureOffset, kFeatureOddUnitStride, kFeatureZeroStride,
        kFeatureOverlapping, kFeatureGapped, kFeatureChannelsLast,
        kFeatureChannelsLast3d, kFeaturePermuted}) {
    if (present & features & f) return LayoutFeatureName(f);
  }
  return LayoutFeaturesToString(present);
}

class Blamer {
 public:
  Blamer(const Finding& f, const CaseRunner& run, int max_calls)
      : key_(ReductionKey(f)), run_(run), max_calls_(max_calls) {}

  // True when `c` still shows the finding; false too past the budget.
  bool Shows(const Case& c) {
    if (result_.calls >= max_calls_) {
      result_.budget_exhausted = true;
      return true;  // Unknown: blame nothing on it.
    }
    ++result_.calls;
    absl::StatusOr<std::optional<Finding>> r = run_(c);
    return r.ok() && r->has_value() && ReductionKey(**r) == key_;
  }

  BlameResult Blame(const Case& c) {
    std::vector<std::string> culprits;
    const std::vector<std::string> suspects = Suspects(c);
    for (const std::string& name : suspects) {
      if (!Shows(WithPlain(c, {name}))) culprits.push_back(name);
    }
    // Each of several arguments may show it alone (add of two transposed
    // tensors): then they are the culprits together, when making them all
    // plain makes the finding go.
    if (culprits.empty() && suspects.size() > 1 &&
        !Shows(WithPlain(c, suspects))) {
      culprits = suspects;
    }
    if (!c.aliases.empty()) {
      Case unshared = c;
      unshared.aliases.clear();
      if (!Shows(unshared)) {
        // The written arguments that share: which input they share with
        // is one bug's many faces (the case's aliases say which).
        std::vector<std::string> sharing;
        for (const Alias& a : c.aliases) {
          if (std::find(sharing.begin(), sharing.end(), a.arg) ==
              sharing.end()) {
            sharing.push_back(a.arg);
          }
        }
        result_.blame = {absl::StrJoin(sharing, ","), "aliasing"};
        return result_;
      }
    }
    if (culprits.empty()) {
      result_.blame = {"", "no_layout"};
      return result_;
    }
    result_.blame.culprit = absl::StrJoin(culprits, ",");
    result_.blame.feature = Feature(c, culprits.front());
    return result_;
  }

 private:
  // Note [Nested features]
  // A nested argument's layout is its components': each component's own
  // (permuted, gapped, offset: "nested_permuted", ...), found by making
  // every component dense at its place, else where the components lie
  // ("nested_component_order": out of order or apart).
  std::string NestedFeature(const Case& c, const std::string& name) {
    Case copy = c, dense = c;
    uint32_t present = 0;
    for (const TensorSpec* t : TensorsNamed(copy, name)) {
      for (const StridedLayout& l : t->components) {
        present |= ComputeLayoutFeatures(l);
      }
    }
    for (TensorSpec* t : TensorsNamed(dense, name)) {
      t->components = WithContiguousStrides(t->components);
    }
    if (dense != c && !Shows(dense)) {
      return absl::StrCat(
          "nested_", FirstFeatureName(present, ~uint32_t{kFeatureContiguous}));
    }
    return "nested_component_order";
  }

  std::string Feature(const Case& c, const std::string& name) {
    Case copy = c;
    for (const TensorSpec* t : TensorsNamed(copy, name)) {
      if (t->is_nested()) return NestedFeature(c, name);
    }
    uint32_t present = 0;
    for (const TensorSpec* t : TensorsNamed(copy, name)) {
      present |= ComputeLayoutFeatures(t->layout);
    }
    for (const FeatureEdit& edit : FeatureEdits()) {
      if ((present & edit.features) == 0) continue;
      Case without = c;
      for (TensorSpec* t : TensorsNamed(without, name)) {
        edit.remove(t->layout);
      }
      if (without != c && !Shows(without)) {
        return FirstFeatureName(present, edit.features);
      }
    }
    const uint32_t order =
        kFeaturePermuted | kFeatureChannelsLast | kFeatureChannelsLast3d;
    if (present & order) return FirstFeatureName(present, order);
    return LayoutFeaturesToString(present & ~(kFeatureContiguous));
  }

  std::string key_;
  const CaseRunner& run_;
  int max_calls_;
  BlameResult result_;
};

}  // namespace

Case WithoutBlamed(const Case& c, const Blame& blame) {
  if (blame.feature == "aliasing") {
    Case unshared = c;
    unshared.aliases.clear();
    return unshared;
  }
  if (blame.culprit.empty()) return c;
  return WithPlain(c, absl::StrSplit(blame.culprit, ','));
}

BlameResult FindBlame(const Finding& finding, const CaseRunner& run,
                      int max_calls) {
  return Blamer(finding, run, max_calls).Blame(finding.c);
}

Finding BlamedReduction(const Finding& found, Finding reduced,
                        const CaseRunner& run, int max_calls) {
  reduced.blame = FindBlame(reduced, run, max_calls).blame;
  if (reduced.blame.feature != "no_layout" || reduced.c == found.c) {
    return reduced;
  }
  Finding kept = found;
  kept.blame = FindBlame(found, run, max_calls).blame;
  return kept.blame.feature == "no_layout" ? reduced : kept;
}

}  // namespace dpfuzz
