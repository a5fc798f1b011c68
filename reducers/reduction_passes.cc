#include "reducers/reduction_passes.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <variant>

#include "absl/strings/match.h"
#include "generators/geometry.h"
#include "generators/layout_features.h"
#include "generators/view_chain.h"
#include "reducers/case_order.h"
#include "reducers/nested_passes.h"

namespace dpfuzz {
namespace {

size_t TensorCount(const Case& c) { return AllTensorSpecsOf(c).size(); }

// A copy of `c` with `edit` applied to its tensor `i`.
template <typename Edit>
Case WithTensor(const Case& c, size_t i, Edit edit) {
  Case copy = c;
  edit(*AllTensorSpecsOf(copy)[i]);
  return copy;
}

// `resized` with the gaps that resizing took from `before`'s tensors put
// back in the innermost dim of size > 1, as a slice with step 2 gives
// them; nullopt when resizing took none. A gapped out= of [1, 2, 2] whose
// gap lies between its rows has none left at [1, 1, 2], where a bug that
// writes over gaps no longer shows; at [1, 1, 2] with every other element
// it does.
std::optional<Case> WithGapsKept(const Case& before, const Case& resized) {
  Case kept = resized;
  const std::vector<const TensorSpec*> was = AllTensorSpecsOf(before);
  std::vector<TensorSpec*> now = AllTensorSpecsOf(kept);
  bool changed = false;
  for (size_t i = 0; i < was.size() && i < now.size(); ++i) {
    StridedLayout& l = now[i]->layout;
    if (now[i]->is_nested() ||
        !(ComputeLayoutFeatures(was[i]->layout) & kFeatureGapped) ||
        (ComputeLayoutFeatures(l) & kFeatureGapped)) {
      continue;
    }
    const Dims dense = ComputeDenseStridesInOrder(l.sizes, l.strides);
    size_t inner = l.sizes.size();
    for (size_t d = 0; d < l.sizes.size(); ++d) {
      if (l.sizes[d] > 1 &&
          (inner == l.sizes.size() || dense[d] < dense[inner]))
        inner = d;
    }
    if (inner == l.sizes.size()) continue;  // One element: no gap to have.
    Dims doubled = l.sizes;
    doubled[inner] *= 2;
    l.strides = ComputeDenseStridesInOrder(doubled, dense);
    l.strides[inner] *= 2;
    changed = true;
  }
  return changed ? std::optional<Case>(kept) : std::nullopt;
}

bool DropGradOutputs(const Case& current, const Attempt& attempt) {
  if (current.grad_outputs.empty()) return false;
  Case c = current;
  c.grad_outputs.clear();
  return attempt(c);
}

bool IsAliased(const Case& c, const std::string& name) {
  return std::any_of(c.aliases.begin(), c.aliases.end(), [&](const Alias& a) {
    return a.arg == name || a.base == name;
  });
}

// Arguments (the schema's default takes their place: an invalid candidate
// for a required one) and elements of tensor lists.
bool DropArguments(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = current.args.size(); i-- > 0;) {
    if (i >= current.args.size() || IsAliased(current, current.args[i].name))
      continue;
    Case c = current;
    c.args.erase(c.args.begin() + static_cast<std::ptrdiff_t>(i));
    kept |= attempt(c);
  }
  for (size_t i = 0; i < current.args.size(); ++i) {
    const auto* list =
        std::get_if<std::vector<TensorSpec>>(&current.args[i].value);
    for (size_t e = list == nullptr ? 0 : list->size(); e-- > 0;) {
      list = std::get_if<std::vector<TensorSpec>>(&current.args[i].value);
      if (list == nullptr || e >= list->size() || list->size() <= 1) break;
      Case c = current;
      auto& l = std::get<std::vector<TensorSpec>>(c.args[i].value);
      l.erase(l.begin() + static_cast<std::ptrdiff_t>(e));
      kept |= attempt(c);
    }
  }
  return kept;
}

void DropDim(TensorSpec& t, size_t d) {
  t.layout.sizes.erase(t.layout.sizes.begin() + static_cast<std::ptrdiff_t>(d));
  t.layout.strides.erase(t.layout.strides.begin() +
                         static_cast<std::ptrdiff_t>(d));
}

// The dim arguments of `c` ("dim", "dim0", "dims", ...) renumbered for
// tensors of rank `rank` that lose dim `d`: a later dim counts one less
// (from the end, an earlier one one more); false when one names `d`.
bool RenumberDims(Case& c, int64_t rank, int64_t d) {
  const auto renumber = [rank, d](int64_t& v) {
    const int64_t at = v < 0 ? v + rank : v;
    if (at == d) return false;
    if (v >= 0 && at > d) --v;
    if (v < 0 && at < d) ++v;
    return true;
  };
  for (Argument& a : c.args) {
    if (!absl::StartsWith(a.name, "dim")) continue;
    if (auto* v = std::get_if<int64_t>(&a.value); v != nullptr) {
      if (!renumber(*v)) return false;
    } else if (auto* list = std::get_if<Dims>(&a.value); list != nullptr) {
      if (!std::all_of(list->begin(), list->end(), renumber)) return false;
    }
  }
  return true;
}

// Dim `d` of every tensor of the same rank at once (with the dim
// arguments renumbered, then as they are), then of tensor `i` alone.
bool DropDims(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = 0; i < TensorCount(current); ++i) {
    for (size_t d = 0;; ++d) {
      Case base = current;
      std::vector<TensorSpec*> ts = AllTensorSpecsOf(base);
      if (i >= ts.size() || d >= ts[i]->layout.sizes.size()) break;
      const size_t rank = ts[i]->layout.sizes.size();
      Case all = base;
      for (TensorSpec* t : AllTensorSpecsOf(all)) {
        if (t->layout.sizes.size() == rank) DropDim(*t, d);
      }
      Case renumbered = all;
      if ((RenumberDims(renumbered, static_cast<int64_t>(rank),
                        static_cast<int64_t>(d)) &&
           !(renumbered == all) && attempt(renumbered)) ||
          attempt(all)) {
        kept = true;
        --d;  // The next dim moved into place d.
        continue;
      }
      Case one = WithTensor(current, i, [d](TensorSpec& t) { DropDim(t, d); });
      if (attempt(one)) {
        kept = true;
        --d;
      }
    }
  }
  return kept;
}

