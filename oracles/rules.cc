#include "oracles/rules.h"

#include <ATen/core/dispatch/Dispatcher.h>

#include "absl/strings/str_cat.h"
#include "generators/aten_bridge.h"
#include "generators/contract_rules.h"
#include "generators/geometry.h"
#include "generators/memory_format_family.h"

namespace dpfuzz {
namespace {

// The case's dim, or its schema's default where the case leaves it out
// (topk's and sort's -1); nullopt for none (argmax's None: the flattened
// input).
std::optional<int64_t> DimOf(const Case& c) {
  if (const Argument* given = FindArgument(c, "dim")) {
    const int64_t* dim = std::get_if<int64_t>(&given->value);
    return dim != nullptr ? std::optional<int64_t>(*dim) : std::nullopt;
  }
  const c10::optional<c10::OperatorHandle> op =
      c10::Dispatcher::singleton().findSchema({c.op, c.overload});
  if (!op.has_value()) return std::nullopt;
  const c10::optional<int> index = op->schema().argumentIndexWithName("dim");
  if (!index.has_value()) return std::nullopt;
  const auto& fallback = op->schema().arguments()[*index].default_value();
  if (!fallback.has_value() || !fallback->isInt()) return std::nullopt;
  return fallback->toInt();
}

// Values of `self` that `indices` (dense, on the CPU: ReadDense) select
// along `dim` (flattened when the case has no dim), on the CPU; nothing
// when an index is out of range or the shapes do not fit, which the caller
// reports as it is.
std::optional<at::Tensor> Selected(const at::Tensor& device_self,
                                   const at::Tensor& indices, const Case& c) {
  const at::Tensor self = device_self.detach().to(indices.device());
  const std::optional<int64_t> dim = DimOf(c);
  const bool flat = !dim.has_value() || self.dim() == 0;
  const int64_t d = flat ? 0 : c10::maybe_wrap_dim(*dim, self.dim());
  const int64_t bound = flat ? self.numel() : self.size(d);
  if (indices.numel() > 0 && (indices.min().item<int64_t>() < 0 ||
                              indices.max().item<int64_t>() >= bound)) {
    return std::nullopt;
  }
  if (flat) return self.reshape({-1}).take(indices.reshape({-1}));
  at::Tensor idx = indices;
  if (idx.dim() == self.dim() - 1) idx = idx.unsqueeze(d);  // keepdim=False
  if (idx.dim() != self.dim()) return std::nullopt;
  for (int64_t k = 0; k < self.dim(); ++k) {
    if (k != d && idx.size(k) > self.size(k)) return std::nullopt;
  }
  return self.gather(d, idx);
}

// The memory format value of `op`'s memory_format argument in this case:
// nullopt when the op has none; Preserve also stands for None.
std::optional<at::MemoryFormat> MemoryFormatArgument(
    const Case& c, const c10::OperatorHandle& op) {
  for (const c10::Argument& arg : op.schema().arguments()) {
    if (arg.name() != "memory_format") continue;
    if (const Argument* given = FindArgument(c, "memory_format")) {
      const auto* name = std::get_if<std::string>(&given->value);
      if (name == nullptr || *name == "preserve_format")
        return at::MemoryFormat::Preserve;
      if (*name == "channels_last") return at::MemoryFormat::ChannelsLast;
      if (*name == "channels_last_3d") return at::MemoryFormat::ChannelsLast3d;
      return at::MemoryFormat::Contiguous;
    }
    if (arg.default_value().has_value() && arg.default_value()->isInt()) {
      return static_cast<at::MemoryFormat>(arg.default_value()->toInt());
    }
    return at::MemoryFormat::Preserve;
  }
  return std::nullopt;
}

// Strides of the dims of size > 1 (the only strides c10 looks at).
std::vector<int64_t> SignificantStrides(const at::Tensor& t) {
  std::vector<int64_t> out;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1) out.push_back(t.stride(d));
  }
  return out;
}

bool SharesStorage(const at::Tensor& output, const NamedTensors& inputs) {
  for (const auto& [name, tensors] : inputs) {
    for (const at::Tensor& t : tensors) {
      if (t.defined() && t.has_storage() && output.is_alias_of(t)) return true;
    }
  }
  return false;
}

}  // namespace

std::optional<Difference> CompareOutput(
    const OpSpec& spec, const Case& c, const at::Tensor& self,
    const at::Tensor& expected, const at::Tensor& actual,
    const at::Tensor& reference, const at::Tensor& magnitude, int64_t terms) {
  if (!expected.defined() || !actual.defined()) {
    return CompareValues(expected, actual, spec.comparison);
  }
  if ((spec.rules & kRuleNondeterministic) &&
      expected.sizes() == actual.sizes() &&
      expected.scalar_type() == actual.scalar_type()) {
    return std::nullopt;  // Values may differ; shape and dtype agree.
  }
  const bool index_output =
      expected.scalar_type() == at::kLong && actual.scalar_type() == at::kLong;
  if ((spec.rules & kRuleTiedIndices) && index_output && self.defined() &&
      expected.sizes() == actual.sizes()) {
    const std::optional<at::Tensor> e = Selected(self, ReadDense(expected), c);
    const std::optional<at::Tensor> a = Selected(self, ReadDense(actual), c);
    if (e.has_value() && a.has_value()) {
      return CompareValues(*e, *a, Comparison::kExact);
    }
  }
  return CompareValues(expected, actual, spec.comparison, reference, magnitude,
                       terms);
}

