#include "absl/strings/str_cat.h"
#include "crashes/repro/repro_cpp_prelude.h"

namespace dpfuzz {
namespace {

// The delimiter "repro" keeps clang-format from formatting the raw strings
// (it formats those delimited by "cc" or "cpp").

// Comparing results as oracles/compare.h and oracles/rules.h do.
constexpr char kCompare[] =
    R"repro(// float64 (complex128) copies of the floating tensors, for the reference run;
// other tensors as they are.
at::Tensor Widen(const at::Tensor& t) {
  if (!t.is_floating_point() && !t.is_complex()) return t;
  at::Tensor w =
      t.detach().to(t.is_complex() ? at::kComplexDouble : at::kDouble).clone();
  return t.requires_grad() ? w.requires_grad_(true) : w;
}

Tensors Widen(const Tensors& args) {
  Tensors wide;
  for (const auto& [name, list] : args) {
    for (const at::Tensor& t : list) wide[name].push_back(Widen(t));
  }
  return wide;
}

bool IsNan(const Value& v) {
  return std::isnan(v.z.real()) || std::isnan(v.z.imag());
}
bool IsFinite(const Value& v) {
  return std::isfinite(v.z.real()) && std::isfinite(v.z.imag());
}

std::string IndexText(int64_t flat, at::IntArrayRef sizes) {
  std::vector<int64_t> index(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = sizes[d] ? flat % sizes[d] : 0;
    flat = sizes[d] ? flat / sizes[d] : 0;
  }
  return c10::str(at::IntArrayRef(index));
}

// torch.testing.assert_close's default (rtol, atol); zero for the others.
std::pair<double, double> Tolerance(at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return {1e-3, 1e-5};
    case at::kBFloat16:
      return {1.6e-2, 1e-5};
    case at::kFloat:
    case at::kComplexFloat:
      return {1.3e-6, 1e-5};
    case at::kDouble:
    case at::kComplexDouble:
      return {1e-7, 1e-7};
    default:
      return {0, 0};
  }
}

struct Difference {
  std::string verdict = "mismatch";  // Or "nan_introduced".
  std::string what;                  // For shape and dtype differences.
  std::string index, expected, actual;
  int64_t count = 0, of = 0;
};

// dpfuzz's comparison: nothing when `actual` agrees with `expected`. exact:
// equal values (NaN == NaN, -0.0 == 0.0). Otherwise |a - e| <= atol + rtol *
// |e|, and an element outside that is judged again against the float64
// `reference`: within atol + 4 * rtol * |r| of it, or no further from it than
// twice the baseline is. A NaN where the baseline has a finite number is
// nan_introduced.
std::optional<Difference> FirstDifference(const at::Tensor& expected,
                                          const at::Tensor& actual, bool exact,
                                          const at::Tensor& reference = {}) {
  Difference d;
  if (expected.sizes() != actual.sizes()) {
    d.what = "shape " + c10::str(actual.sizes()) + " where the baseline has " +
             c10::str(expected.sizes());
    return d;
  }
  if (expected.scalar_type() != actual.scalar_type()) {
    d.what = std::string("dtype ") + c10::toString(actual.scalar_type()) +
             " where the baseline has " + c10::toString(expected.scalar_type());
    return d;
  }
  const int64_t n = expected.numel();
  if (n == 0) return std::nullopt;
  const std::vector<Value> e = Elements(expected), a = Elements(actual);
  std::vector<Value> r;
  if (reference.defined() && reference.numel() == n) r = Elements(reference);
  const bool floating = expected.is_floating_point() || expected.is_complex();
  const auto [rtol, atol] = Tolerance(expected.scalar_type());
  int64_t first = -1, first_nan = -1, count = 0, nans = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool same;
    if (!floating) {
      same = e[i].i == a[i].i;
    } else {
      if (IsNan(a[i]) && IsFinite(e[i]) && nans++ == 0) first_nan = i;
      same = e[i].z == a[i].z || (IsNan(e[i]) && IsNan(a[i]));
      if (!same && !exact) {
        const double error = std::abs(a[i].z - e[i].z);
        if (!IsFinite(e[i]) || !IsFinite(a[i])) {
          same = !IsFinite(e[i]) && !IsFinite(a[i]);
        } else if (r.empty()) {
          same = error <= atol + rtol * std::abs(e[i].z);
        } else if (IsFinite(r[i])) {
          const double allowed = std::max(atol + 4 * rtol * std::abs(r[i].z),
                                          2 * std::abs(e[i].z - r[i].z));
          same = std::abs(a[i].z - r[i].z) <= allowed;
        } else {
          same = true;
        }
      }
    }
    if (!same && count++ == 0) first = i;
  }
  if (count == 0 && nans == 0) return std::nullopt;
  const int64_t at = nans ? first_nan : first;
  d.verdict = nans ? "nan_introduced" : "mismatch";
  d.index = IndexText(at, expected.sizes());
  d.expected = Text(e[at], floating, expected.is_complex());
  d.actual = Text(a[at], floating, expected.is_complex());
  d.count = nans ? nans : count;
  d.of = n;
  return d;
}