// Which tensors a size step resizes: tensor `i` alone; every tensor of
// its size there (tied inputs, a right-size out); or every tensor longer
// there by as much (an out= or grad_output whose size follows the inputs'
// by a fixed amount: padding, a convolution's kernel).
enum class Resizing { kOne, kSameSize, kSameStep };

// Dim `d` (counted from the end, as broadcasting aligns dims) of tensor
// `i`, sized `from`, made `to`, and of the tensors `how` names alike.
Case Resized(const Case& c, size_t i, size_t d_from_end, int64_t from,
             int64_t to, Resizing how) {
  Case copy = c;
  std::vector<TensorSpec*> ts = AllTensorSpecsOf(copy);
  const int64_t step = from - to;
  for (size_t k = 0; k < ts.size(); ++k) {
    Dims& sizes = ts[k]->layout.sizes;
    if ((k != i && how == Resizing::kOne) || d_from_end >= sizes.size()) {
      continue;
    }
    int64_t& s = sizes[sizes.size() - 1 - d_from_end];
    if (k == i || (how == Resizing::kSameSize && s == from)) {
      s = to;
    } else if (how == Resizing::kSameStep && s > step) {
      s -= step;
    }
  }
  return copy;
}

// Lowers a number of the current case towards `floor`: steps of 1, 2, 4,
// ... while they are kept, then bisection between the largest value that
// failed and the current one. `now` reads the number from the current case
// (-1 when it is gone); `with` makes the candidate with another value.
// `with` may offer several candidates for one value; the first kept wins.
bool Gallop(
    const std::function<int64_t()>& now,
    const std::function<std::vector<Case>(int64_t from, int64_t to)>& with,
    int64_t floor, const Attempt& attempt) {
  bool kept = false;
  int64_t step = 1;
  int64_t failed = floor - 1;  // Largest value known to fail.
  for (;;) {
    const int64_t v = now();
    if (v <= floor || v - failed <= 1) return kept;
    const int64_t to = std::max(v - step, failed + 1);
    const std::vector<Case> candidates = with(v, to);
    if (std::any_of(candidates.begin(), candidates.end(), attempt)) {
      kept = true;
      step *= 2;
    } else {
      failed = to;
      step = std::max<int64_t>(1, (v - to) / 2);
    }
  }
}