bool RejectionAllowed(const Case& c) {
  if (!c.aliases.empty()) return true;
  // PyTorch refuses to write into a tensor whose elements share memory,
  // and an argument mutated by design is written (an older case file, a
  // reduction, may still hold such a layout; new cases never do).
  for (const std::string& name : MutatedByDesign(c)) {
    const Argument* arg = FindArgument(c, name);
    const auto* spec = arg ? std::get_if<TensorSpec>(&arg->value) : nullptr;
    if (spec != nullptr &&
        ComputeExactOverlap(spec->layout.sizes, spec->layout.strides) !=
            MemOverlap::kNo) {
      return true;
    }
  }
  return false;
}

std::optional<std::string> CheckLayoutPromises(
    const OpSpec& spec, const Case& c, const c10::OperatorHandle& op,
    const NamedTensors& inputs, const std::vector<at::Tensor>& outputs) {
  if (outputs.empty()) return std::nullopt;
  const at::Tensor& out = outputs.front();
  // An empty tensor is contiguous in every format whatever its strides; a
  // sparse or ZeroTensor result has no strides to promise.
  if (!out.defined() || out.is_nested() || out.numel() == 0 ||
      out.layout() != at::kStrided || out._is_zerotensor() ||
      SharesStorage(out, inputs)) {
    return std::nullopt;
  }
  const auto self = inputs.find("self");
  const std::optional<at::MemoryFormat> format = MemoryFormatArgument(c, op);
  if (format.has_value() && *format != at::MemoryFormat::Preserve) {
    if (!out.is_contiguous(*format)) {
      return absl::StrCat("memory_format=", c10::str(*format),
                          " but the result ", c10::str(out.sizes()), "@",
                          c10::str(out.strides()), " is not contiguous in it");
    }
  } else if (format.has_value() && self != inputs.end() &&
             self->second.size() == 1) {
    const at::Tensor& in = self->second.front();
    if (in.sizes() != out.sizes()) return std::nullopt;
    if (in.is_non_overlapping_and_dense()) {
      if (SignificantStrides(in) != SignificantStrides(out)) {
        return absl::StrCat("preserve_format on a dense input ",
                            c10::str(in.strides()), " returned strides ",
                            c10::str(out.strides()));
      }
    } else if (!out.is_non_overlapping_and_dense()) {
      // The docs say contiguous; LibTorch keeps the input's dim order
      // (infer_dense_strides). Either way the result is dense.
      return absl::StrCat(
          "preserve_format on a non-dense input returned a non-dense ",
          c10::str(out.sizes()), "@", c10::str(out.strides()));
    }
  }
  if (spec.rules & kRulePropagatesStrides) {
    const at::Tensor* first = nullptr;
    for (const auto& [name, tensors] : inputs) {
      for (const at::Tensor& t : tensors) {
        if (!t.defined()) continue;
        if (!t.is_non_overlapping_and_dense() || t.sizes() != out.sizes()) {
          return std::nullopt;
        }
        if (first != nullptr &&
            SignificantStrides(*first) != SignificantStrides(t)) {
          return std::nullopt;
        }
        first = &t;
      }
    }
    if (first != nullptr &&
        SignificantStrides(*first) != SignificantStrides(out)) {
      return absl::StrCat(
          "dense inputs with strides ", c10::str(first->strides()),
          " gave an output with strides ", c10::str(out.strides()));
    }
  }
  return std::nullopt;
}

std::optional<DroppedFormat> CheckKeepsMemoryFormat(
    const OpSpec& spec, const Case& c, const NamedTensors& inputs,
    const std::vector<at::Tensor>& outputs) {
  const std::string name = FormatKeptInput(c, spec.rules);
  const auto it = inputs.find(name);
  if (name.empty() || it == inputs.end() || it->second.size() != 1 ||
      outputs.empty()) {
    return std::nullopt;
  }
  const at::Tensor& in = it->second.front();
  const at::Tensor& out = outputs.front();
  if (!in.defined() || in.is_nested() || in.layout() != at::kStrided ||
      !out.defined() || out.is_nested() || out.layout() != at::kStrided ||
      out.dim() != in.dim() || out.numel() == 0 ||
      AmbiguousMemoryFormat(in.sizes().vec())) {
    return std::nullopt;
  }
  // Note [Ops that keep a memory format]: laid out exactly as
  // .contiguous(memory_format=...) lays it out.
  const bool cl = in.dim() == 4;
  const std::vector<int64_t> exact =
      cl ? c10::get_channels_last_strides_2d(in.sizes())
         : c10::get_channels_last_strides_3d(in.sizes());
  const at::MemoryFormat format =
      cl ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::ChannelsLast3d;
  if (in.strides() != c10::IntArrayRef(exact) || out.is_contiguous(format)) {
    return std::nullopt;
  }
  return DroppedFormat{
      name,
      absl::StrCat("a ", cl ? "channels_last" : "channels_last_3d", " input ",
                   c10::str(in.sizes()), "@", c10::str(in.strides()),
                   " gave a result ", c10::str(out.sizes()), "@",
                   c10::str(out.strides()), " not in that format")};
}

}  // namespace dpfuzz
