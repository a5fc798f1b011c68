#include "generators/view_chain.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dpfuzz {
namespace {

// Dims that share one base dim: the first is sliced from it, each later
// one is the outer dim of an unfold of the one before (its windows).
// Innermost (smallest stride) first.
struct Group {
  std::vector<int64_t> dims;
  int64_t unit = 1;    // The base dim's stride.
  int64_t step = 1;    // The slicing step, in base elements.
  int64_t length = 1;  // Elements of the sliced dim before any unfold.
  int64_t start = 0;
  int64_t size = 1;  // The base dim's size.
};

// Elements between a group's first and last addressed element, plus one.
int64_t Span(const StridedLayout& l, const Group& g) {
  int64_t span = 1;
  for (int64_t d : g.dims)
    span += std::max<int64_t>(l.sizes[d] - 1, 0) * l.strides[d];
  return span;
}

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// `sizes` of the base dims, put in the logical order of their dims.
Dims LogicalSizes(const Dims& sizes, const std::vector<int64_t>& order) {
  Dims out(sizes.size());
  for (size_t p = 0; p < sizes.size(); ++p) out[order[p]] = sizes[p];
  return out;
}

// Whether dim `outer` can be the outer dim of windows of dim `inner`
// (Tensor.unfold): both real (size > 1), strides a multiple of each other.
bool CanUnfold(const StridedLayout& l, int64_t inner, int64_t outer) {
  return l.sizes[inner] > 1 && l.sizes[outer] > 1 &&
         l.strides[outer] % l.strides[inner] == 0;
}

// Groups of the dims with a stride (those of size <= 1 only when
// `place_small`), outermost last; empty when the strides do not nest.
std::optional<std::vector<Group>> MakeGroups(const StridedLayout& l,
                                             bool place_small) {
  std::vector<int64_t> placed;
  for (int64_t d = 0; d < l.dim(); ++d) {
    if (l.strides[d] > 0 && (l.sizes[d] > 1 || place_small))
      placed.push_back(d);
  }
  // Smallest stride innermost; ties: the later dim innermost (as c10).
  std::sort(placed.begin(), placed.end(), [&](int64_t a, int64_t b) {
    return l.strides[a] != l.strides[b] ? l.strides[a] < l.strides[b] : a > b;
  });
  std::vector<Group> groups;
  for (int64_t d : placed) {
    if (groups.empty() || l.strides[d] >= Span(l, groups.back())) {
      groups.push_back(Group{{d}});
      continue;
    }
    // Overlaps the group: an unfold of its outer dim, when the stride is a
    // multiple of that dim's and both are real (size > 1) dims.
    if (!CanUnfold(l, groups.back().dims.back(), d)) return std::nullopt;
    groups.back().dims.push_back(d);
  }
  // Base strides as large as every outer stride allows. Where a group does
  // not fit in the base dim that leaves, the next group's dims are windows
  // of it too (an unfold that does not overlap), when strides allow; not
  // to give size-0/1 dims their strides (as_strided says that better).
  for (;;) {
    int64_t unit = 0;
    for (size_t j = groups.size(); j-- > 0;) {
      for (int64_t d : groups[j].dims) unit = std::gcd(unit, l.strides[d]);
      groups[j].unit = j == 0 ? 1 : unit;
    }
    size_t misfit = groups.size();
    for (size_t j = 0; j < groups.size(); ++j) {
      Group& g = groups[j];
      const int64_t first = l.strides[g.dims.front()];
      g.step = first / g.unit;
      g.length = (Span(l, g) - 1) / first + 1;
      if (j + 1 < groups.size()) {
        g.size = groups[j + 1].unit / g.unit;
        if ((g.length - 1) * g.step + 1 > g.size) {
          misfit = j;
          break;
        }
      }
    }
    if (misfit == groups.size()) return groups;
    Group& inner = groups[misfit];
    const std::vector<int64_t>& next = groups[misfit + 1].dims;
    if (place_small || !CanUnfold(l, inner.dims.back(), next.front())) {
      return std::nullopt;
    }
    inner.dims.insert(inner.dims.end(), next.begin(), next.end());
    groups.erase(groups.begin() + misfit + 1);
  }
}

// The offset as starts of the groups' slices (mixed radix); what does not
// fit inside the inner base dims becomes the lead.
int64_t PlaceOffset(int64_t offset, std::vector<Group>& groups) {
  if (groups.empty()) return offset;
  int64_t rest = offset;
  for (size_t j = groups.size(); j-- > 0;) {
    groups[j].start = rest / groups[j].unit;
    rest %= groups[j].unit;
  }
  for (size_t j = 0; j + 1 < groups.size(); ++j) {
    const Group& g = groups[j];
    if (g.start + (g.length - 1) * g.step + 1 > g.size) {
      for (size_t i = 0; i + 1 < groups.size(); ++i) groups[i].start = 0;
      return offset % groups.back().unit;
    }
  }
  return 0;
}

// The permutation that puts the dims `order` (the logical dim at each
// position) in logical order, as one step; none for the identity.
std::optional<ViewStep> PermuteStep(const std::vector<int64_t>& order) {
  Dims to(order.size());
  std::vector<int64_t> moved;
  for (size_t i = 0; i < order.size(); ++i) {
    to[order[i]] = static_cast<int64_t>(i);
    if (order[i] != static_cast<int64_t>(i)) moved.push_back(i);
  }
  if (moved.empty()) return std::nullopt;
  if (moved.size() == 2)
    return ViewStep{ViewKind::kTranspose, {moved[0], moved[1]}};
  return ViewStep{ViewKind::kPermute, to};
}

std::optional<ViewChain> Attempt(const StridedLayout& l,
                                 const ViewChainOptions& options,
                                 bool place_small) {
  std::optional<std::vector<Group>> made = MakeGroups(l, place_small);
  if (!made) return std::nullopt;
  std::vector<Group>& groups = *made;
  ViewChain chain;
  chain.lead = PlaceOffset(l.storage_offset, groups);
  if (!groups.empty()) {
    Group& outer = groups.back();
    outer.size = outer.start + (outer.length - 1) * outer.step + 1;
  }
  // Base dims: the groups, outermost first, with each dim they leave out
  // (size <= 1 or stride 0: a base dim of size 1) before the first group
  // whose dim comes after it, so that few dims move.
  std::vector<int64_t> order;  // Logical dim of each base dim.
  std::vector<int64_t> group_of;
  for (size_t j = groups.size(); j-- > 0;) {
    order.push_back(groups[j].dims.back());
    group_of.push_back(static_cast<int64_t>(j));
  }
  std::vector<bool> grouped(l.dim(), false);
  for (const Group& g : groups) {
    for (int64_t d : g.dims) grouped[d] = true;
  }
  for (int64_t d = 0; d < l.dim(); ++d) {
    if (grouped[d]) continue;
    size_t at = 0;
    while (at < order.size() && (order[at] < d || group_of[at] < 0)) ++at;
    order.insert(order.begin() + at, d);
    group_of.insert(group_of.begin() + at, -1);
  }
  const int64_t base_rank = static_cast<int64_t>(order.size());
  chain.base_sizes.assign(base_rank, 1);
  for (int64_t p = 0; p < base_rank; ++p) {
    if (group_of[p] >= 0) chain.base_sizes[p] = groups[group_of[p]].size;
  }
  // A channels_last base when the dims lie in that order, unsplit.
  const Dims cl_order = base_rank == 5 ? Dims{0, 2, 3, 4, 1} : Dims{0, 2, 3, 1};
  const bool unsplit =
      std::all_of(groups.begin(), groups.end(),
                  [](const Group& g) { return g.dims.size() == 1; });
  // Not where the row-major base is channels_last already (size-1 dims):
  // .contiguous(memory_format=...) would keep its strides.
  if (options.allow_channels_last && !options.flat_buffer && chain.lead == 0 &&
      unsplit && order == cl_order &&
      !ComputeIsContiguous(
          LogicalSizes(chain.base_sizes, order),
          ComputeContiguousStrides(LogicalSizes(chain.base_sizes, order)),
          base_rank == 4 ? MemoryFormat::kChannelsLast
                         : MemoryFormat::kChannelsLast3d)) {
    chain.base_format = base_rank == 4 ? MemoryFormat::kChannelsLast
                                       : MemoryFormat::kChannelsLast3d;
    const Dims sizes = chain.base_sizes;
    const std::vector<int64_t> by_position = group_of;
    for (int64_t p = 0; p < base_rank; ++p) {
      chain.base_sizes[order[p]] = sizes[p];
      group_of[order[p]] = by_position[p];
    }
    std::iota(order.begin(), order.end(), 0);
  }
  // The buffer: the base, and the margin after the last addressed element
  // (more rows of the outermost group's base dim when there is no lead).
  int64_t wanted = l.storage_offset + 1 + options.tail_margin;
  for (int64_t d = 0; d < l.dim(); ++d) {
    wanted += std::max<int64_t>(l.sizes[d] - 1, 0) * l.strides[d];
  }
  const bool from_buffer =
      chain.lead > 0 || options.flat_buffer || groups.empty();
  const int64_t numel = ComputeNumel(chain.base_sizes);
  if (!from_buffer && numel < wanted) {
    const int64_t p = std::find(group_of.begin(), group_of.end(),
                                static_cast<int64_t>(groups.size()) - 1) -
                      group_of.begin();
    const int64_t row = numel / chain.base_sizes[p];
    chain.base_sizes[p] += CeilDiv(wanted - numel, row);
  }
  chain.buffer_size = std::max(chain.lead + ComputeNumel(chain.base_sizes),
                               from_buffer ? wanted : 0);
  // Slicing, in dim order (one subscript in Python).
  for (int64_t p = 0; p < base_rank; ++p) {
    const int64_t size = l.sizes[order[p]];
    if (group_of[p] < 0) {
      if (size == 0) chain.steps.push_back({ViewKind::kSlice, {p, 0, 0, 1}});
      continue;
    }
    const Group& g = groups[group_of[p]];
    const int64_t end =
        size == 0 ? g.start : g.start + (g.length - 1) * g.step + 1;
    if (g.start != 0 || g.step != 1 || end != chain.base_sizes[p]) {
      chain.steps.push_back({ViewKind::kSlice, {p, g.start, end, g.step}});
    }
  }
  chain.copy_at = chain.steps.size();
  // Windows: each unfold appends the window dim.
  for (int64_t p = 0; p < base_rank; ++p) {
    if (group_of[p] < 0) continue;
    const Group& g = groups[group_of[p]];
    for (size_t i = 0; i + 1 < g.dims.size(); ++i) {
      const int64_t window = g.dims[i];
      chain.steps.push_back(
          {ViewKind::kUnfold,
           {p, l.sizes[window], l.strides[g.dims[i + 1]] / l.strides[window]}});
      order.push_back(window);
    }
  }
  if (std::optional<ViewStep> permute = PermuteStep(order)) {
    chain.steps.push_back(*permute);
  }
  for (int64_t d = 0; d < l.dim(); ++d) {
    if (l.sizes[d] > 1 && l.strides[d] == 0) {
      chain.steps.push_back({ViewKind::kExpand, l.sizes});
      break;
    }
  }
  chain.from_buffer = chain.lead > 0 || options.flat_buffer ||
                      chain.buffer_size > ComputeNumel(chain.base_sizes);
  // Keep only a chain that gives the layout.
  absl::StatusOr<StridedLayout> got = ApplyViewChain(chain);
  if (!got.ok() || got->sizes != l.sizes ||
      got->storage_offset != l.storage_offset) {
    return std::nullopt;
  }
  chain.exact = true;
  for (int64_t d = 0; d < l.dim(); ++d) {
    if (got->strides[d] == l.strides[d]) continue;
    if (l.sizes[d] > 1) return std::nullopt;
    chain.exact = false;
  }
  return chain;
}

// Python for one subscript over `slices` (each on a later dim).
std::string Subscript(const std::vector<const ViewStep*>& slices,
                      const StridedLayout& before) {
  std::vector<std::string> parts;
  for (const ViewStep* s : slices) {
    const int64_t dim = s->args[0], start = s->args[1], end = s->args[2],
                  step = s->args[3];
    while (static_cast<int64_t>(parts.size()) < dim) parts.push_back(":");
    std::string part = start == 0 ? "" : absl::StrCat(start);
    const bool to_end =
        end >= before.sizes[dim] ||
        (step > 1 && (before.sizes[dim] - start + step - 1) / step ==
                         (end - start + step - 1) / step);
    absl::StrAppend(&part, ":", to_end ? "" : absl::StrCat(end));
    if (step != 1) absl::StrAppend(&part, ":", step);
    parts.push_back(part);
  }
  return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
}

}  // namespace