bool ShrinkOne(const Case& current, size_t i, size_t d_from_end, Resizing how,
               const Attempt& attempt) {
  return Gallop(
      [&]() -> int64_t {
        const std::vector<const TensorSpec*> ts = AllTensorSpecsOf(current);
        if (i >= ts.size() || d_from_end >= ts[i]->layout.sizes.size())
          return -1;
        const Dims& s = ts[i]->layout.sizes;
        return s[s.size() - 1 - d_from_end];
      },
      [&](int64_t from, int64_t to) {
        // Strides kept; else dense again in the same order (a transposed,
        // channels_last or dense permuted layout stays one).
        const Case kept = Resized(current, i, d_from_end, from, to, how);
        Case dense = kept;
        for (TensorSpec* t : AllTensorSpecsOf(dense)) {
          t->layout.strides =
              ComputeDenseStridesInOrder(t->layout.sizes, t->layout.strides);
        }
        std::vector<Case> candidates{kept, dense};
        if (std::optional<Case> gapped = WithGapsKept(current, kept)) {
          candidates.push_back(*gapped);
        }
        return candidates;
      },
      1, attempt);
}

bool ShrinkSizes(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = 0; i < TensorCount(current); ++i) {
    for (size_t d = 0;; ++d) {
      const std::vector<const TensorSpec*> ts = AllTensorSpecsOf(current);
      if (i >= ts.size() || d >= ts[i]->layout.sizes.size()) break;
      for (const Resizing how :
           {Resizing::kSameSize, Resizing::kSameStep, Resizing::kOne}) {
        kept |= ShrinkOne(current, i, d, how, attempt);
      }
    }
  }
  return kept;
}

bool ContiguousStrides(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = 0; i < TensorCount(current); ++i) {
    kept |= attempt(WithTensor(current, i, [](TensorSpec& t) {
      t.layout.strides = ComputeContiguousStrides(t.layout.sizes);
    }));
    // An overlapping or expanded layout that needs to be non-contiguous
    // may show its bug with a dense one: the same dim order, or the
    // reversed (column-major, a transpose). See Note [Natural triggers].
    for (const bool reversed : {false, true}) {
      const std::vector<const TensorSpec*> ts = AllTensorSpecsOf(current);
      if (i >= ts.size() || UnnaturalRank(ts[i]->layout) == 0) break;
      kept |= attempt(WithTensor(current, i, [reversed](TensorSpec& t) {
        Dims order(t.layout.sizes.size());
        for (size_t d = 0; d < order.size(); ++d) {
          order[d] = static_cast<int64_t>(d);
        }
        t.layout.strides = ComputeDenseStridesInOrder(
            t.layout.sizes, reversed ? order : t.layout.strides);
      }));
    }
    for (size_t d = 0;; ++d) {
      const std::vector<const TensorSpec*> ts = AllTensorSpecsOf(current);
      if (i >= ts.size() || d >= ts[i]->layout.sizes.size()) break;
      kept |= attempt(WithTensor(current, i, [d](TensorSpec& t) {
        t.layout.strides[d] = ComputeContiguousStrides(t.layout.sizes)[d];
      }));
      // An expanded dim that must stay non-contiguous: every other element
      // (a slice with step 2) is non-contiguous too, and natural.
      const std::vector<const TensorSpec*> now = AllTensorSpecsOf(current);
      if (i < now.size() && d < now[i]->layout.sizes.size() &&
          now[i]->layout.strides[d] == 0 && now[i]->layout.sizes[d] > 1) {
        kept |= attempt(WithTensor(current, i, [d](TensorSpec& t) {
          t.layout.strides[d] = 2 * ComputeContiguousStrides(t.layout.sizes)[d];
        }));
      }
    }
  }
  return kept;
}

// The strides of size-1 dims that view ops give (crashes/bugs'
// issue_snippet.cc spells a layout as view ops on a fresh tensor, and
// needs as_strided where they cannot give it): what a layout drawn with
// odd ones, or reduced to them, addresses the same elements with.
bool NaturalUnitStrides(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = 0; i < TensorCount(current); ++i) {
    const std::vector<const TensorSpec*> ts = AllTensorSpecsOf(current);
    if (i >= ts.size()) break;
    const std::optional<Dims> natural = NaturalStrides(ts[i]->layout);
    if (!natural.has_value() || *natural == ts[i]->layout.strides) continue;
    kept |= attempt(WithTensor(current, i, [&natural](TensorSpec& t) {
      t.layout.strides = *natural;
    }));
  }
  return kept;
}

// Zero, else as small as still fails.
bool ShrinkOffsets(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = 0; i < TensorCount(current); ++i) {
    kept |= Gallop(
        [&]() -> int64_t {
          const std::vector<const TensorSpec*> ts = AllTensorSpecsOf(current);
          return i < ts.size() ? ts[i]->layout.storage_offset : -1;
        },
        [&](int64_t, int64_t to) {
          return std::vector<Case>{WithTensor(current, i, [to](TensorSpec& t) {
            t.layout.storage_offset = to;
          })};
        },
        0, attempt);
  }
  return kept;
}

