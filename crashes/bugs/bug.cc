#include "crashes/bugs/bug.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <system_error>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/bugs/bug_mechanism.h"
#include "crashes/bugs/evidence_order.h"
#include "crashes/bugs/findings_store.h"
#include "crashes/findings/finding_json.h"
#include "generators/case_json.h"
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

namespace fs = std::filesystem;

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

std::set<std::string> DTypesOf(const Case& c) {
  std::set<std::string> dtypes;
  for (const TensorSpec* spec : TensorSpecsOf(c)) {
    dtypes.emplace(DTypeName(spec->dtype));
  }
  return dtypes;
}

// How plain a dtype is to a reader of a bug report, plainest first:
// float32, what most code uses, then float64, the integers, bool, the
// reduced floats and complex.
int DTypePlainness(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return 0;
    case DType::kFloat64:
      return 1;
    case DType::kInt64:
      return 2;
    case DType::kInt32:
    case DType::kInt16:
    case DType::kInt8:
    case DType::kUInt8:
      return 3;
    case DType::kBool:
      return 4;
    case DType::kFloat16:
    case DType::kBFloat16:
      return 5;
    case DType::kComplex64:
    case DType::kComplex128:
      return 6;
  }
  return 7;
}

// The least plain dtype among a case's tensors.
int CasePlainness(const Case& c) {
  int plainness = 0;
  for (const TensorSpec* spec : TensorSpecsOf(c)) {
    plainness = std::max(plainness, DTypePlainness(spec->dtype));
  }
  return plainness;
}

// A finding with what ranks it within its bug: the most ordinary first
// (Note [The most ordinary lead] in fuzz/triage.cc): the least odd
// (Oddity), then a reduced one, then the most severe, the plainest dtypes,
// the smallest case.
struct Member {
  const StoredFinding* stored;
  Severity severity;
  ConfidenceJudgement confidence;
  int64_t size;
  int oddity;
  int plainness;  // CasePlainness.
  // An unexplained sibling that joined an explained bug (Note [Explained
  // siblings]): ranked after the bug's own findings, so it never leads.
  bool joined = false;
  // A case as found, not a reduction's: a smaller one is still no simpler
  // by the reducer's whole order (natural strides, plain values).
  bool unreduced = !stored->reduced;

  // A high-confidence bug is led by a finding that makes it one (a stated
  // precondition beside a rejection no rule explains is led by the
  // latter).
  auto Rank() const {
    return std::tie(joined, confidence.confidence, oddity, unreduced,
                    stored->untriaged, severity, plainness, size, stored->dir);
  }
};

Bug BugOf(std::vector<Member>& members) {
  std::sort(
      members.begin(), members.end(),
      [](const Member& a, const Member& b) { return a.Rank() < b.Rank(); });
  const Member& first = members.front();
  const Finding& f = first.stored->finding;
  Bug bug;
  bug.id = BugId(f);
  bug.key = BugKey(f);
  bug.op = QualifiedOpName(f.c);
  bug.variant = std::string(VariantName(f.c.variant));
  bug.family = VerdictFamily(f.outcome.verdict);
  bug.culprit = f.blame.culprit;
  bug.feature = f.blame.feature;
  bug.mechanism = MechanismOf(f);
  bug.picture = PictureOf(f, bug.mechanism);
  bug.severity = first.severity;
  bug.verdict = f.outcome.verdict;
  bug.detail = EvidenceLine(f.outcome.evidence);
  bug.confidence = Confidence::kLow;
  bug.untriaged = true;
  for (const Member& m : members) {
    bug.untriaged = bug.untriaged && m.stored->untriaged;
    if (bug.generality.empty()) bug.generality = m.stored->generality;
    if (m.confidence.confidence == Confidence::kHigh) {
      bug.confidence = Confidence::kHigh;
    } else if (bug.confidence_reason.empty()) {
      bug.confidence_reason = m.confidence.reason;
    }
    const std::set<std::string> dtypes = DTypesOf(m.stored->finding.c);
    bug.dtypes.insert(dtypes.begin(), dtypes.end());
    bug.hits += m.stored->hits;
    bug.findings.push_back(m.stored->dir);
    if (const std::optional<double>& seen = m.stored->first_seen_seconds;
        seen.has_value() && (!bug.first_seen_seconds.has_value() ||
                             *seen < *bug.first_seen_seconds)) {
      bug.first_seen_seconds = seen;
    }
  }
  if (bug.confidence == Confidence::kHigh) bug.confidence_reason.clear();
  // The campaign writes issue.md for the finding it checked first, which
  // need not rank first here.
  for (const Member& m : members) {
    std::error_code ec;
    const fs::path issue = fs::path(m.stored->dir) / "issue.md";
    if (fs::is_regular_file(issue, ec)) {
      bug.issue = issue.string();
      break;
    }
  }
  return bug;
}

}  // namespace