// The values of `self` that int64 `indices` select along kTieDim (flattened
// without one); nothing when an index is out of range.
std::optional<at::Tensor> Selected(const at::Tensor& self_in,
                                   const at::Tensor& indices) {
  const at::Tensor self = self_in.detach();
  const bool flat = !kTieDim || self.dim() == 0;
  const int64_t d = flat ? 0 : c10::maybe_wrap_dim(*kTieDim, self.dim());
  const int64_t bound = flat ? self.numel() : self.size(d);
  at::Tensor idx = at::empty(indices.sizes(), at::kLong);
  const std::vector<Value> values = Elements(indices);
  for (size_t k = 0; k < values.size(); ++k) {
    idx.data_ptr<int64_t>()[k] = values[k].i;
    if (values[k].i < 0 || values[k].i >= bound) return std::nullopt;
  }
  if (flat) return self.reshape({-1}).take(idx.reshape({-1}));
  if (idx.dim() == self.dim() - 1) idx = idx.unsqueeze(d);
  if (idx.dim() != self.dim()) return std::nullopt;
  for (int64_t k = 0; k < self.dim(); ++k) {
    if (k != d && idx.size(k) > self.size(k)) return std::nullopt;
  }
  return self.gather(d, idx);
}

// FirstDifference with the op's rules: random ops compare shapes and dtypes
// only; tied index outputs compare the values they select.
std::optional<Difference> CompareOutput(const at::Tensor& expected,
                                        const at::Tensor& actual,
                                        const at::Tensor& reference,
                                        const at::Tensor& self) {
  const bool same_shape = expected.sizes() == actual.sizes();
  if (kNondeterministic && same_shape &&
      expected.scalar_type() == actual.scalar_type()) {
    return std::nullopt;
  }
  if (kTiedIndices && expected.scalar_type() == at::kLong &&
      actual.scalar_type() == at::kLong && self.defined() && same_shape) {
    const std::optional<at::Tensor> e = Selected(self, expected);
    const std::optional<at::Tensor> a = Selected(self, actual);
    if (e && a) return FirstDifference(*e, *a, /*exact=*/true);
  }
  return FirstDifference(expected, actual, kExact, reference);
}

// Prints expected/actual for a difference; true when there is one.
bool ShowDifference(const std::string& where,
                    const std::optional<Difference>& d) {
  if (!d) {
    std::cout << "expected: " << where << " as the contiguous baseline's\n"
              << "actual:   the same\n";
    return false;
  }
  if (!d->what.empty()) {
    std::cout << "expected: " << where << " as the contiguous baseline's\n"
              << "actual:   " << d->what << " (" << d->verdict << ")\n";
    return true;
  }
  std::cout << "expected: " << where << d->index << " = " << d->expected
            << " (contiguous baseline)\n"
            << "actual:   " << where << d->index << " = " << d->actual
            << " (strided variant); " << d->verdict << ": " << d->count
            << " of " << d->of << " elements\n";
  return true;
}

)repro";

// Gradients as oracles/backward.h computes them.
constexpr char kBackward[] =
    R"repro(// The tensors that require grad, sorted by argument name as dpfuzz orders them.
