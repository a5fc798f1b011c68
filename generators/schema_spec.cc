#include "generators/schema_spec.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/jit_type.h>

#include <algorithm>
#include <initializer_list>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "common/status_macros.h"
#include "generators/nested_args.h"
#include "generators/schema_args.h"

namespace dpfuzz {
namespace {

// Ops whose result is a fact about the input's layout (its strides, its
// contiguity, its storage; the sym_ forms of 2.x too), that are views of
// storage through strides they are given (as_strided, _reshape_alias) or
// take from another tensor (slice_inverse views src's storage with self's
// geometry), or keep it where the old strides put it (resize, and its
// in-place forms), or that succeed only for some strides by definition
// (view and its copy and unsafe forms): a strided variant differs by
// definition. Ops that copy from strides they are given
// (as_strided_scatter, as_strided_copy) are fuzzed with that tensor
// contiguous instead (FixedLayout).
bool ResultIsLayout(const std::string& op) {
  static const std::set<std::string> kQueries = {
      "aten::stride",
      "aten::storage_offset",
      "aten::is_contiguous",
      "aten::sym_stride",
      "aten::sym_storage_offset",
      "aten::sym_is_contiguous",
      "aten::slice_inverse",
      "aten::is_non_overlapping_and_dense",
      "aten::is_set_to",
      "aten::_debug_has_internal_overlap",
      "aten::_has_same_storage_numel",
      "aten::_reshape_alias",
      "aten::_reshape_alias_copy",
      "aten::_nested_tensor_strides",
      "aten::_nested_tensor_storage_offsets",
      "aten::_nested_tensor_offsets",
      "aten::values",
      "aten::data",
      "aten::as_strided",
      "aten::as_strided_",
      "aten::_nested_view_from_buffer",
      "aten::resize",
      "aten::resize_",
      "aten::resize_as",
      "aten::resize_as_",
      "aten::view",
      "aten::view_as",
      "aten::view_copy",
      "aten::_unsafe_view",
  };
  return kQueries.count(op) > 0;
}

// An op given explicit strides (an int[] argument named "stride":
// as_strided_scatter, as_strided_copy, set_ from a source, new_empty_strided)
// addresses the storage of the first tensor it reads through them: that
// tensor keeps the contiguous layout (OpSpec::fixed_layout).
std::vector<std::string> FixedLayout(const c10::FunctionSchema& schema) {
  bool has_stride = false;
  for (const c10::Argument& arg : schema.arguments()) {
    has_stride |= arg.name() == "stride" &&
                  arg.real_type()->kind() == c10::TypeKind::ListType;
  }
  if (!has_stride) return {};
  for (const c10::Argument& arg : schema.arguments()) {
    const bool written =
        arg.alias_info() != nullptr && arg.alias_info()->isWrite();
    if (!written && arg.real_type()->kind() == c10::TypeKind::TensorType) {
      return {arg.name()};
    }
  }
  return {};
}

// Words in the names of ops that draw random numbers, for the versions and
// libraries whose schemas carry no nondeterministic_seeded tag.
bool HasRandomName(const std::string& op) {
  for (absl::string_view word :
       {"rand", "dropout", "bernoulli", "multinomial", "normal", "uniform",
        "exponential", "cauchy", "geometric", "poisson", "binomial", "rrelu",
        "_sample_dirichlet", "_standard_gamma", "empty"}) {
    if (absl::StrContains(op, word)) return true;
  }
  return false;
}

// An op that returns (values, indices) of `self`: sort, topk, kthvalue,
// median, mode, max.dim, cummax, ... Which of several tied elements an
// index names is unspecified, so its indices are judged by the values
// they select (kRuleTiedIndices).
bool ReturnsValuesAndIndices(const c10::FunctionSchema& schema) {
  const auto& returns = schema.returns();
  const bool named = returns.size() == 2 && returns[0].name() == "values" &&
                     returns[1].name() == "indices";
  return named && schema.argumentIndexWithName("self").has_value();
}

bool Writes(const c10::FunctionSchema& schema) {
  for (const c10::Argument& arg : schema.arguments()) {
    if (arg.alias_info() != nullptr && arg.alias_info()->isWrite()) {
      return true;
    }
  }
  return false;
}

bool HasTensorArgument(const c10::FunctionSchema& schema) {
  for (const c10::Argument& arg : schema.arguments()) {
    if (IsTensorLike(arg.real_type())) return true;
  }
  return false;
}

// Whether the op has a composite kernel: one for every device.
bool HasCompositeKernel(const c10::OperatorHandle& h) {
  for (c10::DispatchKey key :
       {c10::DispatchKey::CompositeImplicitAutograd,
        c10::DispatchKey::CompositeExplicitAutograd,
        c10::DispatchKey::CompositeExplicitAutogradNonFunctional}) {
    if (h.hasKernelForDispatchKey(key)) return true;
  }
  return false;
}

c10::optional<c10::OperatorHandle> Find(const std::string& op,
                                        const std::string& overload) {
  return c10::Dispatcher::singleton().findSchema({op, overload});
}

// The operator `name`, or NotFound naming it.
absl::StatusOr<c10::OperatorHandle> Registered(const OverloadName& name) {
  c10::optional<c10::OperatorHandle> h = Find(name.op, name.overload);
  if (!h.has_value()) {
    return absl::NotFoundError(absl::StrCat(
        "operator ", name.Full(), " is not registered with this LibTorch"));
  }
  return *h;
}

// Note [Copies of views]: an op tagged view_copy (`X_copy`, the copy of
// view op X that functionalization calls) runs X and clones its result:
// its composite kernel runs wherever X's kernels do, so it has a kernel
// for dense tensors only where X has one (`_values_copy`, `_indices_copy`
// and `crow_indices_copy` are for sparse tensors, as `_values` is). X when
// `h` is such a copy.
c10::optional<c10::OperatorHandle> ViewOfCopy(const c10::OperatorHandle& h) {
  const std::string& name = h.schema().name();
  if (!h.hasTag(at::Tag::view_copy) || !absl::EndsWith(name, "_copy")) {
    return c10::nullopt;
  }
  return Find(name.substr(0, name.size() - 5), h.schema().overload_name());
}

// Whether the op has a kernel for dense tensors of `keys` (CPU, CUDA), its
// own or a composite one (See Note [Copies of views]). Ops only for
// sparse, quantized, mkldnn or another backend (mkldnn_*, mps_*) reject
// every case dpfuzz builds.
bool HasKernelFor(const c10::OperatorHandle& h,
                  std::initializer_list<c10::DispatchKey> keys) {
  if (c10::optional<c10::OperatorHandle> view = ViewOfCopy(h)) {
    return HasKernelFor(*view, keys);
  }
  if (HasCompositeKernel(h)) return true;
  for (c10::DispatchKey key : keys) {
    if (h.hasKernelForDispatchKey(key)) return true;
  }
  return false;
}

bool HasDenseKernel(const c10::OperatorHandle& h) {
  return HasKernelFor(h, {c10::DispatchKey::CPU, c10::DispatchKey::CUDA});
}

// A nested kernel of the op's own (TORCH_LIBRARY_IMPL(ns, NestedTensorCPU,
// m) and ATen's NestedTensor dispatch entries); composite kernels are
// left out: whether their decomposition takes nested tensors is not known.
c10::DispatchKey NestedKey(Device device) {
  return device == Device::kCuda ? c10::DispatchKey::NestedTensorCUDA
                                 : c10::DispatchKey::NestedTensorCPU;
}

// A factory's options (ones(size, *, dtype, layout, device, pin_memory)):
// what its out= form takes from the out tensor instead.
bool IsTensorOption(const c10::Argument& arg) {
  static const std::set<std::string> kOptions = {"dtype", "layout", "device",
                                                 "pin_memory"};
  return arg.kwarg_only() &&
         arg.real_type()->kind() == c10::TypeKind::OptionalType &&
         kOptions.count(arg.name()) > 0;
}

// The arguments `schema` reads, in order, as "name: type"; tensor options
// left out.
std::vector<std::string> ReadArguments(const c10::FunctionSchema& schema) {
  std::vector<std::string> names;
  for (const c10::Argument& arg : schema.arguments()) {
    if (IsTensorOption(arg)) continue;
    if (arg.alias_info() == nullptr || !arg.alias_info()->isWrite()) {
      names.push_back(absl::StrCat(arg.name(), ": ", arg.type()->str()));
    }
  }
  return names;
}

// The out= overload of functional `name`: same op, the same arguments read
// (but the tensor options, which the out tensor gives), written arguments
// besides.
std::string OutOverload(const OverloadName& name,
                        const c10::FunctionSchema& functional) {
  const std::vector<std::string> reads = ReadArguments(functional);
  for (const std::string& overload : OverloadsOf(name.op)) {
    if (overload == name.overload) continue;
    c10::optional<c10::OperatorHandle> h = Find(name.op, overload);
    if (!h.has_value() || !Writes(h->schema())) continue;
    if (ReadArguments(h->schema()) == reads &&
        h->schema().returns().size() == functional.returns().size()) {
      return overload;
    }
  }
  return "";
}

// In-place forms that refuse every view by definition: dpfuzz's strided
// self is a view, the baseline's is not.
bool InplaceRefusesViews(const std::string& op) {
  return op == "aten::detach";  // "Can't detach views in-place".
}

bool HasInplace(const OverloadName& name,
                const c10::FunctionSchema& functional) {
  if (InplaceRefusesViews(name.op)) return false;
  c10::optional<c10::OperatorHandle> h = Find(name.op + "_", name.overload);
  if (!h.has_value() || h->schema().arguments().empty()) return false;
  const c10::Argument& self = h->schema().arguments()[0];
  return self.name() == "self" && self.alias_info() != nullptr &&
         self.alias_info()->isWrite() &&
         h->schema().arguments().size() == functional.arguments().size();
}

// An overload that writes exactly one argument, its first (a tensor, not
// out=), with no functional overload of the same name beside it
// (`op` without its trailing "_"): an op that exists only in place, fuzzed
// as its own in-place variant (OpSpec::inplace_only).
bool IsInplaceOnly(const OverloadName& name,
                   const c10::FunctionSchema& schema) {
  const auto& args = schema.arguments();
  int written = 0;
  for (const c10::Argument& arg : args) {
    written += arg.alias_info() != nullptr && arg.alias_info()->isWrite();
  }
  if (written != 1 || args[0].alias_info() == nullptr ||
      !args[0].alias_info()->isWrite() || args[0].kwarg_only() ||
      args[0].real_type()->kind() != c10::TypeKind::TensorType) {
    return false;
  }
  if (InplaceRefusesViews(name.op)) return false;
  const bool trailing = absl::EndsWith(name.op, "_");
  return !trailing ||
         !Find(name.op.substr(0, name.op.size() - 1), name.overload)
              .has_value();
}

}  // namespace

std::vector<ReadArgument> ReadArgumentsOf(const OverloadName& name) {
  c10::optional<c10::OperatorHandle> h = Find(name.op, name.overload);
  std::vector<ReadArgument> args;
  if (!h.has_value()) return args;
  for (const c10::Argument& arg : h->schema().arguments()) {
    // out= is written, not read; an in-place op's self is both.
    if (arg.alias_info() != nullptr && arg.alias_info()->isWrite() &&
        arg.kwarg_only()) {
      continue;
    }
    std::string type = Unwrapped(arg.real_type())->str();
    absl::StrReplaceAll({{"SymInt", "int"}}, &type);
    args.push_back({arg.name(), std::move(type), !MayLeaveOut(arg),
                    arg.real_type()->kind() == c10::TypeKind::OptionalType});
  }
  return args;
}

bool IsPrivateOp(const OverloadName& name) {
  const size_t colons = name.op.find("::");
  return name.op.compare(colons == std::string::npos ? 0 : colons + 2, 1,
                         "_") == 0;
}

bool IsRandomOp(const OverloadName& name) {
  c10::optional<c10::OperatorHandle> h = Find(name.op, name.overload);
  if (h.has_value() && h->hasTag(at::Tag::nondeterministic_seeded)) {
    return true;
  }
  return HasRandomName(name.op);
}

absl::StatusOr<std::string> GenericExclusion(const OverloadName& name) {
  DPFUZZ_ASSIGN_OR_RETURN(c10::OperatorHandle h, Registered(name));
  const c10::FunctionSchema& schema = h.schema();
  if (Writes(schema) && !IsInplaceOnly(name, schema)) {
    return std::string(kWritesArguments);
  }
  if (ResultIsLayout(name.op)) {
    return std::string(kResultIsLayout);
  }
  if (!HasTensorArgument(schema) && OutOverload(name, schema).empty()) {
    return std::string(kNoTensorArgument);
  }
  if (!HasDenseKernel(h)) {
    return std::string(kNoDenseKernel);
  }
  // A written self is a tensor: drawable. An argument only seeds give
  // makes a spec fuzzed from them alone (OpSpec::seeds_only).
  return UnrecordableReason(schema);
}

bool HasKernelOn(const OverloadName& name, Device device) {
  c10::optional<c10::OperatorHandle> h = Find(name.op, name.overload);
  if (!h.has_value()) return false;
  return HasKernelFor(*h, {device == Device::kCuda ? c10::DispatchKey::CUDA
                                                   : c10::DispatchKey::CPU});
}

namespace {

// The rules of every generic spec: determinism checked; random ops and
// tied indices known from the schema.
uint32_t GenericRules(const OverloadName& name,
                      const c10::FunctionSchema& schema) {
  return kRuleCheckDeterminism |
         (IsRandomOp(name) ? kRuleNondeterministic : 0u) |
         (ReturnsValuesAndIndices(schema) ? kRuleTiedIndices : 0u);
}

}  // namespace

bool HasNestedKernelOn(const OverloadName& name, Device device) {
  c10::optional<c10::OperatorHandle> h = Find(name.op, name.overload);
  return h.has_value() && h->hasKernelForDispatchKey(NestedKey(device));
}

absl::StatusOr<std::string> GenericNestedExclusion(const OverloadName& name) {
  DPFUZZ_ASSIGN_OR_RETURN(c10::OperatorHandle h, Registered(name));
  const c10::FunctionSchema& schema = h.schema();
  if (Writes(schema)) return std::string(kNestedWritesArguments);
  if (ResultIsLayout(name.op)) return std::string(kResultIsLayout);
  if (!HasTensorArgument(schema)) return std::string(kNoTensorArgument);
  if (!HasNestedKernelOn(name, Device::kCpu) &&
      !HasNestedKernelOn(name, Device::kCuda)) {
    return std::string(kNoNestedKernel);
  }
  return UndrawableReason(schema);
}

absl::StatusOr<OpSpec> GenericNestedOpSpec(const OverloadName& name) {
  absl::StatusOr<std::string> excluded = GenericNestedExclusion(name);
  if (!excluded.ok()) return excluded.status();
  if (!excluded->empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        kNestedPrefix, name.Full(), " is not fuzzed: ", *excluded));
  }
  const c10::FunctionSchema schema = Find(name.op, name.overload)->schema();
  OpSpec spec;
  spec.op = name.op;
  spec.overload = name.overload;
  spec.family = "nested";
  spec.nested = true;
  spec.differentiable = true;
  spec.comparison = Comparison::kTolerance;
  spec.rules = GenericRules(name, schema);
  spec.dtypes = AllDTypes();
  spec.make_args = [schema](Rng& rng, DType dtype) {
    // UndrawableReason was empty, so the draw cannot fail.
    std::vector<Argument> args = *DrawSchemaArgs(schema, dtype, rng);
    NestArguments(args, rng);
    return args;
  };
  return spec;
}

