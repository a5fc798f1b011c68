#include "oracles/case_tensors.h"

#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "generators/aten_bridge.h"
#include "generators/geometry.h"
#include "generators/materialize.h"
#include "generators/poison.h"
#include "oracles/compare.h"

namespace dpfuzz {
namespace {

// Where group member `member` is in a NamedTensors: "out" is ("out", 0),
// "tensors[1]" of a Tensor[] argument ("tensors", 1).
std::pair<std::string, size_t> MemberKey(const std::string& member) {
  const size_t bracket = member.find('[');
  if (bracket == std::string::npos) return {member, 0};
  return {member.substr(0, bracket), std::stoul(member.substr(bracket + 1))};
}

// The tensor of group member `member`; nullptr when there is none.
const at::Tensor* MemberTensor(const NamedTensors& args,
                               const std::string& member) {
  const auto [name, index] = MemberKey(member);
  const auto it = args.find(name);
  if (it == args.end() || index >= it->second.size()) return nullptr;
  return &it->second[index];
}

// Marks what a written argument addresses now, when the op resized it (an
// out= of the wrong size): resizing in place keeps the storage when it is
// large enough and makes the tensor contiguous from its offset, so the op
// may write there.
void MarkResized(const at::Tensor* now, const StorageGroup& group,
                 const TensorSpec& spec, std::vector<bool>& may_change) {
  if (now == nullptr || !now->defined() || !now->has_storage() ||
      !now->storage().is_alias_of(group.storage.storage()) ||
      now->element_size() != group.storage.element_size()) {
    return;
  }
  const StridedLayout layout = LayoutOf(*now);
  if (layout.sizes == spec.layout.sizes) return;
  for (int64_t index : ComputeStorageIndices(layout)) {
    if (index >= 0 && index < static_cast<int64_t>(may_change.size())) {
      may_change[index] = true;
    }
  }
}

// The base argument whose storage `name` lives in (itself if none).
std::string BaseOf(const Case& c, const std::string& name) {
  for (const Alias& alias : c.aliases) {
    if (alias.arg == name) return alias.base;
  }
  return name;
}

absl::Status AddGroup(std::vector<std::string> names,
                      std::vector<TensorSpec> specs, CaseTensors& out) {
  DPFUZZ_ASSIGN_OR_RETURN(std::vector<MaterializedTensor> built,
                          MaterializeShared(specs));
  for (size_t i = 0; i < names.size(); ++i) {
    // "name[i]" elements of a Tensor[] go back under "name".
    out.args[names[i].substr(0, names[i].find('['))].push_back(built[i].tensor);
  }
  StorageGroup group;
  group.storage = built.front().storage;
  group.args = std::move(names);
  group.specs = std::move(specs);
  group.before = ReadStorageBytes(group.storage);
  out.groups.push_back(std::move(group));
  return absl::OkStatus();
}

// How a storage element is described in a StorageChange.
std::string ElementRole(const StorageGroup& group, int64_t index) {
  for (size_t i = 0; i < group.specs.size(); ++i) {
    const TensorSpec& spec = group.specs[i];
    const std::vector<int64_t> indices = SpecStorageIndices(spec);
    for (size_t n = 0; n < indices.size(); ++n) {
      if (indices[n] == index) {
        // A nested tensor's elements are numbered across its components.
        return absl::StrCat(
            "element ",
            spec.is_nested()
                ? std::to_string(n)
                : MultiIndex(static_cast<int64_t>(n), spec.layout.sizes),
            " of ", group.args[i]);
      }
    }
  }
  return "a gap or margin";
}

std::string ElementValue(const at::Tensor& storage,
                         absl::Span<const uint8_t> bytes, int64_t index) {
  at::Tensor one =
      at::empty({1}, storage.options().device(at::kCPU).requires_grad(false));
  std::memcpy(one.data_ptr(), bytes.data() + index * storage.element_size(),
              storage.element_size());
  return c10::str(one.item());
}

}  // namespace

absl::StatusOr<CaseTensors> MaterializeVariant(const Case& c) {
  CaseTensors out;
  // Group plain tensor arguments by the base whose storage they share; the
  // base goes last so that its values win (see MaterializeShared).
  std::map<std::string, std::vector<const Argument*>> groups;
  std::vector<std::string> order;
  for (const Argument& arg : c.args) {
    if (const auto* list = std::get_if<std::vector<TensorSpec>>(&arg.value)) {
      out.args[arg.name];  // An empty list is still an argument.
      for (size_t i = 0; i < list->size(); ++i) {
        DPFUZZ_RETURN_IF_ERROR(
            AddGroup({absl::StrCat(arg.name, "[", i, "]")}, {(*list)[i]}, out));
      }
      continue;
    }
    if (!std::holds_alternative<TensorSpec>(arg.value)) continue;
    const std::string base = BaseOf(c, arg.name);
    if (groups.find(base) == groups.end()) order.push_back(base);
    auto& members = groups[base];
    if (base == arg.name) {
      members.push_back(&arg);
    } else {
      members.insert(members.begin(), &arg);
    }
  }
  for (const std::string& base : order) {
    std::vector<std::string> names;
    std::vector<TensorSpec> specs;
    for (const Argument* arg : groups[base]) {
      names.push_back(arg->name);
      specs.push_back(std::get<TensorSpec>(arg->value));
    }
    DPFUZZ_RETURN_IF_ERROR(AddGroup(std::move(names), std::move(specs), out));
  }
  for (const TensorSpec& g : c.grad_outputs) {
    DPFUZZ_ASSIGN_OR_RETURN(MaterializedTensor m, Materialize(g));
    out.grad_outputs.push_back(m.tensor);
  }
  return out;
}

namespace {

// `variant`'s tensors, each made by `dense` from one of them.
template <typename Dense>
CaseTensors DenseCopies(const CaseTensors& variant, Dense dense) {
  at::NoGradGuard no_grad;
  CaseTensors out;
  for (const auto& [name, tensors] : variant.args) {
    for (const at::Tensor& t : tensors) out.args[name].push_back(dense(t));
  }
  for (const at::Tensor& g : variant.grad_outputs) {
    out.grad_outputs.push_back(dense(g));
  }
  return out;
}

// A tensor of `sizes` holding `bytes` (its logical values, row-major), in
// a storage on `device` whose tail, numel + kTailMargin elements, holds
// `fill`.
// One element of `fill` in `dtype`.
std::vector<uint8_t> FillElement(DType dtype, TailFill fill) {
  return fill == TailFill::kPoison
             ? PoisonElement(dtype)
             : std::vector<uint8_t>(ElementSize(dtype),
                                    dtype == DType::kBool ? 0x01 : 0x5A);
}

at::Tensor WithFilledTail(DType dtype, const Dims& sizes,
                          std::vector<uint8_t> bytes, const at::Device& device,
                          TailFill fill) {
  const int64_t n = ComputeNumel(sizes), tail = n + kTailMargin;
  const std::vector<uint8_t> element = FillElement(dtype, fill);
  for (int64_t i = 0; i < tail; ++i) {
    bytes.insert(bytes.end(), element.begin(), element.end());
  }
  return MakeContiguousTensor(dtype, {n + tail}, bytes)
      .to(device)
      .narrow(0, 0, n)
      .view(sizes);
}

// The bytes of `group`'s storage elements at `indices` before the op ran,
// in that order; for a spec's SpecStorageIndices, the values its tensor
// held then.
std::vector<uint8_t> BytesBefore(const StorageGroup& group,
                                 const std::vector<int64_t>& indices) {
  const int64_t size = group.storage.element_size();
  std::vector<uint8_t> bytes;
  for (int64_t index : indices) {
    const auto first = group.before.begin() + index * size;
    bytes.insert(bytes.end(), first, first + size);
  }
  return bytes;
}

// A baseline built from the storages' snapshots: `make(group, i, now)`
// makes group member i's dense tensor (`now`: the variant's tensor, for
// its device), `make_grad(g)` each grad_output's (never written: made from
// the tensor); requires_grad as the variant's.
template <typename Make, typename MakeGrad>
CaseTensors FromSnapshots(const CaseTensors& variant, Make make,
                          MakeGrad make_grad) {
  at::NoGradGuard no_grad;
  CaseTensors out;
  for (const auto& [name, tensors] : variant.args) {
    out.args[name].resize(tensors.size());
  }
  for (const StorageGroup& group : variant.groups) {
    for (size_t i = 0; i < group.args.size(); ++i) {
      const at::Tensor* now = MemberTensor(variant.args, group.args[i]);
      at::Tensor d = make(group, i, *now);
      const auto [name, index] = MemberKey(group.args[i]);
      out.args[name][index] = now->requires_grad() ? d.requires_grad_(true) : d;
    }
  }
  for (const at::Tensor& g : variant.grad_outputs) {
    out.grad_outputs.push_back(make_grad(g));
  }
  return out;
}

// A contiguous nested tensor of `t`'s components and values.
at::Tensor ContiguousNestedCopy(const at::Tensor& t, BaselineDevice device) {
  std::vector<Dims> sizes;
  for (const at::Tensor& component : t.unbind()) {
    sizes.push_back(component.sizes().vec());
  }
  const absl::StatusOr<DType> dtype = FromScalarType(t.scalar_type());
  DPFUZZ_CHECK(dtype.ok());  // Materialized from a spec of that dtype.
  at::Tensor copy = MakeContiguousNestedTensor(
      *dtype, sizes, ReadLogicalBytes(t),
      device == BaselineDevice::kCpu ? at::Device(at::kCPU) : t.device());
  return t.requires_grad() ? copy.requires_grad_(true) : copy;
}

}  // namespace

CaseTensors MaterializeBaseline(const CaseTensors& variant,
                                BaselineDevice device) {
  return DenseCopies(variant, [device](const at::Tensor& t) {
    if (t.is_nested()) return ContiguousNestedCopy(t, device);
    at::Tensor d = ReadDense(t);  // On the CPU, contiguous.
    if (device == BaselineDevice::kVariant && !t.device().is_cpu()) {
      d = d.to(t.device());  // One dense block, as Materialize moves it.
    }
    return t.requires_grad() ? d.requires_grad_(true) : d;
  });
}

CaseTensors MaterializeTailFilledBaseline(const CaseTensors& variant,
                                          TailFill fill) {
  // From the storages' snapshots: the op may have written the variant's
  // tensors since (Note [Baselines that read outside] builds these only
  // for a finding).
  return FromSnapshots(
      variant,
      [fill](const StorageGroup& group, size_t i, const at::Tensor& now) {
        const TensorSpec& spec = group.specs[i];
        return WithFilledTail(spec.dtype, spec.layout.sizes,
                              BytesBefore(group, SpecStorageIndices(spec)),
                              now.device(), fill);
      },
      [fill](const at::Tensor& g) {
        const at::Tensor dense = ReadDense(g);
        absl::StatusOr<DType> dtype = FromScalarType(dense.scalar_type());
        return dtype.ok()
                   ? WithFilledTail(*dtype, dense.sizes().vec(),
                                    ReadLogicalBytes(dense), g.device(), fill)
                   : dense.to(g.device());
      });
}

std::vector<std::string> ArgumentsWithWrittenTails(const CaseTensors& filled,
                                                   TailFill fill) {
  std::vector<std::string> names;
  for (const auto& [name, tensors] : filled.args) {
    for (const at::Tensor& t : tensors) {
      if (!t.defined() || t.layout() != at::kStrided || t.is_nested()) {
        continue;
      }
      const absl::StatusOr<DType> dtype = FromScalarType(t.scalar_type());
      const int64_t n = t.numel();
      const int64_t size = t.element_size();
      // Still the tensor it was made as: offset 0, its numel, its storage
      // of numel + tail elements (a resize the op made moves or grows it).
      if (!dtype.ok() || t.storage_offset() != 0 ||
          static_cast<int64_t>(t.storage().nbytes()) !=
              (2 * n + kTailMargin) * size) {
        continue;
      }
      const std::vector<uint8_t> element = FillElement(*dtype, fill);
      const std::vector<uint8_t> bytes = ReadStorageBytes(t);
      for (int64_t i = n; i < 2 * n + kTailMargin; ++i) {
        if (!std::equal(element.begin(), element.end(),
                        bytes.begin() + i * size)) {
          names.push_back(name);
          break;
        }
      }
    }
  }
  return names;
}

CaseTensors MaterializeRereadBaseline(const CaseTensors& variant,
                                      const std::string& arg,
                                      const std::vector<int64_t>& indices) {
  return FromSnapshots(
      variant,
      [&](const StorageGroup& group, size_t i, const at::Tensor& now) {
        const TensorSpec& spec = group.specs[i];
        return MakeContiguousLike(
            spec,
            BytesBefore(group, group.args[i] == arg ? indices
                                                    : SpecStorageIndices(spec)),
            now.device());
      },
      [](const at::Tensor& g) {
        return g.is_nested() ? ContiguousNestedCopy(g, BaselineDevice::kVariant)
                             : ReadDense(g).to(g.device());
      });
}

CaseTensors MaterializeBaselineBefore(const CaseTensors& variant) {
  return MaterializeRereadBaseline(variant, /*arg=*/"", /*indices=*/{});
}

std::vector<bool> ChangedElements(const StorageGroup& group) {
  std::vector<uint8_t> copy;
  const absl::Span<const uint8_t> after = StorageBytes(group.storage, copy);
  const size_t size = group.storage.element_size();
  std::vector<bool> changed(std::min(after.size(), group.before.size()) / size);
  for (size_t e = 0; e < changed.size(); ++e) {
    changed[e] = std::memcmp(after.data() + e * size,
                             group.before.data() + e * size, size) != 0;
  }
  return changed;
}

std::optional<StorageChange> CheckStorages(
    const CaseTensors& tensors, const std::set<std::string>& written) {
  for (const StorageGroup& group : tensors.groups) {
    std::vector<uint8_t> copy;
    const absl::Span<const uint8_t> after = StorageBytes(group.storage, copy);
    // A resize may have grown the storage: what it added is new memory,
    // never poisoned, and only the elements it had are compared.
    const size_t kept = std::min(after.size(), group.before.size());
    if (kept == 0 ||
        std::memcmp(after.data(), group.before.data(), kept) == 0) {
      continue;  // Most storages: nothing changed.
    }
    const int64_t element_size = group.storage.element_size();
    std::vector<bool> may_change(after.size() / element_size, false);
    bool holds_written = false;
    for (size_t i = 0; i < group.specs.size(); ++i) {
      if (written.count(group.args[i]) == 0) continue;
      holds_written = true;
      for (int64_t index : SpecStorageIndices(group.specs[i])) {
        may_change[index] = true;
      }
      MarkResized(MemberTensor(tensors.args, group.args[i]), group,
                  group.specs[i], may_change);
    }
    const std::vector<bool> changed = ChangedElements(group);
    for (size_t e = 0; e < changed.size(); ++e) {
      if (!changed[e] || may_change[e]) continue;
      const int64_t index = static_cast<int64_t>(e);
      StorageChange change;
      change.verdict =
          holds_written ? Verdict::kOutsideWrite : Verdict::kInputModified;
      change.where =
          absl::StrCat("storage of ", absl::StrJoin(group.args, ", "));
      change.detail = absl::StrCat(
          "storage[", index, "], ", ElementRole(group, index),
          ", changed from ", ElementValue(group.storage, group.before, index),
          " to ", ElementValue(group.storage, after, index));
      return change;
    }
  }
  return std::nullopt;
}

}  // namespace dpfuzz