std::optional<ViewChain> ComputeViewChain(const StridedLayout& layout,
                                          const ViewChainOptions& options) {
  for (const int64_t s : layout.strides) {
    if (s < 0) return std::nullopt;
  }
  std::optional<ViewChain> exact = Attempt(layout, options, true);
  if (exact && exact->exact) return exact;
  std::optional<ViewChain> loose = Attempt(layout, options, false);
  return loose && (!exact || loose->exact) ? loose : exact;
}

std::optional<Dims> NaturalStrides(const StridedLayout& layout) {
  StridedLayout free = layout;
  for (size_t d = 0; d < free.sizes.size(); ++d) {
    if (free.sizes[d] <= 1) free.strides[d] = 0;
  }
  const std::optional<ViewChain> chain = ComputeViewChain(free);
  if (!chain.has_value()) return std::nullopt;
  const absl::StatusOr<StridedLayout> made = ApplyViewChain(*chain);
  if (!made.ok() || made->sizes != layout.sizes) return std::nullopt;
  return made->strides;
}

StridedLayout ViewChainBase(const ViewChain& chain) {
  return StridedLayout{chain.base_sizes,
                       ComputeStridesFor(chain.base_format, chain.base_sizes),
                       chain.lead};
}

absl::StatusOr<StridedLayout> ApplyViewChain(const ViewChain& chain,
                                             size_t count) {
  StridedLayout layout = ViewChainBase(chain);
  for (size_t i = 0; i < std::min(count, chain.steps.size()); ++i) {
    absl::StatusOr<StridedLayout> next = ApplyViewStep(layout, chain.steps[i]);
    if (!next.ok()) return next.status();
    layout = *std::move(next);
  }
  return layout;
}