absl::StatusOr<OpSpec> GenericOpSpec(const OverloadName& name) {
  absl::StatusOr<std::string> excluded = GenericExclusion(name);
  if (!excluded.ok()) return excluded.status();
  if (!excluded->empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(name.Full(), " is not fuzzed: ", *excluded));
  }
  const c10::FunctionSchema schema = Find(name.op, name.overload)->schema();
  OpSpec spec;
  spec.op = name.op;
  spec.overload = name.overload;
  spec.inplace_only = IsInplaceOnly(name, schema);
  if (!spec.inplace_only) {
    spec.out_overload = OutOverload(name, schema);
    spec.has_inplace = HasInplace(name, schema);
  }
  spec.out_only = !HasTensorArgument(schema);
  spec.fixed_layout = FixedLayout(schema);
  spec.family = "generic";
  spec.differentiable = true;
  spec.comparison = Comparison::kTolerance;
  spec.rules = GenericRules(name, schema);
  spec.dtypes = AllDTypes();
  spec.seeds_only = UndrawableReason(schema);
  if (spec.seeds_only.empty()) {
    spec.make_args = [schema, inplace_only = spec.inplace_only](Rng& rng,
                                                                DType dtype) {
      // UndrawableReason was empty, so the draw cannot fail.
      return *DrawSchemaArgs(schema, dtype, rng, inplace_only);
    };
  }
  return spec;
}

}  // namespace dpfuzz