std::vector<at::Tensor> GradInputs(const Tensors& args,
                                   std::vector<std::string>* names = nullptr) {
  std::vector<at::Tensor> out;
  for (const auto& [name, list] : args) {
    for (const at::Tensor& t : list) {
      if (!t.defined() || !t.requires_grad()) continue;
      if (names) names->push_back("grad of " + name);
      out.push_back(t);
    }
  }
  return out;
}

// Gradients of `inputs` (zeros where unused) for the outputs that require grad,
// fed `grad_outputs` in order.
std::vector<at::Tensor> Backward(const std::vector<at::Tensor>& returned,
                                 const std::vector<at::Tensor>& inputs,
                                 const std::vector<at::Tensor>& grad_outputs) {
  std::vector<at::Tensor> outs;
  for (const at::Tensor& t : returned) {
    if (t.defined() && t.requires_grad()) outs.push_back(t);
  }
  TORCH_CHECK(outs.size() == grad_outputs.size(), "dpfuzz: ", outs.size(),
              " outputs require grad but the case has ", grad_outputs.size(),
              " grad_outputs");
  std::vector<at::Tensor> grads =
      torch::autograd::grad(outs, inputs, grad_outputs, /*retain_graph=*/false,
                            /*create_graph=*/false, /*allow_unused=*/true);
  for (size_t i = 0; i < grads.size(); ++i) {
    grads[i] = grads[i].defined() ? Strided(grads[i]) : at::zeros_like(inputs[i]);
  }
  return grads;
}

)repro";

// The float64 reference gradients (grad_mismatch only).
constexpr char kReference[] =
    R"repro(// Gradients of the float64 reference run; empty when it fails.
std::vector<at::Tensor> ReferenceGrads(
    const Tensors& baseline, const std::vector<at::Tensor>& grad_outputs) {
  const Tensors wide = Widen(baseline);
  const Attempt r = Try([&] { return Call(wide); });
  if (r.error) return {};
  std::vector<at::Tensor> wide_grads;
  for (const at::Tensor& g : grad_outputs) wide_grads.push_back(Widen(g));
  const Attempt g =
      Try([&] { return Backward(r.outputs, GradInputs(wide), wide_grads); });
  return g.error ? std::vector<at::Tensor>{} : g.outputs;
}

)repro";

// Storage snapshots as oracles/case_tensors.h compares them.
constexpr char kStorage[] =
    R"repro(std::set<int64_t> Addressed(const Layout& l) {
  std::set<int64_t> out;
  int64_t n = 1;
  for (int64_t s : l.sizes) n *= s;
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, offset = l.offset;
    for (size_t d = l.sizes.size(); d-- > 0;) {
      offset += rest % l.sizes[d] * l.strides[d];
      rest /= l.sizes[d];
    }
    out.insert(offset);
  }
  return out;
}

std::vector<uint8_t> Bytes(const at::Tensor& storage) {
  const at::Tensor t = storage.detach().cpu().contiguous();
  const auto* p = static_cast<const uint8_t*>(t.data_ptr());
  return std::vector<uint8_t>(p, p + t.nbytes());
}

std::string ElementText(const at::Tensor& storage,
                        const std::vector<uint8_t>& bytes, int64_t i) {
  const int64_t size = storage.element_size();
  std::vector<uint8_t> poison(size);
  PutPoison(storage.scalar_type(), poison.data());
  if (std::memcmp(poison.data(), bytes.data() + i * size, size) == 0) {
    return "POISON";
  }
  return Text(Load(storage.scalar_type(), bytes.data() + i * size),
              storage.is_floating_point() || storage.is_complex(),
              storage.is_complex());
}