absl::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kMemory:
      return "memory";
    case Severity::kWrongValues:
      return "wrong_values";
    case Severity::kAssertOrHang:
      return "assert_or_hang";
    case Severity::kRejection:
      return "rejection";
    case Severity::kContract:
      return "layout_contract";
  }
  return "unknown";
}

absl::string_view ConfidenceName(Confidence confidence) {
  return confidence == Confidence::kHigh ? "high" : "low";
}

std::string VerdictFamily(Verdict v) {
  switch (v) {
    case Verdict::kMismatch:
    case Verdict::kNanIntroduced:
    case Verdict::kOutsideWrite:
    case Verdict::kInputModified:
    case Verdict::kDeviceMismatch:
      return "wrong_values";
    case Verdict::kGradMismatch:
      return "gradient";
    case Verdict::kRejectionMismatch:
      return "rejection";
    case Verdict::kInternalAssert:
      return "internal_assert";
    case Verdict::kCrash:
    case Verdict::kOom:
      return "crash";
    case Verdict::kTimeout:
      return "hang";
    case Verdict::kLayoutContract:
      return "layout_contract";
    case Verdict::kAgree:
    case Verdict::kBothRejected:
      break;
  }
  return std::string(VerdictName(v));
}

Severity SeverityOf(Verdict v) {
  switch (v) {
    case Verdict::kCrash:
    case Verdict::kOom:
    case Verdict::kOutsideWrite:
    case Verdict::kInputModified:
      return Severity::kMemory;
    case Verdict::kMismatch:
    case Verdict::kNanIntroduced:
    case Verdict::kGradMismatch:
    case Verdict::kDeviceMismatch:
      return Severity::kWrongValues;
    case Verdict::kInternalAssert:
    case Verdict::kTimeout:
      return Severity::kAssertOrHang;
    case Verdict::kRejectionMismatch:
      return Severity::kRejection;
    case Verdict::kLayoutContract:
    case Verdict::kAgree:
    case Verdict::kBothRejected:
      break;
  }
  return Severity::kContract;
}

