#include "oracles/places_written.h"

#include <algorithm>
#include <string>
#include <vector>

#include "generators/contract_rules.h"
#include "generators/tensor_spec.h"
#include "oracles/case_tensors.h"

namespace dpfuzz {
namespace {

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The elements changed outside the views that may change: member `m`'s,
// and every member the call writes (`writes`).
std::vector<int64_t> ChangedOutside(const StorageGroup& group, size_t m,
                                    const std::vector<std::string>& writes,
                                    const std::vector<bool>& changed) {
  std::vector<bool> may(changed.size(), false);
  for (size_t k = 0; k < group.specs.size(); ++k) {
    if (k != m && !Contains(writes, group.args[k])) continue;
    for (int64_t index : SpecStorageIndices(group.specs[k])) {
      if (index < static_cast<int64_t>(may.size())) may[index] = true;
    }
  }
  std::vector<int64_t> outside;
  for (size_t e = 0; e < changed.size(); ++e) {
    if (changed[e] && !may[e]) outside.push_back(static_cast<int64_t>(e));
  }
  return outside;
}

// Whether a written member of `group` is left with other sizes than it
// was made with: an out= of another size, resized, addresses other
// elements now, which it may write.
bool LeftResized(const Simulation& s, const StorageGroup& group) {
  for (size_t k = 0; k < group.specs.size(); ++k) {
    if (!Contains(s.written, group.args[k])) continue;
    const auto it = s.variant->args.find(group.args[k]);
    if (it == s.variant->args.end() || it->second.size() != 1) continue;
    const at::Tensor& now = it->second.front();
    if (now.defined() && now.sizes().vec() != group.specs[k].layout.sizes) {
      return true;
    }
  }
  return false;
}

// `writes`: the arguments the call writes, by its schema or by design
// (generators/contract_rules.h: MutatedByDesign, `mutated`). Nothing when
// the changes fit no member's mistake, or the mistakes of two (an out=
// sharing a storage with an argument written by design).
std::optional<Explanation> InGroup(const Simulation& s,
                                   const StorageGroup& group,
                                   const std::vector<std::string>& writes,
                                   const std::vector<std::string>& mutated) {
  for (const TensorSpec& spec : group.specs) {
    if (spec.is_nested()) return std::nullopt;
  }
  if (LeftResized(s, group)) return std::nullopt;
  std::vector<Explanation> fitting;
  const std::vector<bool> changed = ChangedElements(group);
  for (size_t m = 0; m < group.specs.size(); ++m) {
    // An argument the call does not write is no mistake's.
    if (!Contains(writes, group.args[m])) continue;
    const std::vector<int64_t> view = SpecStorageIndices(group.specs[m]);
    if (view.empty()) continue;
    const std::vector<int64_t> outside =
        ChangedOutside(group, m, writes, changed);
    if (outside.empty()) continue;
    // The numel elements from its data pointer: [first, end).
    const int64_t first = group.specs[m].layout.storage_offset;
    const int64_t end = first + static_cast<int64_t>(view.size());
    bool contiguous = true;
    for (size_t i = 0; i < view.size(); ++i) {
      contiguous = contiguous && view[i] == first + static_cast<int64_t>(i);
    }
    if (contiguous) {
      bool run = true;  // end, end + 1, ...
      for (size_t i = 0; i < outside.size(); ++i) {
        run = run && outside[i] == end + static_cast<int64_t>(i);
      }
      if (run) fitting.push_back({"writes_past_end", group.args[m]});
      continue;
    }
    // Linearly only an argument written by design and compared as no
    // result: a result's writes were judged by their values (Note
    // [Mechanisms by simulation]).
    if (!Contains(mutated, group.args[m]) || Contains(s.names, group.args[m])) {
      continue;
    }
    const auto linear = [&](int64_t index) {
      return index >= first && index < end;
    };
    const bool fits = std::all_of(outside.begin(), outside.end(), linear);
    const bool kept =
        std::none_of(view.begin(), view.end(), [&](int64_t index) {
          return !linear(index) &&
                 index < static_cast<int64_t>(changed.size()) && changed[index];
        });
    if (fits && kept)
      fitting.push_back({"writes_as_contiguous", group.args[m]});
  }
  if (fitting.size() != 1) return std::nullopt;
  return fitting.front();
}

}  // namespace

std::optional<Explanation> ExplainByPlacesWritten(const Simulation& s) {
  const std::vector<std::string> mutated = MutatedByDesign(*s.c);
  std::vector<std::string> writes = s.written;
  writes.insert(writes.end(), mutated.begin(), mutated.end());
  for (const StorageGroup& group : s.variant->groups) {
    if (std::optional<Explanation> e = InGroup(s, group, writes, mutated)) {
      return e;
    }
  }
  return std::nullopt;
}

}  // namespace dpfuzz
