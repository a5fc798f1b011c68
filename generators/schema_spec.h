// Generic OpSpecs: any operator registered with the dispatcher, fuzzed from
// its schema when no curated spec exists.
//
// A generic spec is made for one functional overload (a schema that writes
// none of its arguments). Its out= variant is the overload of the same op
// whose other arguments are the functional's and which writes its "!"
// arguments; its in-place variant is `op_` with the same overload name.
// Arguments are drawn from the schema (generators/schema_args.h), every
// dtype is tried (the op's own rejections are not findings), results are
// compared with tolerances, and gradients are checked wherever autograd
// gives them. Random ops (the nondeterministic_seeded tag, or a random
// name) are compared only on shapes, dtypes and errors; every generic op
// has its baseline run twice to find the nondeterministic ones
// (kRuleCheckDeterminism).
//
// An op that exists only in place (it writes its first argument and no
// functional overload of its name exists: myns::scale_, ATen's
// fill_diagonal_) is fuzzed as its own in-place variant. One given explicit
// strides (as_strided_scatter) keeps the tensor they address contiguous.
//
// Some ops cannot be fuzzed this way; GenericStatus says why:
//   writes its arguments (fuzzed as the out=/in-place variant of another);
//   its result is the layout itself (as_strided, stride, is_contiguous,
//   view);
//   no tensor argument and no out= form (nothing has a layout; a factory
//   with an out= form, arange or eye, is fuzzed through that form alone,
//   OpSpec::out_only);
//   no kernel for dense CPU or CUDA tensors in this build (sparse-,
//   quantized- or other backend-only ops, and the copies of their views:
//   _values_copy, Note [Copies of views]);
//   an argument of a type dpfuzz does not generate (Dimname, Device...)
//   but a str: a case file holds a recorded str, so an op with one (and
//   no other undrawable argument) is fuzzed from its seeds alone
//   (OpSpec::seeds_only).
//
// An op whose dispatcher entry has a nested kernel (ATen's NestedTensorCPU
// and NestedTensorCUDA entries, a loaded library's too) gets a generic
// nested spec beside its dense one, listed as "nested:aten::sin", unless a
// curated nested spec of that name exists (generators/ops_nested.cc).
//
//   absl::StatusOr<OpSpec> spec = GenericOpSpec("aten::add", "Tensor");

#ifndef DPFUZZ_GENERATORS_SCHEMA_SPEC_H_
#define DPFUZZ_GENERATORS_SCHEMA_SPEC_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/op_spec.h"
#include "generators/registered_overloads.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

// The exclusion of overloads that write their arguments.
inline constexpr char kWritesArguments[] =
    "writes its arguments (fuzzed as the out= or in-place variant of a "
    "functional overload)";

// The exclusion of layout queries (as_strided, stride, view).
inline constexpr char kResultIsLayout[] =
    "its result (or whether it succeeds) is the layout itself";

// The exclusion of ops without a kernel for dense CPU or CUDA tensors
// in this LibTorch (sparse-, quantized- or backend-only ops).
inline constexpr char kNoDenseKernel[] =
    "no kernel for dense CPU or CUDA tensors in this LibTorch";

// The exclusion of ops that read no tensor and have no out= form.
inline constexpr char kNoTensorArgument[] =
    "no tensor argument and no out= form: no layout to vary";

// The exclusions of nested specs: of ops whose dispatcher entry has no
// nested kernel, and of any that writes (nested cases are judged for
// functional calls).
inline constexpr char kNoNestedKernel[] =
    "no kernel for nested tensors in this LibTorch";
inline constexpr char kNestedWritesArguments[] =
    "writes its arguments (nested tensors are fuzzed in functional calls "
    "only)";

// Why `name` cannot get a generic spec; "" when it can. NotFound when it
// is not registered.
absl::StatusOr<std::string> GenericExclusion(const OverloadName& name);

// Whether `name` has a kernel for dense tensors on `device`, its own or a
// composite one. An op whose only dense kernel is CUDA's (cudnn_*,
// _scaled_mm, batch_norm_stats) rejects every CPU case, and the reverse;
// GenericExclusion above holds for some device, this for the one fuzzed.
bool HasKernelOn(const OverloadName& name, Device device);

// One argument an overload reads: all but out= (an in-place op's self
// is read too).
struct ReadArgument {
  std::string name;
  std::string type;  // "Tensor", "int[]": optional and SymInt spelled
                     // as their plain types.
  bool required;     // No default, not optional.
  bool optional;     // Of an optional type: None is a value it takes.
};

// The arguments `name` reads, in order; empty when it is not registered.
std::vector<ReadArgument> ReadArgumentsOf(const OverloadName& name);

// True for private ops ("_softmax") and random ones (see above).
bool IsPrivateOp(const OverloadName& name);
bool IsRandomOp(const OverloadName& name);

// Whether `name` has a nested kernel of its own on `device`
// (NestedTensorCPU, NestedTensorCUDA: ATen's nested entries and a loaded
// library's TORCH_LIBRARY_IMPL(ns, NestedTensorCPU, m)).
bool HasNestedKernelOn(const OverloadName& name, Device device);

// Why `name` cannot get a generic nested spec; "" when it can. NotFound
// when it is not registered.
absl::StatusOr<std::string> GenericNestedExclusion(const OverloadName& name);

// The generic nested spec of `name` ("nested:aten::sin"): its schema's
// arguments nested (generators/nested_args.h), the first tensor and those
// of its shape, judged against the contiguous nested baseline of the same
// values (oracles/nested_case.h; no reference beside it, since what the op
// means on a nested tensor is not known from its schema). FailedPrecondition
// with the exclusion's reason, NotFound when it is not registered.
absl::StatusOr<OpSpec> GenericNestedOpSpec(const OverloadName& name);

// The generic spec of `name`; FailedPrecondition with the exclusion's
// reason, NotFound when it is not registered.
absl::StatusOr<OpSpec> GenericOpSpec(const OverloadName& name);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_SCHEMA_SPEC_H_