namespace {

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
    const std::string stated =
        StatedLayoutPrecondition(f.outcome.evidence.error);
    if (!stated.empty()) {
      return {Confidence::kLow,
              absl::StrCat("the op states a layout precondition (\"",
                           stated.substr(0, 120),
                           "\"): a restriction it may document, a bug only "
                           "where the op promises to take any layout")};
    }
  }
  if (f.outcome.verdict == Verdict::kRejectionMismatch ||
      f.outcome.verdict == Verdict::kInternalAssert) {
    // Both calls get tensors of the same sizes: a rank one of them checks
    // and the other lets pass is outside the op's domain (a per-channel
    // weight of rank 3), and the call that passed it lacks a check.
    const std::string rank = RankCheck(f.outcome.evidence.error);
    if (!rank.empty()) {
      return {Confidence::kLow,
              absl::StrCat("one call checks a tensor's rank (\"",
                           rank.substr(0, 120),
                           "\") that the other lets pass, on tensors of the "
                           "same sizes: arguments outside the op's domain, "
                           "which only one path checks")};
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

std::vector<std::string> WrittenArgumentsOf(const Case& c) {
  if (c.variant != Variant::kOut && c.variant != Variant::kInplace) return {};
  const OpSpec* spec = FindOpFor(c);
  if (spec != nullptr) {
    absl::StatusOr<c10::OperatorHandle> op = OperatorFor(*spec, c.variant);
    if (op.ok()) return WrittenArguments(*op);
  }
  return {c.variant == Variant::kOut ? "out" : "self"};
}

std::string EvidenceLine(const Evidence& e) {
  const std::string& text = e.detail.empty() ? e.error : e.detail;
  return text.substr(0, text.find('\n'));
}

// The argument a bug is keyed by: the blamed one, else the one an
// unblamed finding's simulated mechanism names (a result names none).
std::string BugCulprit(const Finding& f) {
  const Evidence& e = f.outcome.evidence;
  if (!f.blame.culprit.empty() || e.mechanism.empty() ||
      NamesAResult(e.mechanism_argument)) {
    return f.blame.culprit;
  }
  return e.mechanism_argument;
}

std::string BugKey(const Finding& f) {
  // A nested kernel that ignores where its components lie shows with any of
  // their features (order, gaps, permuted dims): one bug, not one per
  // feature (Note [Nested features] in reducers/blame.cc).
  std::string feature = absl::StartsWith(f.blame.feature, "nested_")
                            ? std::string("nested")
                            : f.blame.feature;
  // A simulated mechanism (oracles/mechanism.h) is what the kernel does
  // wrong, of which the blamed feature is one sample: a kernel writing out
  // as if it were contiguous shows with a transposed out and with one
  // sliced with steps, one bug. It names the argument of an unblamed
  // finding too (BugCulprit).
  if (!f.outcome.evidence.mechanism.empty()) {
    feature = f.outcome.evidence.mechanism;
  }
  std::string key = absl::StrJoin(
      {QualifiedOpName(f.c), std::string(VariantName(f.c.variant)),
       BugCulprit(f), feature, VerdictFamily(f.outcome.verdict)},
      "|");
  if (f.blame.feature == "dtype") {
    absl::StrAppend(&key, "|", absl::StrJoin(DTypesOf(f.c), ","));
  }
  return key;
}

std::string BugId(const Finding& f) {
  std::string op = f.c.op.substr(f.c.op.rfind(':') + 1);
  for (char& ch : op) {
    if (!absl::ascii_isalnum(ch) && ch != '_' && ch != '.') ch = '_';
  }
  return absl::StrFormat("%s-%s-%s-%08x", op, VariantName(f.c.variant),
                         VerdictFamily(f.outcome.verdict),
                         SignatureHash(BugKey(f)) & 0xffffffffu);
}

absl::StatusOr<std::vector<StoredFinding>> ReadFindingsDir(
    const std::string& dir) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code file_ec;
    if (fs::is_regular_file(it->path() / "finding.json", file_ec)) {
      dirs.push_back(it->path().string());
    }
  }
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat("findings directory ", dir, ": ", ec.message()));
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<StoredFinding> findings;
  for (const std::string& d : dirs) {
    DPFUZZ_ASSIGN_OR_RETURN(StoredFinding stored, ReadStoredFinding(d));
    findings.push_back(std::move(stored));
  }
  return findings;
}