// The first storage element that changed although no written argument addresses
// it; "" when there is none.
std::string StorageChange(const std::vector<CheckedStorage>& storages,
                          const std::vector<std::vector<uint8_t>>& before,
                          std::string* after) {
  for (size_t s = 0; s < storages.size(); ++s) {
    const CheckedStorage& cs = storages[s];
    const std::vector<uint8_t> now = Bytes(cs.storage);
    const int64_t size = cs.storage.element_size();
    std::set<int64_t> may_change;
    bool holds_written = false;
    for (const auto& [arg, layout] : cs.views) {
      if (std::find(kWritten.begin(), kWritten.end(), arg) == kWritten.end()) {
        continue;
      }
      holds_written = true;
      const std::set<int64_t> a = Addressed(layout);
      may_change.insert(a.begin(), a.end());
    }
    for (int64_t i = 0; i < static_cast<int64_t>(now.size()) / size; ++i) {
      if (may_change.count(i) ||
          std::memcmp(now.data() + i * size, before[s].data() + i * size,
                      size) == 0) {
        continue;
      }
      std::string roles;
      for (const auto& [arg, layout] : cs.views) {
        if (Addressed(layout).count(i))
          roles += (roles.empty() ? "" : ", ") + arg;
      }
      *after = "it holds " + ElementText(cs.storage, now, i) +
               (holds_written ? " (outside_write)" : " (input_modified)");
      return cs.name + "[" + std::to_string(i) + "] (" +
             (roles.empty() ? "a gap or margin" : "an element of " + roles) +
             ") keeps " + ElementText(cs.storage, before[s], i);
    }
  }
  return "";
}

)repro";

// The out= contract and layout promises of oracles/rules.h.
constexpr char kLayout[] =
    R"repro(std::vector<int64_t> SignificantStrides(const at::Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1) out.push_back(t.stride(d));
  }
  return out;
}

std::string LayoutText(at::IntArrayRef sizes, at::IntArrayRef strides,
                       int64_t offset) {
  return c10::str(sizes) + "@" + c10::str(strides) + "+" +
         std::to_string(offset);
}

// What an out= call broke of its contract: keep each out (its places when its
// size was right, its memory) and return it. "" if nothing.
std::string BrokenOutContract(const Tensors& args,
                              const std::vector<at::Tensor>& returned,
                              const std::map<std::string, Layout>& layouts,
                              const std::vector<void*>& pointers) {
  for (size_t k = 0; k < kWritten.size(); ++k) {
    const at::Tensor& t = args.at(kWritten[k]).front();
    if (t.is_conj() || t.is_neg()) {
      return std::string("out= tensor came back with its ") +
             (t.is_conj() ? "conjugate" : "negative") +
             " bit set: its memory holds other values than it reads as";
    }
    const Layout& l = layouts.at(kWritten[k]);
    int64_t numel = 1;
    bool same_places =
        t.sizes().vec() == l.sizes && t.storage_offset() == l.offset;
    for (size_t d = 0; d < l.sizes.size(); ++d) {
      numel *= l.sizes[d];
      if (same_places && l.sizes[d] > 1 && t.stride(d) != l.strides[d]) {
        same_places = false;
      }
    }
    const bool moved = t.data_ptr() != pointers[k];
    if (numel > 0 && (moved || !same_places)) {
      return "out= tensor " + LayoutText(l.sizes, l.strides, l.offset) +
             " of the right size came back as " +
             LayoutText(t.sizes(), t.strides(), t.storage_offset()) +
             (moved ? " in new memory" : "");
    }
    if (k < returned.size() && !returned[k].is_same(t)) {
      return "out= call returned a tensor other than its out";
    }
  }
  return "";
}