std::string BaseFromBufferPython(const ViewChain& chain) {
  if (chain.base_sizes.empty()) return absl::StrCat("[", chain.lead, "]");
  // The end is always spelled: the buffer may be shared with other
  // tensors' views and be longer than this chain's own buffer_size.
  const int64_t end = chain.lead + ComputeNumel(chain.base_sizes);
  const std::string out = absl::StrCat(
      "[", chain.lead > 0 ? absl::StrCat(chain.lead) : "", ":", end, "]");
  if (chain.base_sizes.size() == 1) return out;
  return absl::StrCat(out, ".view(", absl::StrJoin(chain.base_sizes, ", "),
                      ")");
}

std::string ViewStepsPython(const ViewChain& chain, size_t begin, size_t end) {
  absl::StatusOr<StridedLayout> at = ApplyViewChain(chain, begin);
  if (!at.ok()) return "";
  StridedLayout layout = *at;
  std::string out;
  std::vector<const ViewStep*> slices;
  StridedLayout before_slices = layout;
  for (size_t i = begin; i < std::min(end, chain.steps.size()); ++i) {
    const ViewStep& s = chain.steps[i];
    if (s.kind == ViewKind::kSlice) {
      if (slices.empty()) before_slices = layout;
      if (!slices.empty() && slices.back()->args[0] >= s.args[0]) {
        absl::StrAppend(&out, Subscript(slices, before_slices));
        slices.clear();
        before_slices = layout;
      }
      slices.push_back(&s);
    } else {
      if (!slices.empty())
        absl::StrAppend(&out, Subscript(slices, before_slices));
      slices.clear();
      switch (s.kind) {
        case ViewKind::kTranspose:
          absl::StrAppend(&out, layout.dim() == 2
                                    ? ".t()"
                                    : absl::StrCat(".transpose(", s.args[0],
                                                   ", ", s.args[1], ")"));
          break;
        case ViewKind::kPermute:
          absl::StrAppend(&out, ".permute(", absl::StrJoin(s.args, ", "), ")");
          break;
        case ViewKind::kUnfold:
          absl::StrAppend(&out, ".unfold(", absl::StrJoin(s.args, ", "), ")");
          break;
        case ViewKind::kExpand:
          absl::StrAppend(&out, ".expand(", absl::StrJoin(s.args, ", "), ")");
          break;
        default:
          absl::StrAppend(&out, ".", ViewStepToString(s));
      }
    }
    layout = *ApplyViewStep(layout, s);
  }
  if (!slices.empty()) absl::StrAppend(&out, Subscript(slices, before_slices));
  return out;
}

}  // namespace dpfuzz
