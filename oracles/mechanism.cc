#include "oracles/mechanism.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>
#include <variant>

#include "absl/strings/str_cat.h"
#include "generators/aten_bridge.h"
#include "generators/geometry.h"
#include "generators/materialize.h"
#include "generators/poison.h"
#include "oracles/case_tensors.h"
#include "oracles/compare.h"
#include "oracles/places_written.h"

namespace dpfuzz {
namespace {

// How a kernel may read or write a tensor's storage instead of through its
// layout (Note [Mechanisms by simulation]).
enum class Reading : uint8_t {
  kMemoryOrder,     // Its elements in storage order, taken as row-major.
  kAsContiguous,    // numel elements linearly from its data pointer.
  kIgnoringOffset,  // Its strides from the storage's start.
};

// The storage index each element of a nested spec's components (one after
// another, each row-major) is read from under `reading`: as if each
// component were contiguous from its own offset (kAsContiguous), or as if
// all of them were, packed from the buffer's start (kIgnoringOffset); a
// nested kernel has no memory order of its own to walk.
std::optional<std::vector<int64_t>> ComponentReadingIndices(
    const Components& components, Reading reading) {
  if (reading == Reading::kMemoryOrder) return std::nullopt;
  std::vector<int64_t> indices;
  int64_t packed = 0;
  for (const StridedLayout& component : components) {
    const int64_t numel = ComputeNumel(component.sizes);
    const int64_t from =
        reading == Reading::kAsContiguous ? component.storage_offset : packed;
    for (int64_t j = 0; j < numel; ++j) indices.push_back(from + j);
    packed += numel;
  }
  return indices;
}

// The storage index each logical element (row-major) of a dense spec is
// read from or written to under `reading`; nothing when the reading is
// undefined (memory order of elements sharing memory).
std::optional<std::vector<int64_t>> DenseReadingIndices(const TensorSpec& spec,
                                                        Reading reading) {
  std::vector<int64_t> indices = SpecStorageIndices(spec);
  switch (reading) {
    case Reading::kMemoryOrder:
      std::sort(indices.begin(), indices.end());
      // Elements sharing memory have no order of their own.
      if (std::adjacent_find(indices.begin(), indices.end()) != indices.end()) {
        return std::nullopt;
      }
      break;
    case Reading::kAsContiguous:
      for (size_t i = 0; i < indices.size(); ++i) {
        indices[i] = spec.layout.storage_offset + static_cast<int64_t>(i);
      }
      break;
    case Reading::kIgnoringOffset:
      for (int64_t& index : indices) index -= spec.layout.storage_offset;
      break;
  }
  return indices;
}

// The storage index of each element under `reading`; nothing when that is
// where the layout puts them anyway, or outside the storage's `elements`.
std::optional<std::vector<int64_t>> ReadingIndices(const TensorSpec& spec,
                                                   Reading reading,
                                                   int64_t elements) {
  const std::optional<std::vector<int64_t>> indices =
      spec.is_nested() ? ComponentReadingIndices(spec.components, reading)
                       : DenseReadingIndices(spec, reading);
  if (!indices.has_value() || *indices == SpecStorageIndices(spec)) {
    return std::nullopt;
  }
  for (int64_t index : *indices) {
    if (index < 0 || index >= elements) return std::nullopt;
  }
  return indices;
}

int64_t StorageElements(const StorageGroup& group) {
  return static_cast<int64_t>(group.before.size()) /
         group.storage.element_size();
}

// A 1-d CPU tensor of `dtype` holding `bytes`.
at::Tensor FromBytes(DType dtype, const std::vector<uint8_t>& bytes) {
  return MakeContiguousTensor(
      dtype, {static_cast<int64_t>(bytes.size()) / ElementSize(dtype)}, bytes);
}

bool Agree(const at::Tensor& expected, const at::Tensor& actual,
           Comparison comparison) {
  if (!expected.defined() || !actual.defined() ||
      expected.is_nested() != actual.is_nested()) {
    return false;
  }
  if (!expected.is_nested()) {
    return !CompareValues(expected, actual, comparison).has_value();
  }
  const std::vector<at::Tensor> e = expected.unbind(), a = actual.unbind();
  if (e.size() != a.size()) return false;
  for (size_t i = 0; i < e.size(); ++i) {
    if (!Agree(e[i], a[i], comparison)) return false;
  }
  return true;
}

// The index of the result named `name`, or nothing.
std::optional<size_t> ResultNamed(const Simulation& s,
                                  const std::string& name) {
  for (size_t i = 0; i < s.names.size(); ++i) {
    if (s.names[i] == name) return i;
  }
  return std::nullopt;
}

// Whether written member i of `group` holds, in its whole storage, the
// storage before the call with the right results written at the places
// `reading` gives.
bool WrittenSo(const Simulation& s, const StorageGroup& group, size_t member,
               Reading reading) {
  const TensorSpec& spec = group.specs[member];
  const std::optional<size_t> result = ResultNamed(s, group.args[member]);
  if (!result.has_value()) return false;
  const at::Tensor& right = s.expected[*result];
  if (!right.defined() || right.sizes().vec() != spec.layout.sizes ||
      right.scalar_type() != ToScalarType(spec.dtype)) {
    return false;
  }
  const std::optional<std::vector<int64_t>> indices =
      ReadingIndices(spec, reading, StorageElements(group));
  if (!indices.has_value()) return false;
  const std::vector<uint8_t> after = ReadStorageBytes(group.storage);
  if (after.size() != group.before.size()) return false;  // Resized.
  std::vector<uint8_t> simulated = group.before;
  const std::vector<uint8_t> values = ReadLogicalBytes(right);
  const int64_t size = ElementSize(spec.dtype);
  for (size_t i = 0; i < indices->size(); ++i) {
    std::memcpy(simulated.data() + (*indices)[i] * size,
                values.data() + i * size, size);
  }
  return Agree(FromBytes(spec.dtype, simulated), FromBytes(spec.dtype, after),
               s.comparison);
}

// Written member i of `group` is wrong only where it still holds what it
// held before the call: the kernel never wrote those elements (it computed
// into a temporary it did not copy back, say). Its storage is otherwise
// the right results at the layout's places.
bool LeftUnwritten(const Simulation& s, const StorageGroup& group,
                   size_t member) {
  const TensorSpec& spec = group.specs[member];
  const std::optional<size_t> result = ResultNamed(s, group.args[member]);
  if (!result.has_value()) return false;
  const at::Tensor& right = s.expected[*result];
  const at::Tensor& got = s.actual[*result];
  if (!right.defined() || !got.defined() ||
      right.sizes().vec() != spec.layout.sizes ||
      got.sizes().vec() != spec.layout.sizes ||
      right.scalar_type() != ToScalarType(spec.dtype)) {
    return false;
  }
  // The right results, except where the element still holds its old value.
  const std::vector<uint8_t> right_bytes = ReadLogicalBytes(right);
  const std::vector<uint8_t> got_bytes = ReadLogicalBytes(got);
  const std::vector<int64_t> places = SpecStorageIndices(spec);
  const int64_t size = ElementSize(spec.dtype);
  std::vector<uint8_t> simulated = right_bytes;
  bool any_unwritten = false;
  for (size_t i = 0; i < places.size(); ++i) {
    const uint8_t* old = group.before.data() + places[i] * size;
    if (std::memcmp(got_bytes.data() + i * size, old, size) == 0 &&
        std::memcmp(right_bytes.data() + i * size, old, size) != 0) {
      std::memcpy(simulated.data() + i * size, old, size);
      any_unwritten = true;
    }
  }
  return any_unwritten && Agree(FromBytes(spec.dtype, simulated),
                                FromBytes(spec.dtype, got_bytes), s.comparison);
}

// The returned result `i`, read linearly from its data pointer, holds the
// right results in row-major order while its layout is another.
bool FilledAsContiguous(const Simulation& s, size_t i) {
  const at::Tensor& got = s.actual[i];
  const at::Tensor& right = s.expected[i];
  if (!got.defined() || !right.defined() || got.is_nested() ||
      got.layout() != at::kStrided || got.is_contiguous() ||
      got.sizes() != right.sizes() || !got.has_storage() ||
      (got.storage_offset() + got.numel()) * got.element_size() >
          static_cast<int64_t>(got.storage().nbytes())) {
    return false;
  }
  const at::Tensor linear =
      got.as_strided(got.sizes(), ComputeContiguousStrides(got.sizes().vec()));
  return Agree(right, linear, s.comparison);
}

// The op's results on `tensors` match the variant's.
bool CallMatches(const Simulation& s, CaseTensors& tensors) {
  const std::optional<std::vector<at::Tensor>> results = s.call(tensors);
  if (!results.has_value() || results->size() != s.actual.size()) return false;
  for (size_t i = 0; i < results->size(); ++i) {
    if (!Agree((*results)[i], s.actual[i], s.comparison)) return false;
  }
  return !s.actual.empty();
}

// The op's results with group member i read under `reading` match the
// variant's.
bool ReadSo(const Simulation& s, const StorageGroup& group, size_t member,
            Reading reading) {
  const TensorSpec& spec = group.specs[member];
  // An integer tensor is reread only in memory order, where it may be
  // indices an op trusts; a nested tensor's integers are values (its
  // metadata lives apart from its buffer).
  if (!IsFloating(spec.dtype) && !IsComplex(spec.dtype) &&
      reading != Reading::kMemoryOrder && !spec.is_nested()) {
    return false;
  }
  const std::optional<std::vector<int64_t>> indices =
      ReadingIndices(spec, reading, StorageElements(group));
  if (!indices.has_value()) return false;
  CaseTensors reread =
      MaterializeRereadBaseline(*s.variant, group.args[member], *indices);
  return CallMatches(s, reread);
}

// The gradients with grad_output `k` read under `reading` match the
// variant's: a backward kernel that reads the gradient it is given as if
// it were contiguous, or in memory order.
bool GradOutputReadSo(const Simulation& s, size_t k, Reading reading) {
  const TensorSpec& spec = s.c->grad_outputs[k];
  const at::Tensor& given = s.variant->grad_outputs[k];
  if ((!IsFloating(spec.dtype) && !IsComplex(spec.dtype)) || !given.defined()) {
    return false;
  }
  const std::vector<uint8_t> storage = ReadStorageBytes(given);
  const int64_t size = ElementSize(spec.dtype);
  const std::optional<std::vector<int64_t>> indices = ReadingIndices(
      spec, reading, static_cast<int64_t>(storage.size()) / size);
  if (!indices.has_value()) return false;
  std::vector<uint8_t> bytes;
  for (int64_t index : *indices) {
    bytes.insert(bytes.end(), storage.begin() + index * size,
                 storage.begin() + (index + 1) * size);
  }
  CaseTensors reread = MaterializeBaselineBefore(*s.variant);
  reread.grad_outputs[k] = MakeContiguousLike(spec, bytes, given.device());
  return CallMatches(s, reread);
}

// True when an argument of `c` is an int or a list of ints: a dim, a size
// or an index that permuting the tensors' dims would make mean another.
bool HasIntArguments(const Case& c) {
  for (const Argument& a : c.args) {
    if (std::holds_alternative<int64_t>(a.value) ||
        std::holds_alternative<Dims>(a.value)) {
      return true;
    }
  }
  return false;
}

// The dims of `spec`'s layout in the order its elements lie in memory:
// those larger than one by decreasing stride, in their own places (a
// size-one dim has no order); nothing when that is row-major order or a
// zero stride leaves it undecided.
std::optional<std::vector<int64_t>> MemoryDimOrder(const TensorSpec& spec) {
  const StridedLayout& l = spec.layout;
  std::vector<int64_t> places;
  for (int64_t d = 0; d < l.dim(); ++d) {
    if (l.sizes[d] == 1) continue;
    if (l.strides[d] == 0) return std::nullopt;
    places.push_back(d);
  }
  std::vector<int64_t> by_stride = places;
  std::stable_sort(
      by_stride.begin(), by_stride.end(),
      [&](int64_t a, int64_t b) { return l.strides[a] > l.strides[b]; });
  if (by_stride == places) return std::nullopt;
  std::vector<int64_t> order(l.dim());
  std::iota(order.begin(), order.end(), 0);
  for (size_t i = 0; i < places.size(); ++i) order[places[i]] = by_stride[i];
  return order;
}

// True when a tensor of `from` sizes broadcasts to `to` sizes.
bool BroadcastsTo(at::IntArrayRef from, at::IntArrayRef to) {
  if (from.size() > to.size()) return false;
  const size_t lead = to.size() - from.size();
  for (size_t d = 0; d < from.size(); ++d) {
    if (from[d] != 1 && from[d] != to[lead + d]) return false;
  }
  return true;
}

// The op's results on `walked`, results of `walked_sizes` permuted `back`,
// match the variant's.
bool WalkedResultsMatch(const Simulation& s, CaseTensors& walked,
                        const Dims& walked_sizes,
                        const std::vector<int64_t>& back) {
  const std::optional<std::vector<at::Tensor>> results = s.call(walked);
  if (!results.has_value() || results->size() != s.actual.size()) return false;
  for (size_t i = 0; i < results->size(); ++i) {
    at::Tensor r = (*results)[i];
    if (r.defined() && !r.is_nested() &&
        r.sizes() == at::IntArrayRef(walked_sizes)) {
      r = r.permute(back);
    }
    if (!Agree(r, s.actual[i], s.comparison)) return false;
  }
  return !s.actual.empty();
}

// The op's results match the variant's had it walked the positions of
// group member `member` in memory order (Note [Mechanisms by simulation]).
// The member is permuted to its memory order, and with it each other
// tensor of its sizes that the kernel walks alongside (a mask) but not one
// it consumes in its own order (masked_scatter's source): which is which
// is tried, all of them first, for up to three such tensors.
bool WalkedInMemoryOrder(const Simulation& s, const StorageGroup& group,
                         size_t member) {
  const TensorSpec& spec = group.specs[member];
  if (spec.is_nested() || s.c == nullptr || HasIntArguments(*s.c)) {
    return false;
  }
  const std::optional<std::vector<int64_t>> order = MemoryDimOrder(spec);
  if (!order.has_value()) return false;
  std::vector<int64_t> back(order->size());
  Dims walked_sizes(order->size());
  for (size_t i = 0; i < order->size(); ++i) {
    back[(*order)[i]] = static_cast<int64_t>(i);
    walked_sizes[i] = spec.layout.sizes[(*order)[i]];
  }
  const CaseTensors before = MaterializeBaselineBefore(*s.variant);
  const at::IntArrayRef sizes(spec.layout.sizes);
  // (argument, index in its list) of the member and of the others: those
  // of its sizes, and those broadcast to them (a mask of fewer dims).
  std::optional<std::pair<std::string, size_t>> self;
  std::vector<std::pair<std::string, size_t>> others;
  for (const auto& [name, tensors] : before.args) {
    for (size_t i = 0; i < tensors.size(); ++i) {
      const at::Tensor& t = tensors[i];
      if (!t.defined() || t.is_nested() || t.numel() < 2 ||
          !BroadcastsTo(t.sizes(), sizes)) {
        continue;
      }
      const std::string label =
          tensors.size() == 1 ? name : absl::StrCat(name, "[", i, "]");
      if (label == group.args[member]) {
        self.emplace(name, i);
      } else {
        others.emplace_back(name, i);
      }
    }
  }
  if (!self.has_value() || others.size() > 3) return false;
  for (size_t walks = (size_t{1} << others.size()); walks-- > 0;) {
    // Fresh tensors each time: the op may write those not permuted.
    CaseTensors walked = MaterializeBaselineBefore(*s.variant);
    const auto permute = [&](const std::pair<std::string, size_t>& place) {
      at::Tensor& t = walked.args[place.first][place.second];
      t = t.expand(sizes).permute(*order).contiguous();
    };
    permute(*self);
    for (size_t o = 0; o < others.size(); ++o) {
      if ((walks >> o) & 1) permute(others[o]);
    }
    if (WalkedResultsMatch(s, walked, walked_sizes, back)) return true;
  }
  return false;
}

// A result element holds the poison pattern where the baseline's does not.
bool HoldsPoison(const Simulation& s) {
  for (size_t i = 0; i < s.actual.size() && i < s.expected.size(); ++i) {
    const at::Tensor& got = s.actual[i];
    const at::Tensor& right = s.expected[i];
    if (!got.defined() || !right.defined() || got.is_nested() ||
        got.layout() != at::kStrided || got.sizes() != right.sizes() ||
        got.scalar_type() != right.scalar_type()) {
      continue;
    }
    const absl::StatusOr<DType> dtype = FromScalarType(got.scalar_type());
    if (!dtype.ok()) continue;
    const std::vector<uint8_t> a = ReadLogicalBytes(got);
    const std::vector<uint8_t> e = ReadLogicalBytes(right);
    const int64_t size = ElementSize(*dtype);
    for (size_t at = 0; at + size <= a.size(); at += size) {
      if (IsPoison(*dtype, a.data() + at) && !IsPoison(*dtype, e.data() + at)) {
        return true;
      }
    }
  }
  return false;
}

// The mechanism of a tensor read under `reading`.
std::string ReadingName(const TensorSpec& spec, Reading reading) {
  if (spec.is_nested()) return "reads_components_as_contiguous";
  return reading == Reading::kIgnoringOffset ? "reads_ignoring_offset"
                                             : "reads_as_contiguous";
}

bool IsWritten(const Simulation& s, const std::string& member) {
  return std::find(s.written.begin(), s.written.end(), member) !=
         s.written.end();
}

}  // namespace

Simulation SimulationOf(
    const Case& c, const CaseTensors& variant, std::vector<std::string> names,
    std::vector<at::Tensor> expected, std::vector<at::Tensor> actual,
    Comparison comparison,
    std::function<std::optional<std::vector<at::Tensor>>(CaseTensors&)> call) {
  Simulation s;
  s.c = &c;
  s.variant = &variant;
  s.names = std::move(names);
  s.expected = std::move(expected);
  s.actual = std::move(actual);
  s.comparison = comparison;
  s.call = std::move(call);
  return s;
}

std::optional<Explanation> ExplainWrongValues(const Simulation& s) {
  at::NoGradGuard no_grad;
  const std::vector<StorageGroup>& groups = s.variant->groups;
  // First: where an op walks an input in memory order, the order-dependent
  // values it gets wrong may also lie as another mistake would put them.
  // A written argument is the other way round: a dense permuted out filled
  // row by row from its data pointer is also walked in memory order, and
  // "writes as contiguous" is the one name that holds for a gapped out of
  // the same kernel too, so it is tried before the walk.
  for (bool written : {false, true}) {
    for (const StorageGroup& group : groups) {
      for (size_t m = 0; m < group.args.size(); ++m) {
        if (IsWritten(s, group.args[m]) != written) continue;
        if (written && WrittenSo(s, group, m, Reading::kAsContiguous)) {
          return Explanation{"writes_as_contiguous", group.args[m]};
        }
        if (written && WrittenSo(s, group, m, Reading::kIgnoringOffset)) {
          return Explanation{"writes_ignoring_offset", group.args[m]};
        }
        if (written && LeftUnwritten(s, group, m)) {
          return Explanation{"leaves_unwritten", group.args[m]};
        }
        if (WalkedInMemoryOrder(s, group, m)) {
          return Explanation{"walks_in_memory_order", group.args[m]};
        }
      }
    }
  }
  // Note [Mechanisms by the places written]: writes with no values to
  // simulate.
  if (std::optional<Explanation> e = ExplainByPlacesWritten(s)) return e;
  if (s.written.empty()) {
    for (size_t i = 0; i < s.actual.size(); ++i) {
      if (FilledAsContiguous(s, i)) {
        return Explanation{"fills_result_as_contiguous", s.names[i]};
      }
    }
  }
  for (Reading reading : {Reading::kAsContiguous, Reading::kMemoryOrder,
                          Reading::kIgnoringOffset}) {
    for (const StorageGroup& group : groups) {
      for (size_t m = 0; m < group.args.size(); ++m) {
        if (IsWritten(s, group.args[m]) || !ReadSo(s, group, m, reading)) {
          continue;
        }
        return Explanation{ReadingName(group.specs[m], reading), group.args[m]};
      }
    }
    const size_t grads = s.gradient ? s.c->grad_outputs.size() : 0;
    for (size_t k = 0; k < grads && k < s.variant->grad_outputs.size(); ++k) {
      if (GradOutputReadSo(s, k, reading)) {
        return Explanation{ReadingName(s.c->grad_outputs[k], reading),
                           "grad_output"};
      }
    }
  }
  if (HoldsPoison(s)) return Explanation{"reads_outside_view", ""};
  return std::nullopt;
}

}  // namespace dpfuzz
