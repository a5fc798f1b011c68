#include "crashes/bugs/bug_mechanism.h"

#include <algorithm>
#include <regex>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
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
  if (absl::StartsWith(argument, "output")) return "result";
  const std::vector<std::string> written = WrittenArgumentsOf(f.c);
  if (std::find(written.begin(), written.end(), argument) != written.end()) {
    return "out";
  }
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

bool SaysViewNeedsReshape(const std::string& error) {
  const std::string lower = absl::AsciiStrToLower(error);
  return absl::StrContains(lower, "view size is not compatible") ||
         absl::StrContains(lower, ".reshape(...) instead");
}

// A mechanism's argument in backquotes, or "an argument".
std::string Quoted(const BugMechanism& m) {
  return m.argument.empty() ? "an argument" : absl::StrCat("`", m.argument, "`");
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
             f.signature.rfind('|') != std::string::npos) {
    m.name = "crash_at";
    m.detail = f.signature.substr(f.signature.rfind('|') + 1);
  } else if (f.blame.feature == "odd_unit_stride") {
    m.name = "size_one_stride_used";
  } else {
    m.name = "unexplained";
  }
  m.role = RoleOf(f, m.argument);
  return m;
}

bool Explains(const BugMechanism& m) { return m.name != "unexplained"; }

std::string MechanismTitle(const BugMechanism& m) {
  const std::string arg = Quoted(m);
  if (m.name == "writes_as_contiguous") {
    return absl::StrCat("writes ", arg, " as if it were contiguous");
  }
  if (m.name == "writes_ignoring_offset") {
    return absl::StrCat("writes ", arg, " ignoring its storage offset");
  }
  if (m.name == "fills_result_as_contiguous") {
    return "fills a result it lays out strided as if it were contiguous";
  }
  if (m.name == "reads_as_contiguous") {
    return absl::StrCat("reads ", arg, " as if it were contiguous");
  }
  if (m.name == "reads_ignoring_offset") {
    return absl::StrCat("reads ", arg, " ignoring its storage offset");
  }
  if (m.name == "reads_outside_view") {
    return "reads memory outside its arguments' views";
  }
  if (m.name == "view_not_reshape") {
    return absl::StrCat("calls .view() on ", arg,
                        " where .reshape() is needed");
  }
  if (m.name == "rejects") {
    return absl::StrCat("rejects a strided ", arg, ": \"", m.detail, "\"");
  }
  if (m.name == "internal_assert_at") {
    return absl::StrCat("fails the internal assert at ", m.detail);
  }
  if (m.name == "crash_at") return absl::StrCat("crashes at ", m.detail);
  if (m.name == "size_one_stride_used") {
    return absl::StrCat("uses the stride of a size-one dim of ", arg);
  }
  return absl::StrCat("unexplained: no layout mistake reproduces it");
}

std::string MechanismExplanation(const BugMechanism& m) {
  const std::string arg = Quoted(m);
  if (m.name == "writes_as_contiguous") {
    return absl::StrCat(
        "These kernels write their results through ", arg,
        "'s data pointer row by row, ignoring its strides. A right-size ",
        arg,
        " that is transposed or sliced with steps gets its values "
        "scrambled, or the memory between its elements overwritten.");
  }
  if (m.name == "writes_ignoring_offset") {
    return absl::StrCat(
        "These kernels write ", arg,
        " at its strides from the start of its storage. A view with a "
        "storage offset (a narrow or a select) gets nothing, and the memory "
        "before it is overwritten.");
  }
  if (m.name == "fills_result_as_contiguous") {
    return "These kernels allocate a result in their input's memory format "
           "(channels_last, permuted) and then fill it row by row. The "
           "result's values come back scrambled.";
  }
  if (m.name == "reads_as_contiguous") {
    return absl::StrCat(
        "These kernels read ", arg,
        " as if it were contiguous: its memory taken row by row from the "
        "data pointer, ignoring its strides. A transposed, channels_last, "
        "sliced or expanded ",
        arg, " gives wrong values, or values from outside the view.");
  }
  if (m.name == "reads_ignoring_offset") {
    return absl::StrCat(
        "These kernels read ", arg,
        " at its strides from the start of its storage. A view with a "
        "storage offset (a narrow or a select) is read as the elements "
        "before it.");
  }
  if (m.name == "reads_outside_view") {
    return "Their results hold memory that lies outside every argument's "
           "view. Which mistake reads it no simulation found.";
  }
  if (m.name == "view_not_reshape") {
    return absl::StrCat(
        "These ops call .view() on ", arg,
        " (or a tensor derived from it), which fails for strides a reshape "
        "handles. A transposed or sliced ",
        arg, " is rejected although the op is defined for it.");
  }
  if (m.name == "rejects") {
    return absl::StrCat(
        "These ops raise \"", m.detail, "\" for a strided ", arg,
        " and accept the same values contiguous. The check rejects a layout "
        "the op is defined for.");
  }
  if (m.name == "internal_assert_at") {
    return absl::StrCat(
        "A strided argument reaches the internal assert at ", m.detail,
        ", which the contiguous one passes. An internal assert is an "
        "invariant the code believed to hold.");
  }
  if (m.name == "crash_at") {
    return absl::StrCat(
        "A strided argument makes the process die at ", m.detail,
        ". The contiguous one runs clean.");
  }
  if (m.name == "size_one_stride_used") {
    return absl::StrCat(
        "These kernels use the stride of a dim of size one of ", arg,
        ", which places no element and may be anything. The same call with "
        "only that stride made canonical is right.");
  }
  return "No layout mistake dpfuzz simulates reproduces the wrong result. "
         "It stands alone until one does.";
}

}  // namespace dpfuzz
