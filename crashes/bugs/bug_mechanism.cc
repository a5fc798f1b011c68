#include "crashes/bugs/bug_mechanism.h"

#include <algorithm>
#include <regex>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "crashes/bugs/bug.h"

namespace dpfuzz {
namespace {

const TensorSpec* SpecNamed(const Case& c, const std::string& name) {
  const Argument* arg = FindArgument(c, name);
  return arg != nullptr ? std::get_if<TensorSpec>(&arg->value) : nullptr;
}

std::string RoleOf(const Finding& f, const std::string& argument) {
  if (argument.empty()) return "";
  if (absl::StrContains(argument, ",")) return "shared";
  const std::vector<std::string> written = WrittenArgumentsOf(f.c);
  if (std::find(written.begin(), written.end(), argument) != written.end()) {
    return "out";
  }
  if (NamesAResult(argument)) return "result";
  if (absl::StrContains(argument, "grad")) return "grad_output";
  if (const TensorSpec* spec = SpecNamed(f.c, argument)) {
    if (spec->dtype == DType::kBool) return "mask";
    if (IsIntegral(spec->dtype)) return "index";
  }
  return "input";
}

// "../aten/src/ATen/native/Foo.cpp":12 in an internal assert's text, as
// "aten/src/ATen/native/Foo.cpp:12"; "" when it names none.
std::string AssertLocation(const std::string& error) {
  static const std::regex kAt(R"re(FAILED at "(?:\.\./)*([^"]+)":(\d+))re");
  std::smatch m;
  if (!std::regex_search(error, m, kAt)) return "";
  return absl::StrCat(m[1].str(), ":", m[2].str());
}

// The crash key a crash finding's signature ends with, "" when none.
std::string CrashKeyOf(const Finding& f) {
  const size_t bar = f.signature.rfind('|');
  return bar == std::string::npos ? "" : f.signature.substr(bar + 1);
}

// Whether a crash key names a function of LibTorch's (a C++ qualified name,
// "at::native::ctc_loss_cpu"), which says where the kernel died; glibc's
// message alone ("free():_invalid_pointer": heap corruption noticed later)
// or library names alone ("libtorch_cpu.so>libgomp.so.N") say nothing of
// which kernel, and would make one class of unrelated ops.
bool NamesAFunction(const std::string& key) {
  return absl::StrContains(key, "::");
}

bool SaysViewNeedsReshape(const std::string& error) {
  const std::string lower = absl::AsciiStrToLower(error);
  return absl::StrContains(lower, "view size is not compatible") ||
         absl::StrContains(lower, ".reshape(...) instead");
}

// A mechanism's argument in backquotes; without one (a class whose
// members name theirs differently), its role in words.
std::string Quoted(const BugMechanism& m) {
  if (!m.argument.empty()) return absl::StrCat("`", m.argument, "`");
  if (m.role == "out") return "its out= tensor";
  if (m.role == "result") return "a result";
  if (m.role == "grad_output") return "a gradient input";
  if (m.role == "index") return "an index tensor";
  if (m.role == "mask") return "a mask";
  if (m.role == "input") return "an input";
  return "an argument";
}

}  // namespace

std::string NormalizedErrorLine(const std::string& error) {
  std::string line = error.substr(0, error.find('\n'));
  static const std::regex kBracketed(R"(\[[^\]]*\])");
  static const std::regex kQuoted(R"('[^']*')");
  static const std::regex kNumber(R"(-?\b\d+(\.\d+)?\b)");
  line = std::regex_replace(line, kBracketed, "[...]");
  line = std::regex_replace(line, kQuoted, "'...'");
  line = std::regex_replace(line, kNumber, "N");
  return std::string(absl::StripAsciiWhitespace(line)).substr(0, 160);
}

BugMechanism MechanismOf(const Finding& f) {
  const Evidence& e = f.outcome.evidence;
  BugMechanism m;
  m.argument = f.blame.culprit;
  if (!e.mechanism.empty()) {
    m.name = e.mechanism;
    if (!e.mechanism_argument.empty()) m.argument = e.mechanism_argument;
  } else if (f.outcome.verdict == Verdict::kRejectionMismatch) {
    m.name = SaysViewNeedsReshape(e.error) ? "view_not_reshape" : "rejects";
    if (m.name == "rejects") m.detail = NormalizedErrorLine(e.error);
  } else if (f.outcome.verdict == Verdict::kInternalAssert &&
             !AssertLocation(e.error).empty()) {
    m.name = "internal_assert_at";
    m.detail = AssertLocation(e.error);
  } else if (f.outcome.verdict == Verdict::kCrash &&
             NamesAFunction(CrashKeyOf(f))) {
    m.name = "crash_at";
    m.detail = CrashKeyOf(f);
  } else if (f.blame.feature == "odd_unit_stride") {
    m.name = "size_one_stride_used";
  } else if (IsCostVerdict(f.outcome.verdict)) {
    m.name = "unexplained_cost";
  } else {
    m.name = "unexplained";
  }
  m.role = RoleOf(f, m.argument);
  return m;
}

bool Explains(const BugMechanism& m) {
  return m.name != "unexplained" && m.name != "unexplained_cost";
}

bool NamesAResult(const std::string& name) {
  // An argument may be named "output"; results are "output 0", "grad of x".
  return absl::StartsWith(name, "output ") ||
         absl::StartsWith(name, "grad of ");
}

namespace {

// Each mechanism's title and explanation; $ARG stands for its argument in
// backquotes, $DETAIL for its detail.
struct MechanismText {
  const char* name;
  const char* title;
  const char* explanation;
};

constexpr MechanismText kMechanismTexts[] = {
    {"writes_as_contiguous", "writes $ARG as if it were contiguous",
     "These kernels write their results through the data pointer of $ARG "
     "row by row, ignoring its strides. Right-sized but transposed or sliced "
     "with steps, it gets its values scrambled, or the memory between its "
     "elements overwritten."},
    {"writes_ignoring_offset", "writes $ARG ignoring its storage offset",
     "These kernels write $ARG at its strides from the start of its storage. "
     "A view with a storage offset (a narrow or a select) gets nothing, and "
     "the memory before it is overwritten."},
    {"writes_past_end", "writes past the end of $ARG",
     "These kernels write more elements than $ARG holds, one after another "
     "from its data pointer, as if it had another size (the unreduced values "
     "of a reduction, say). The memory after it is overwritten: the rest of a "
     "larger tensor it was sliced from, or past its allocation, the heap."},
    {"leaves_unwritten", "leaves elements of $ARG unwritten when it is strided",
     "These kernels leave some elements of $ARG, when it is strided, as they "
     "were, and write the rest right: the results are computed elsewhere (a "
     "contiguous temporary) and not all copied back. The caller reads stale "
     "values with no error."},
    {"fills_result_as_contiguous",
     "fills a result it lays out strided as if it were contiguous",
     "These kernels allocate a result in their input's memory format "
     "(channels_last, permuted) and then fill it row by row. The result's "
     "values come back scrambled."},
    {"reads_as_contiguous", "reads $ARG as if it were contiguous",
     "These kernels read $ARG as if it were contiguous: its memory taken row "
     "by row from the data pointer, ignoring its strides. Transposed, "
     "channels_last, sliced or expanded, it gives wrong values, or values "
     "from outside the view."},
    {"walks_in_memory_order",
     "walks the positions of $ARG in memory order, not row-major order",
     "These kernels visit the positions of $ARG in the order its elements "
     "lie in memory, where the op promises row-major order: what depends on "
     "that order (a source consumed, a running count) lands at other "
     "positions when $ARG is transposed or channels_last."},
    {"reads_components_as_contiguous",
     "reads the components of nested $ARG as if they were contiguous",
     "These nested-tensor kernels read the buffer of $ARG as if its "
     "components lay in it contiguous, one after another, ignoring their "
     "strides and offsets. Transposed, gapped or reordered components (a "
     "transpose(1, 2), a view) give wrong values with no error."},
    {"reads_ignoring_offset", "reads $ARG ignoring its storage offset",
     "These kernels read $ARG at its strides from the start of its storage. "
     "A view with a storage offset (a narrow or a select) is read as the "
     "elements before it."},
    {"replaces_out", "replaces a right-size $ARG with other strides or memory",
     "These kernels resize or restride $ARG although it already has the "
     "result's size, or put the result in new memory. The caller's view of "
     "that memory (the tensor $ARG was sliced from) never sees the result."},
    {"marks_out_conj", "returns $ARG with a conjugate or negative bit set",
     "These kernels hand back $ARG marked conjugate or negated, so its memory "
     "holds other values than it reads as. Another view of the same memory "
     "reads them wrong."},
    {"returns_other_tensor", "returns a tensor other than $ARG",
     "These out= overloads return a tensor other than the one they were "
     "given. Code that uses the returned tensor and the out= tensor as one "
     "sees two."},
    {"drops_memory_format", "drops the memory format of $ARG",
     "Given $ARG channels_last (4-d) or channels_last_3d (5-d), these ops "
     "return a result in another memory format, where PyTorch's module tests "
     "hold them to keep it. A channels_last model then pays a conversion, or "
     "a slow path, at the next op."},
    {"reads_outside_view", "reads memory outside its arguments' views",
     "Their results hold memory that lies outside every argument's view. "
     "Which mistake reads it no simulation found."},
    {"view_not_reshape", "calls .view() on $ARG where .reshape() is needed",
     "These ops call .view() on $ARG (or a tensor derived from it), which "
     "fails for strides a reshape handles. Transposed or sliced, it is "
     "rejected although the op is defined for it."},
    {"rejects", "rejects a layout of $ARG: \"$DETAIL\"",
     "These ops raise \"$DETAIL\" for $ARG when it is strided, and accept "
     "the same values contiguous. The check rejects a layout the op is "
     "defined for."},
    {"internal_assert_at", "fails the internal assert at $DETAIL",
     "A strided argument reaches the internal assert at $DETAIL, which the "
     "contiguous one passes. An internal assert is an invariant the code "
     "believed to hold."},
    {"crash_at", "crashes at $DETAIL",
     "A strided argument makes the process die at $DETAIL. The contiguous "
     "one runs clean."},
    {"size_one_stride_used", "uses the stride of a size-one dim of $ARG",
     "These kernels use the stride of a dim of size one of $ARG, which places "
     "no element and may be anything. The same call with only that stride "
     "made canonical is right."},
    {"unexplained", "unexplained: no layout mistake reproduces it",
     "No layout mistake dpfuzz simulates reproduces the wrong result. It "
     "stands alone until one does."},
    {"unexplained_cost", "unexplained: a cost measured, not simulated",
     "A strided $ARG makes the op leak, allocate or take far more than a "
     "contiguous copy of it would cost (the evidence has the measurement). "
     "dpfuzz simulates no cause of a cost, so it stands alone."},
};

std::string Filled(const BugMechanism& m, bool title) {
  for (const MechanismText& t : kMechanismTexts) {
    if (m.name != t.name) continue;
    return absl::StrReplaceAll(title ? t.title : t.explanation,
                               {{"$ARG", Quoted(m)}, {"$DETAIL", m.detail}});
  }
  return title ? m.name : "";
}

}  // namespace

std::string MechanismTitle(const BugMechanism& m) { return Filled(m, true); }

std::string MechanismExplanation(const BugMechanism& m) {
  return Filled(m, false);
}

}  // namespace dpfuzz