absl::StatusOr<StoredFinding> ReadStoredFinding(const std::string& dir) {
  const std::string path = dir + "/finding.json";
  DPFUZZ_ASSIGN_OR_RETURN(const std::string text, ReadFile(path, "finding"));
  StoredFinding stored;
  stored.dir = dir;
  DPFUZZ_ASSIGN_OR_RETURN(stored.finding, FindingFromJson(text, path));
  DPFUZZ_ASSIGN_OR_RETURN(stored.finding.c, LoadCaseFile(dir + "/case.json"));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.contains("hits") && j["hits"].is_number_integer()) {
    stored.hits = j["hits"].get<int64_t>();
  }
  if (j.contains(kFirstSeenKey) && j[kFirstSeenKey].is_number()) {
    stored.first_seen_seconds = j[kFirstSeenKey].get<double>();
  }
  stored.untriaged = j.is_object() && j.value(kUntriagedKey, false);
  stored.reduced = std::filesystem::exists(dir + "/original.json");
  if (j.is_object() && j.contains(kGeneralityKey) &&
      j[kGeneralityKey].is_object()) {
    stored.generality = j[kGeneralityKey].value("summary", "");
  }
  return stored;
}

namespace {

// Note [Explained siblings]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// A bug's key takes a simulated mechanism in the blamed feature's place
// (BugKey), so that a kernel writing out as if contiguous is one bug with
// a transposed out and a sliced one. A finding of the same kernel mistake
// that the simulation does not reach (an aliased out, whose values the
// simulation does not model; a dtype or a layout where the simulated
// values happen to differ in a rounding) keeps its blamed feature and
// would be a bug of its own: one root cause reported twice, the second
// "unexplained". So a bug no mechanism explains joins the one explained
// bug of the same op overload, variant, blamed culprit and verdict family,
// when there is exactly one; its findings rank after the explained bug's
// own, which keeps the lead, id and mechanism. Where two explained bugs
// match (two mechanisms of one argument), or the finding is not blamed,
// nothing is guessed and it stays a bug of its own.

// "op|variant|culprit|family" as BugKey names them.
std::string SiblingKey(const Finding& f, const std::string& culprit) {
  return absl::StrJoin(
      {QualifiedOpName(f.c), std::string(VariantName(f.c.variant)), culprit,
       VerdictFamily(f.outcome.verdict)},
      "|");
}

void JoinExplainedSiblings(std::map<std::string, std::vector<Member>>& groups) {
  std::map<std::string, std::vector<std::string>> explained;
  for (const auto& [key, members] : groups) {
    const Finding& f = members.front().stored->finding;
    if (f.outcome.evidence.mechanism.empty()) continue;
    explained[SiblingKey(f, BugCulprit(f))].push_back(key);
  }
  for (auto it = groups.begin(); it != groups.end();) {
    const Finding& f = it->second.front().stored->finding;
    const auto match = explained.find(SiblingKey(f, f.blame.culprit));
    if (!f.outcome.evidence.mechanism.empty() || f.blame.culprit.empty() ||
        f.blame.feature == "dtype" || match == explained.end() ||
        match->second.size() != 1) {
      ++it;
      continue;
    }
    std::vector<Member>& into = groups[match->second.front()];
    for (Member& m : it->second) {
      m.joined = true;
      into.push_back(m);
    }
    it = groups.erase(it);
  }
}

}  // namespace

std::vector<Bug> GroupBugs(const std::vector<StoredFinding>& findings) {
  std::map<std::string, std::vector<Member>> groups;
  for (const StoredFinding& s : findings) {
    const Finding& f = s.finding;
    if (f.outcome.kind != FindingKind::kLayoutBug ||
        f.dismissal != Dismissal::kNone) {
      continue;
    }
    groups[BugKey(f)].push_back(
        Member{&s, SeverityOf(f.outcome.verdict), ConfidenceOf(f, s.reduced),
               CaseSize(f.c), Oddity(f.c), CasePlainness(f.c)});
  }
  JoinExplainedSiblings(groups);
  std::vector<Bug> bugs;
  for (auto& [key, members] : groups) bugs.push_back(BugOf(members));
  std::sort(bugs.begin(), bugs.end(), [](const Bug& a, const Bug& b) {
    return std::tie(a.confidence, a.severity, b.hits, a.id) <
           std::tie(b.confidence, b.severity, a.hits, b.id);
  });
  return bugs;
}

}  // namespace dpfuzz