// Each stride as small as still fails (down to 0: less storage); those of
// size-1 dims, which take no storage, are NaturalUnitStrides'.
bool ShrinkStrides(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = 0; i < TensorCount(current); ++i) {
    for (size_t d = 0;; ++d) {
      const std::vector<const TensorSpec*> ts = AllTensorSpecsOf(current);
      if (i >= ts.size() || d >= ts[i]->layout.strides.size()) break;
      if (ts[i]->layout.sizes[d] <= 1) continue;
      kept |= Gallop(
          [&]() -> int64_t {
            const std::vector<const TensorSpec*> now =
                AllTensorSpecsOf(current);
            return i < now.size() && d < now[i]->layout.strides.size()
                       ? now[i]->layout.strides[d]
                       : -1;
          },
          [&](int64_t, int64_t to) {
            return std::vector<Case>{WithTensor(
                current, i,
                [d, to](TensorSpec& t) { t.layout.strides[d] = to; })};
          },
          0, attempt);
    }
  }
  return kept;
}

// Dims d and d + 1 of one tensor made one (sizes multiplied, the inner
// stride kept): a lower rank with the same elements.
bool MergeDims(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = 0; i < TensorCount(current); ++i) {
    for (size_t d = 0;; ++d) {
      const std::vector<const TensorSpec*> ts = AllTensorSpecsOf(current);
      if (i >= ts.size() || d + 1 >= ts[i]->layout.sizes.size()) break;
      if (attempt(WithTensor(current, i, [d](TensorSpec& t) {
            t.layout.sizes[d + 1] *= t.layout.sizes[d];
            DropDim(t, d);
          }))) {
        kept = true;
        --d;
      }
    }
  }
  return kept;
}

std::vector<DType> DTypesBySimplicity() {
  std::vector<DType> all = AllDTypes();
  std::sort(all.begin(), all.end(),
            [](DType a, DType b) { return DTypeRank(a) < DTypeRank(b); });
  return all;
}

// A bool tensor beside tensors of other dtypes stays bool: it is a mask
// or a flag, and a mask of 0 and 1 in another dtype (an int64 mask, which
// some ops still take) is another argument than the caller's. Where every
// tensor is bool, they are the op's data and change together.
bool SimplifyDTypes(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = 0; i < TensorCount(current); ++i) {
    for (DType to : DTypesBySimplicity()) {
      const std::vector<const TensorSpec*> ts = AllTensorSpecsOf(current);
      const bool mask =
          i < ts.size() && ts[i]->dtype == DType::kBool &&
          std::any_of(ts.begin(), ts.end(), [](const TensorSpec* t) {
            return t->dtype != DType::kBool;
          });
      if (i >= ts.size() || DTypeRank(to) >= DTypeRank(ts[i]->dtype) || mask) {
        break;
      }
      const DType from = ts[i]->dtype;
      Case all = current;
      for (TensorSpec* t : AllTensorSpecsOf(all)) {
        if (t->dtype == from) t->dtype = to;
      }
      if (attempt(all) || attempt(WithTensor(current, i, [to](TensorSpec& t) {
            t.dtype = to;
          }))) {
        kept = true;
        break;
      }
    }
  }
  return kept;
}

bool SimplifyValues(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t i = 0; i < TensorCount(current); ++i) {
    kept |= attempt(
        WithTensor(current, i, [](TensorSpec& t) { t.values.specials = 0; }));
    // arange before small integers: distinct values show where each
    // element went, as a person's snippet would.
    for (Distribution d : {Distribution::kZeros, Distribution::kOnes,
                           Distribution::kArange, Distribution::kSmallInt}) {
      kept |= attempt(WithTensor(current, i, [d](TensorSpec& t) {
        // Index distributions keep indices valid: not theirs to simplify;
        // nor are a seed's explicit integers (indices, lengths, offsets).
        // A seed's explicit floats and bools (masks) are only values.
        const bool explicit_values =
            t.values.distribution == Distribution::kExplicit &&
            (IsFloating(t.dtype) || IsComplex(t.dtype) ||
             t.dtype == DType::kBool);
        // Ones may still become zeros (the case order keeps every step
        // a simpler one).
        if (t.values.distribution == Distribution::kDyadic ||
            t.values.distribution == Distribution::kWide ||
            t.values.distribution == Distribution::kOnes ||
            t.values.distribution == Distribution::kSmallInt ||
            t.values.distribution == Distribution::kArange || explicit_values) {
          t.values.distribution = d;
          t.values.data.clear();
        }
      }));
    }
    kept |= attempt(
        WithTensor(current, i, [](TensorSpec& t) { t.values.seed = 0; }));
  }
  for (size_t a = 0; a < current.args.size(); ++a) {
    for (int64_t to : {0, 1}) {
      if (a >= current.args.size()) break;
      Case c = current;
      if (auto* v = std::get_if<int64_t>(&c.args[a].value)) {
        *v = to;
      } else if (auto* f = std::get_if<FloatArg>(&c.args[a].value)) {
        f->value = static_cast<double>(to);
      } else {
        break;
      }
      kept |= attempt(c);
    }
  }
  return kept;
}