// What the functional call broke of PyTorch's layout promises (kMemoryFormat,
// kPropagatesStrides, kKeepsMemoryFormat). "" if nothing.
std::string BrokenLayoutPromise(const Tensors& args,
                                const std::vector<at::Tensor>& returned) {
  if (returned.empty()) return "";
  const at::Tensor& out = returned.front();
  if (!out.defined() || out.numel() == 0) return "";
  for (const auto& [name, list] : args) {
    for (const at::Tensor& t : list) {
      if (t.defined() && t.has_storage() && out.is_alias_of(t)) return "";
    }
  }
  const auto self = args.find("self");
  if (!kMemoryFormat.empty() && kMemoryFormat != "preserve_format") {
    const at::MemoryFormat format =
        kMemoryFormat == "channels_last"      ? at::MemoryFormat::ChannelsLast
        : kMemoryFormat == "channels_last_3d" ? at::MemoryFormat::ChannelsLast3d
                                              : at::MemoryFormat::Contiguous;
    if (!out.is_contiguous(format)) {
      return "memory_format=" + kMemoryFormat + " but the result " +
             c10::str(out.sizes()) + "@" + c10::str(out.strides()) +
             " is not contiguous in it";
    }
  } else if (!kMemoryFormat.empty() && self != args.end() &&
             self->second.size() == 1) {
    const at::Tensor& in = self->second.front();
    if (in.sizes() != out.sizes()) return "";
    if (in.is_non_overlapping_and_dense()) {
      if (SignificantStrides(in) != SignificantStrides(out)) {
        return "preserve_format on a dense input " + c10::str(in.strides()) +
               " returned strides " + c10::str(out.strides());
      }
    } else if (!out.is_non_overlapping_and_dense()) {
      return "preserve_format on a non-dense input returned a "
             "non-dense " +
             c10::str(out.sizes()) + "@" + c10::str(out.strides());
    }
  }
  if (kPropagatesStrides) {
    const at::Tensor* first = nullptr;
    for (const auto& [name, list] : args) {
      for (const at::Tensor& t : list) {
        if (!t.defined()) continue;
        if (!t.is_non_overlapping_and_dense() || t.sizes() != out.sizes()) {
          return "";
        }
        if (first && SignificantStrides(*first) != SignificantStrides(t)) {
          return "";
        }
        first = &t;
      }
    }
    if (first && SignificantStrides(*first) != SignificantStrides(out)) {
      return "dense inputs with strides " + c10::str(first->strides()) +
             " gave an output with strides " + c10::str(out.strides());
    }
  }
  if (kKeepsMemoryFormat) {
    for (const char* name : {"self", "input"}) {
      const auto it = args.find(name);
      if (it == args.end() || it->second.size() != 1) continue;
      const at::Tensor& in = it->second.front();
      if (in.dim() != 4 && in.dim() != 5) break;
      const bool cl = in.dim() == 4;
      const at::MemoryFormat format = cl ? at::MemoryFormat::ChannelsLast
                                         : at::MemoryFormat::ChannelsLast3d;
      const std::vector<int64_t> exact =
          cl ? c10::get_channels_last_strides_2d(in.sizes())
             : c10::get_channels_last_strides_3d(in.sizes());
      int64_t spatial = 1;
      for (int64_t d = 2; d < in.dim(); ++d) spatial *= in.size(d);
      // Laid out exactly in the format, of no ambiguous sizes.
      if (in.strides() == c10::IntArrayRef(exact) && in.size(1) != 1 &&
          spatial != 1 && out.dim() == in.dim() && !out.is_contiguous(format)) {
        return std::string("a ") + (cl ? "channels_last" : "channels_last_3d") +
               " input " + c10::str(in.sizes()) + "@" +
               c10::str(in.strides()) + " gave a result " +
               c10::str(out.sizes()) + "@" + c10::str(out.strides()) +
               " not in that format";
      }
      break;
    }
  }
  return "";
}

)repro";

// The CPU side of a device_mismatch check.
constexpr char kOnCpu[] =
    R"repro(// The same tensors copied to the CPU (those requiring grad still do).
Tensors OnCpu(const Tensors& args) {
  Tensors cpu;
  for (const auto& [name, list] : args) {
    for (const at::Tensor& t : list) {
      at::Tensor c = t.detach().cpu();
      cpu[name].push_back(t.requires_grad() ? c.requires_grad_(true) : c);
    }
  }
  return cpu;
}

)repro";

}  // namespace

std::string CppReproCheckHelpers(ReproCheck check) {
  switch (check) {
    case ReproCheck::kValues:
      return kCompare;
    case ReproCheck::kDevice:
      return absl::StrCat(kCompare, kOnCpu);
    case ReproCheck::kGrads:
      return absl::StrCat(kCompare, kBackward, kReference);
    case ReproCheck::kRejection:
    case ReproCheck::kInternalAssert:
    case ReproCheck::kCall:
      return kBackward;
    case ReproCheck::kCost:  // Python only (ReproText).
      break;
    case ReproCheck::kStorage:
      return kStorage;
    case ReproCheck::kLayout:
      return kLayout;
  }
  return "";
}

}  // namespace dpfuzz
