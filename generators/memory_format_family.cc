#include "generators/memory_format_family.h"

#include <map>
#include <set>

#include "generators/op_spec.h"

namespace dpfuzz {
namespace {

// Note [Ops that keep a memory format]: each module's ATen ops (the public
// op and the kernels it calls) and the ranks of their batched input.
const std::set<int64_t>* RanksKept(const std::string& op) {
  static const std::set<int64_t> k2d = {4}, k3d = {5}, kBoth = {4, 5};
  static const auto* kOps = new std::map<std::string, const std::set<int64_t>*>{
      // MaxPool2d, MaxPool3d.
      {"aten::max_pool2d", &k2d},
      {"aten::max_pool2d_with_indices", &k2d},
      {"aten::max_pool3d", &k3d},
      {"aten::max_pool3d_with_indices", &k3d},
      // AvgPool2d, AdaptiveAvgPool2d, AdaptiveMaxPool2d.
      {"aten::avg_pool2d", &k2d},
      {"aten::adaptive_avg_pool2d", &k2d},
      {"aten::_adaptive_avg_pool2d", &k2d},
      {"aten::adaptive_max_pool2d", &k2d},
      // BatchNorm2d, BatchNorm3d.
      {"aten::batch_norm", &kBoth},
      {"aten::_batch_norm_impl_index", &kBoth},
      {"aten::native_batch_norm", &kBoth},
      {"aten::_native_batch_norm_legit", &kBoth},
      {"aten::_native_batch_norm_legit_no_training", &kBoth},
      // ZeroPad2d/3d, ConstantPad2d/3d.
      {"aten::constant_pad_nd", &kBoth},
  };
  const auto it = kOps->find(op);
  return it == kOps->end() ? nullptr : it->second;
}

}  // namespace

std::string FormatKeptInput(const Case& c, uint32_t rules) {
  static const std::set<int64_t> kAny = {4, 5};
  const std::set<int64_t>* ranks =
      (rules & kRuleKeepsMemoryFormat) ? &kAny : RanksKept(c.op);
  if (ranks == nullptr) return "";
  for (const char* name : {"self", "input"}) {
    const Argument* a = FindArgument(c, name);
    const auto* t = a != nullptr ? std::get_if<TensorSpec>(&a->value) : nullptr;
    if (t == nullptr) continue;
    return !t->is_nested() && ranks->count(t->dim()) > 0 ? name : "";
  }
  return "";
}

bool AmbiguousMemoryFormat(const std::vector<int64_t>& sizes) {
  if (sizes.size() != 4 && sizes.size() != 5) return false;
  int64_t spatial = 1;
  for (size_t d = 2; d < sizes.size(); ++d) spatial *= sizes[d];
  return sizes[1] == 1 || spatial == 1;
}

}  // namespace dpfuzz