// `c`, then `c` with one dim of one tensor shorter by `step`, for each
// in turn: a size that follows a number (an out= or grad_output padded by
// it, a length narrowed to it) shrinks with it, else the op resizes out or
// rejects the case.
std::vector<Case> WithASizeThatFollows(const Case& c, int64_t step) {
  std::vector<Case> candidates{c};
  const std::vector<const TensorSpec*> tensors = AllTensorSpecsOf(c);
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Dims& sizes = tensors[i]->layout.sizes;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (sizes[d] <= step) continue;
      candidates.push_back(WithTensor(
          c, i, [d, step](TensorSpec& t) { t.layout.sizes[d] -= step; }));
      if (std::optional<Case> gapped = WithGapsKept(c, candidates.back())) {
        candidates.push_back(*gapped);
      }
    }
  }
  return candidates;
}

// Each positive integer argument and element of an int list (a padding, a
// start, a length, a kernel size) as small as still fails, down to 0:
// simplify_values only tries 0 and 1, and a snippet reads best with the
// smallest numbers that show the bug. Negative ones (dims counted from the
// end) stay.
bool ShrinkInts(const Case& current, const Attempt& attempt) {
  bool kept = false;
  for (size_t a = 0; a < current.args.size(); ++a) {
    const auto* list = std::get_if<Dims>(&current.args[a].value);
    const size_t elements = list != nullptr ? list->size() : 1;
    for (size_t e = 0; e < elements; ++e) {
      // The number at (a, e) of `c`, or -1 when it is not an int there.
      const auto number = [a, e](Case& c) -> int64_t* {
        if (a >= c.args.size()) return nullptr;
        if (auto* v = std::get_if<int64_t>(&c.args[a].value)) return v;
        auto* l = std::get_if<Dims>(&c.args[a].value);
        return l != nullptr && e < l->size() ? &(*l)[e] : nullptr;
      };
      Case probe = current;
      if (const int64_t* v = number(probe); v == nullptr || *v <= 1) continue;
      kept |= Gallop(
          [&]() -> int64_t {
            Case c = current;
            const int64_t* v = number(c);
            return v != nullptr ? *v : -1;
          },
          [&](int64_t from, int64_t to) {
            Case c = current;
            *number(c) = to;
            return WithASizeThatFollows(c, from - to);
          },
          0, attempt);
    }
  }
  return kept;
}

bool ToCpu(const Case& current, const Attempt& attempt) {
  Case c = current;
  PlaceOnDevice(c, Device::kCpu);
  return attempt(c);
}

}  // namespace

std::vector<ReductionPass> DefaultReductionPasses() {
  // Values before sizes: a simpler value can need room that size steps
  // take away (an all-True mask needs a source as long as the mask, which
  // a source shrunk to a drawn mask's True count no longer has), and every
  // later candidate is then tried with them.
  return {{"drop_grad_outputs", DropGradOutputs},
          {"drop_arguments", DropArguments},
          {"simplify_values", SimplifyValues},
          {"drop_dims", DropDims},
          {"merge_dims", MergeDims},
          {"shrink_sizes", ShrinkSizes},
          {"contiguous_strides", ContiguousStrides},
          {"shrink_strides", ShrinkStrides},
          {"shrink_offsets", ShrinkOffsets},
          {"natural_unit_strides", NaturalUnitStrides},
          {"shrink_ints", ShrinkInts},
          {"simplify_dtypes", SimplifyDTypes},
          {"to_cpu", ToCpu},
          {"drop_components", DropComponents},
          {"shrink_components", ShrinkComponents},
          {"contiguous_components", ContiguousComponentsPass}};
}

}  // namespace dpfuzz
