#include "crashes/bugs/confidence.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <regex>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "crashes/bugs/evidence_order.h"
#include "generators/contract_rules.h"
#include "generators/layout_features.h"
#include "generators/materialize.h"
#include "generators/op_registry.h"
#include "generators/values.h"
#include "oracles/compare.h"
#include "oracles/invoke.h"
#include "oracles/nested_case.h"
#include "oracles/run_case.h"

namespace dpfuzz {
namespace {

// The tensors of argument `name` of `c` (one, or a Tensor[]'s elements).
std::vector<const TensorSpec*> SpecsOfArgument(const Case& c,
                                               const std::string& name) {
  std::vector<const TensorSpec*> specs;
  const Argument* arg = FindArgument(c, name);
  if (arg == nullptr) return specs;
  if (const auto* t = std::get_if<TensorSpec>(&arg->value)) specs.push_back(t);
  if (const auto* list = std::get_if<std::vector<TensorSpec>>(&arg->value)) {
    for (const TensorSpec& t : *list) specs.push_back(&t);
  }
  return specs;
}

// The layout precondition a rejection's error states, its first line; ""
// when it states none: contiguity or a memory format asked for, or a
// requirement ("must") on strides or the storage offset (view_as_complex:
// "Tensor must have a last dimension with stride 1"), or a check on them
// that TORCH_CHECK or TORCH_INTERNAL_ASSERT words ("Expected
// X.is_contiguous(memory_format) to be true", "infos.is_contiguous()
// INTERNAL ASSERT FAILED"), or a case the op says it does not support yet
// ("NestedTensor does not support reductions when the input is
// noncontiguous for now").
std::string StatedLayoutPrecondition(const std::string& error) {
  const std::string line = error.substr(0, error.find('\n'));
  const std::string lower = absl::AsciiStrToLower(line);
  for (absl::string_view words :
       {"requires contiguous", "is not contiguous", "expected contiguous",
        "supports contiguous", "supported for contiguous", "only contiguous",
        "non-contiguous", "noncontiguous", "unsupported memory format"}) {
    if (absl::StrContains(lower, words)) return line;
  }
  static const std::regex kNotYet(R"(not support.*for now)");
  if (std::regex_search(lower, kNotYet)) return line;
  // Nested binary ops: "mul requires strides to match when given
  // NestedTensors".
  static const std::regex kToMatch(R"(requires (strides|offsets) to match)");
  if (std::regex_search(lower, kToMatch)) return line;
  // "must be contiguous", "expected values to be a strided and contiguous
  // tensor".
  static const std::regex kToBeContiguous(
      R"((must|to) be (an? )?(\w+ and )?contiguous)");
  if (std::regex_search(lower, kToBeContiguous)) return line;
  // A bare TORCH_CHECK on the layout words its condition: "Expected
  // X.is_contiguous(memory_format) to be true, but got false."
  // TORCH_INTERNAL_ASSERT words it "X.is_contiguous() INTERNAL ASSERT
  // FAILED".
  static const std::regex kExpectedTrue(
      R"(expected (.*) to be true|^(.*) internal assert failed)");
  std::smatch condition;
  if (std::regex_search(lower, condition, kExpectedTrue)) {
    for (absl::string_view words :
         {"contiguous", "stride", "memory_format", "storage_offset"}) {
      if (absl::StrContains(condition[1].str() + condition[2].str(), words)) {
        return line;
      }
    }
  }
  const bool on_layout = absl::StrContains(lower, "stride") ||
                         absl::StrContains(lower, "storage_offset") ||
                         absl::StrContains(lower, "storage offset");
  return on_layout && absl::StrContains(lower, "must") ? line : "";
}

// The first line of `error` when it says the op has no derivative ("the
// derivative for 'aten::quantize_per_tensor_dynamic' is not implemented"),
// else "".
std::string NoDerivative(const std::string& error) {
  const std::string line = error.substr(0, error.find('\n'));
  static const std::regex kNoDerivative(R"(derivative for .* not implemented)");
  return std::regex_search(absl::AsciiStrToLower(line), kNoDerivative) ? line
                                                                       : "";
}

// The first line of `error` when it says the input is singular
// ("linalg.inv: The diagonal element 3 is zero, the inversion could not be
// completed because the input matrix is singular."), else "".
std::string Singular(const std::string& error) {
  const std::string line = error.substr(0, error.find('\n'));
  return absl::StrContains(absl::AsciiStrToLower(line), "singular") ? line : "";
}

// The first line of `error` when it checks a tensor's rank ("t.dim() == 1
// INTERNAL ASSERT FAILED", "expected 3-D `query`, got 2-D tensor"), else "".
std::string RankCheck(const std::string& error) {
  const std::string line = error.substr(0, error.find('\n'));
  const std::string lower = absl::AsciiStrToLower(line);
  static const std::regex kDimCheck(R"(dim\(\) *(==|!=|>=|<=|>|<) *\d)");
  static const std::regex kRankWords(R"(\b(expected|got|be) (an? )?\d-?d\b)");
  static const std::regex kDimsCount(R"(\bexpected \d+ dims? but\b)");
  return std::regex_search(lower, kDimCheck) ||
                 std::regex_search(lower, kRankWords) ||
                 std::regex_search(lower, kDimsCount)
             ? line
             : "";
}

// Whether a tensor the op reads (an argument it does not write, a
// grad_output) holds NaN or an infinity.
bool ReadsNonFinite(const Case& c) {
  const std::vector<std::string> written = WrittenArgumentsOf(c);
  std::vector<const TensorSpec*> read;
  for (const Argument& a : c.args) {
    if (std::count(written.begin(), written.end(), a.name) > 0) continue;
    for (const TensorSpec* t : SpecsOfArgument(c, a.name)) read.push_back(t);
  }
  for (const TensorSpec& g : c.grad_outputs) read.push_back(&g);
  constexpr uint32_t kNonFinite = kSpecialNaN | kSpecialPosInf | kSpecialNegInf;
  return std::any_of(read.begin(), read.end(), [](const TensorSpec* t) {
    const ValueRecipe& v = t->values;
    return (ApplicableSpecials(v.specials, t->dtype) & kNonFinite) != 0 ||
           std::any_of(v.data.begin(), v.data.end(),
                       [](double x) { return !std::isfinite(x); });
  });
}

// The features that make the view a case's `size` and `stride` arguments
// describe (as_strided_scatter's target) share memory, "" when it has
// none or the case has no such arguments. Writes through such a view land
// in an order PyTorch leaves undefined.
std::string SharedViewOfSizeAndStride(const Case& c) {
  const Argument* size = FindArgument(c, "size");
  const Argument* stride = FindArgument(c, "stride");
  const Dims* sizes = size ? std::get_if<Dims>(&size->value) : nullptr;
  const Dims* strides = stride ? std::get_if<Dims>(&stride->value) : nullptr;
  if (sizes == nullptr || strides == nullptr ||
      sizes->size() != strides->size()) {
    return "";
  }
  const uint32_t shared =
      ComputeLayoutFeatures(StridedLayout{*sizes, *strides, 0}) &
      (kFeatureZeroStride | kFeatureOverlapping);
  return shared == 0 ? "" : LayoutFeaturesToString(shared);
}

// The case's `accumulate` (the schema's default where the case leaves it
// out); nullopt when the op has none.
std::optional<bool> AccumulateOf(const Case& c) {
  if (const Argument* given = FindArgument(c, "accumulate")) {
    if (const bool* on = std::get_if<bool>(&given->value)) return *on;
  }
  const OpSpec* spec = FindOpFor(c);
  if (spec == nullptr) return std::nullopt;
  absl::StatusOr<c10::OperatorHandle> op =
      OperatorFor(*spec, Variant::kFunctional);
  if (!op.ok()) return std::nullopt;
  for (const c10::Argument& arg : op->schema().arguments()) {
    if (arg.name() == "accumulate" && arg.default_value().has_value() &&
        arg.default_value()->isBool()) {
      return arg.default_value()->toBool();
    }
  }
  return std::nullopt;
}

// The index argument whose values repeat when the case passes
// accumulate=False, "" otherwise: which of the writes to one position
// lands is then undefined (PyTorch's docs of index_put_ and put_). A
// repeat within one tensor of several (index_put's indices) may not name
// one position twice: such a case is still judged low, never hidden.
std::string RepeatedIndexWithoutAccumulate(const Case& c) {
  if (AccumulateOf(c).value_or(true)) return "";
  for (const Argument& a : c.args) {
    if (!absl::StrContains(a.name, "index") &&
        !absl::StrContains(a.name, "indices")) {
      continue;
    }
    for (const TensorSpec* spec : SpecsOfArgument(c, a.name)) {
      if (spec->dtype != DType::kInt64) continue;
      absl::StatusOr<MaterializedTensor> m = Materialize(*spec);
      if (!m.ok()) continue;
      // On the host: a case on CUDA materializes there when a GPU is.
      const at::Tensor flat =
          m->tensor.detach().reshape({-1}).cpu().contiguous();
      std::vector<int64_t> v(flat.data_ptr<int64_t>(),
                             flat.data_ptr<int64_t>() + flat.numel());
      std::sort(v.begin(), v.end());
      if (std::adjacent_find(v.begin(), v.end()) != v.end()) return a.name;
    }
  }
  return "";
}

// A printed element that is a number: not "nan", "inf" or "-inf" (nor a
// complex with such a part).
bool IsFiniteText(const std::string& text) {
  return !absl::StrContains(text, "nan") && !absl::StrContains(text, "inf");
}

}  // namespace

absl::string_view ConfidenceName(Confidence confidence) {
  return confidence == Confidence::kHigh ? "high" : "low";
}

std::vector<std::string> WrittenArgumentsOf(const Case& c) {
  if (c.variant != Variant::kOut && c.variant != Variant::kInplace) return {};
  const OpSpec* spec = FindOpFor(c);
  if (spec != nullptr) {
    absl::StatusOr<c10::OperatorHandle> op = OperatorFor(*spec, c.variant);
    if (op.ok()) return WrittenArguments(*op);
  }
  return {c.variant == Variant::kOut ? "out" : "self"};
}

// Note [Findings that need no layout]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Blame's "no_layout": the finding still shows with every argument made
// contiguous and unshared. A functional or in-place call is then the very
// call its baseline made, on the same values, so what differs is what the
// op read beyond its arguments (the poison past an argument's end, memory
// it never initialized) or a kernel that is not deterministic: arguments
// that do not fit each other (a pooling window of size 0, random samples
// of the wrong shape) and never a layout. An out= call is not its
// baseline's even then (the functional call allocates its result), and an
// out= kernel that mishandles any out= tensor (one of the right size
// replaced by new memory) stays a bug. A death with every argument
// contiguous, in any variant, is a crash whatever the layout: arguments
// outside the op's domain that it does not check (a noise shorter than
// self, indices past the input that a reduction left valid for a larger
// one), which dpfuzz cannot tell from a crash on valid ones; a layout bug
// it is not, so it is low too. Nor is a call with a nested argument its
// baseline's: blame makes the components dense where they lie in their
// buffer, the baseline builds them anew (nested linear_backward reads the
// buffer's tail past its components; a nested select with a negative dim
// corrupts the heap).
ConfidenceJudgement ConfidenceOf(const Finding& f, bool reduced) {
  const Case& c = f.c;
  // Wherever it is worded: an internal assert may state one too
  // ("as_strided_scatter is currently only supported for contiguous
  // inputs").
  if (f.outcome.verdict == Verdict::kRejectionMismatch ||
      f.outcome.verdict == Verdict::kInternalAssert) {
    // The error's own words; each rule's reason quotes its first line.
    struct ErrorRule {
      std::string (*match)(const std::string& error);
      const char* before;
      const char* after;
    };
    static constexpr ErrorRule kErrorRules[] = {
        {&StatedLayoutPrecondition, "the op states a layout precondition (\"",
         "\"): a restriction it may document, a bug only where the op "
         "promises to take any layout"},
        // An op without a derivative may still pass a gradient through on
        // one path (quantize_per_tensor_dynamic returns its f16 input
        // itself when contiguous): which path raises is no layout bug.
        {&NoDerivative, "the op states it has no derivative (\"",
         "\"): its gradient is undefined whichever layout reaches it"},
        // A singular matrix factored in another order (a layout decides
        // whether LU works on A or its transpose) rounds to an exact zero
        // pivot in one order and to a tiny one in the other.
        {&Singular, "the op says its input is singular (\"",
         "\"): whether rounding in one layout's order reaches an exact zero "
         "pivot is numerical, not a layout bug"},
        // Both calls get tensors of the same sizes: a rank one of them
        // checks and the other lets pass is outside the op's domain (a
        // per-channel weight of rank 3), and the call that passed it lacks
        // a check.
        {&RankCheck, "one call checks a tensor's rank (\"",
         "\") that the other lets pass, on tensors of the same sizes: "
         "arguments outside the op's domain, which only one path checks"},
    };
    for (const ErrorRule& rule : kErrorRules) {
      const std::string line = rule.match(f.outcome.evidence.error);
      if (!line.empty()) {
        return {Confidence::kLow,
                absl::StrCat(rule.before, line.substr(0, 120), rule.after)};
      }
    }
  }
  if (f.outcome.verdict == Verdict::kDeviceMismatch) {
    // Note [Device differences by design] in oracles/device_compare.cc.
    const std::vector<std::string> written = WrittenArgumentsOf(c);
    const std::string first = absl::StrCat(
        written.empty() ? "output 0" : written.front(), " on cuda");
    if (f.outcome.evidence.where != first) {
      return {
          Confidence::kLow,
          absl::StrCat("CUDA and the CPU differ in ", f.outcome.evidence.where,
                       ", not in the op's first result: kernels of different "
                       "devices may fill auxiliary outputs (indices into "
                       "workspaces, saved statistics) differently")};
    }
  }
  for (absl::string_view culprit : absl::StrSplit(f.blame.culprit, ',')) {
    const std::string reason = AssumedContiguous(c.op, culprit);
    if (!reason.empty()) {
      return {Confidence::kLow,
              absl::StrCat("it needs a strided `", culprit, "`, and ", reason)};
    }
  }
  if (const std::string index = RepeatedIndexWithoutAccumulate(c);
      !index.empty()) {
    return {Confidence::kLow,
            absl::StrCat(index,
                         " repeats a position and accumulate is False: "
                         "which write lands there is undefined (PyTorch's "
                         "docs of index_put_ and put_)")};
  }
  if (f.blame.feature == "no_layout" && IsDeath(f.outcome.verdict) &&
      !HasNestedTensor(c)) {
    // Note [Findings that need no layout]
    return {Confidence::kLow,
            "it dies with every argument contiguous and unshared: a crash "
            "whatever the layout, of arguments the op may not take (out of "
            "range, of shapes that do not fit), not a layout bug"};
  }
  if (f.blame.feature == "no_layout" && c.variant != Variant::kOut &&
      !HasNestedTensor(c)) {
    return {Confidence::kLow,
            "it shows with every argument contiguous and unshared, where "
            "the call is the baseline's own: its result depends on more "
            "than its arguments' values (memory past an argument's end, "
            "uninitialized memory, a nondeterministic kernel), not on a "
            "layout"};
  }
  if (const std::string shared = SharedViewOfSizeAndStride(c);
      !shared.empty()) {
    return {
        Confidence::kLow,
        absl::StrCat("the view that `size` and `stride` describe is ", shared,
                     ": which of the writes to one of its positions "
                     "lands is undefined")};
  }
  if (!c.aliases.empty()) {
    std::vector<std::string> shared;
    for (const Alias& a : c.aliases) {
      shared.push_back(absl::StrCat(a.arg, " shares memory with ", a.base));
    }
    return {Confidence::kLow,
            absl::StrCat(absl::StrJoin(shared, ", "),
                         ": PyTorch does not support written tensors that "
                         "overlap their inputs (it rejects some such calls; "
                         "resizing such an out= is deprecated)")};
  }
  for (const std::string& name : WrittenArgumentsOf(c)) {
    for (const TensorSpec* spec : SpecsOfArgument(c, name)) {
      const uint32_t shared = ComputeLayoutFeatures(spec->layout) &
                              (kFeatureZeroStride | kFeatureOverlapping);
      if (shared == 0) continue;
      return {
          Confidence::kLow,
          absl::StrCat(name, " is written and ", LayoutFeaturesToString(shared),
                       ": PyTorch does not support writing to a tensor "
                       "whose elements share memory (out= or in-place on "
                       "an expanded or overlapping tensor)")};
    }
  }
  if (!f.outcome.evidence.ill_conditioned.empty()) {
    return {Confidence::kLow, f.outcome.evidence.ill_conditioned};
  }
  if (const std::string& expected = f.outcome.evidence.expected;
      (f.outcome.verdict == Verdict::kMismatch ||
       f.outcome.verdict == Verdict::kGradMismatch) &&
      !expected.empty() && !IsFiniteText(expected) && HoldsUnusualValues(c)) {
    return {Confidence::kLow,
            absl::StrCat("the baseline's value where they differ is ", expected,
                         " and the inputs hold special values (inf, NaN, "
                         "huge or tiny): non-finite values propagate in the "
                         "order of a kernel's arithmetic, which a layout "
                         "changes")};
  }
  // A NaN or infinity where they differ, not the poison of a gap, on
  // inputs that hold such values (that the finding needs: reduced).
  const Evidence& e = f.outcome.evidence;
  const bool non_finite_difference =
      (f.outcome.verdict == Verdict::kMismatch ||
       f.outcome.verdict == Verdict::kNanIntroduced ||
       f.outcome.verdict == Verdict::kGradMismatch) &&
      ((!e.expected.empty() && !IsFiniteText(e.expected)) ||
       (!e.actual.empty() && !IsFiniteText(e.actual))) &&
      !absl::StrContains(e.detail, kPoisonNote);
  if (const OpSpec* spec = FindOpFor(c);
      spec != nullptr && spec->comparison == Comparison::kTolerance &&
      non_finite_difference && reduced && ReadsNonFinite(c)) {
    return {Confidence::kLow,
            "they differ in a NaN or infinity, on inputs that hold NaN or "
            "infinities, of an op whose order of arithmetic is its own (it "
            "is compared with a tolerance): inf - inf or 0 * inf gives NaN "
            "in one order and a number in another, and a layout changes "
            "the order"};
  }
  return {Confidence::kHigh, ""};
}

}  // namespace dpfuzz
