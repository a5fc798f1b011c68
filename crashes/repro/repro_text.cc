#include "crashes/repro/repro_text.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crashes/findings/finding.h"

namespace dpfuzz {

std::string CheckDescription(const ReproPlan& plan) {
  switch (plan.check) {
    case ReproCheck::kValues:
      return "the strided variant's results must equal the contiguous "
             "baseline's (mismatch, nan_introduced).";
    case ReproCheck::kRejection:
      return "the strided variant must raise an error exactly when the "
             "contiguous baseline does, in forward and in backward.";
    case ReproCheck::kInternalAssert:
      return "no call may fail with \"INTERNAL ASSERT FAILED\".";
    case ReproCheck::kStorage:
      return "the call may change only the storage elements that its "
             "written arguments address (input_modified, outside_write).";
    case ReproCheck::kGrads:
      return "the gradients of the strided variant must equal the "
             "contiguous baseline's.";
    case ReproCheck::kLayout:
      return plan.c.variant == Variant::kOut
                 ? "an out= call must write into its out tensors, keeping "
                   "their memory and strides, and return them."
                 : "the result must have the layout PyTorch promises "
                   "(memory_format, strides of dense inputs).";
    case ReproCheck::kDevice:
      return "the contiguous baseline's results on CUDA must equal the same "
             "call's results on the CPU (device_mismatch), within the "
             "dtype's tolerances where the op accumulates.";
    case ReproCheck::kCost:
      return plan.verdict == Verdict::kLeak
                 ? "calls of the strided variant, their results freed, must "
                   "leave no more memory allocated than the contiguous "
                   "baseline's (leak)."
             : plan.verdict == Verdict::kMemoryAmplification
                 ? "the strided variant's peak allocation must stay within "
                   "a multiple of the contiguous baseline's plus contiguous "
                   "copies of its strided arguments (memory_amplification)."
                 : "the strided variant's time per call must stay within a "
                   "multiple of the contiguous baseline's plus the time to "
                   "copy its strided arguments (perf_cliff).";
    case ReproCheck::kCall:
      return plan.verdict == Verdict::kTimeout
                 ? "the strided variant's call must finish; this script "
                   "gives it " +
                       std::to_string(kReproTimeoutSeconds) + " s."
                 : "the strided variant's call must return or raise, not "
                   "kill the process.";
  }
  return "";
}

namespace {

// `text` as comment lines of at most 79 columns.
std::string Wrapped(absl::string_view text, absl::string_view prefix) {
  std::string out;
  std::string line(prefix);
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (line.size() > prefix.size() && line.size() + 1 + word.size() > 79) {
      absl::StrAppend(&out, line, "\n");
      line = std::string(prefix);
    }
    if (line.size() > prefix.size()) line += ' ';
    absl::StrAppend(&line, word);
  }
  return absl::StrCat(out, line, "\n");
}

}  // namespace

std::string ReproHeader(const ReproPlan& plan, absl::string_view prefix) {
  const std::string p(prefix);
  // Blank comment lines carry no trailing space.
  const std::string blank(absl::StripTrailingAsciiWhitespace(prefix));
  std::string out = absl::StrCat(
      p, "dpfuzz repro: ", plan.schema_name, plan.overload.empty() ? "" : ".",
      plan.overload, " (variant ", VariantName(plan.c.variant), "), verdict ",
      VerdictName(plan.verdict), ".\n", p, "Found with LibTorch ",
      LibTorchVersion(), " by dpfuzz ", DpfuzzVersion(), ".\n", blank, "\n",
      Wrapped(absl::StrCat("Checks: ", CheckDescription(plan)), p), p,
      "Schema: ", plan.schema, "\n", blank, "\n", p,
      "The case (case.json beside this file is the source of truth):\n");
  for (absl::string_view line : absl::StrSplit(CaseToString(plan.c), '\n')) {
    absl::StrAppend(&out, p, "  ", line, "\n");
  }
  absl::StrAppend(
      &out, blank, "\n", p,
      "Every tensor argument is a view (as_strided) of an explicit storage\n",
      p,
      "holding exactly the elements dpfuzz used; POISON marks dpfuzz's "
      "poison\n",
      p,
      "in gaps and margins. The contiguous baseline holds the same logical\n",
      p, "values, each argument dense, in a storage of its own.\n", blank, "\n",
      p, "Exit status: 1 when the bug shows, 0 when it does not, 2 when the\n",
      p, "repro itself fails. A crash shows as death by a signal.\n");
  return out;
}

std::vector<std::string> ElementItems(
    const std::vector<ReproElement>& elements,
    const std::function<std::string(const ReproElement&)>& element,
    const std::function<std::string(int64_t)>& run) {
  constexpr int64_t kShortestRun = 4;
  std::vector<std::string> items;
  for (size_t i = 0; i < elements.size();) {
    size_t end = i;
    while (end < elements.size() &&
           elements[end].kind == ReproElement::Kind::kPoison) {
      ++end;
    }
    const int64_t length = static_cast<int64_t>(end - i);
    if (length >= kShortestRun) {
      items.push_back(run(length));
      i = end;
    } else {
      items.push_back(element(elements[i]));
      ++i;
    }
  }
  return items;
}

std::string WrapItems(const std::vector<std::string>& items, int indent) {
  constexpr size_t kWidth = 79;
  std::string out;
  size_t column = indent;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
    if (i > 0) {
      if (column + 1 + piece.size() > kWidth) {
        absl::StrAppend(&out, "\n", std::string(indent, ' '));
        column = indent;
      } else {
        out += ' ';
        ++column;
      }
    }
    out += piece;
    column += piece.size();
  }
  return out;
}

std::string TorchDType(DType dtype) {
  switch (dtype) {
    case DType::kBool:
      return "torch.bool";
    case DType::kUInt8:
      return "torch.uint8";
    case DType::kInt8:
      return "torch.int8";
    case DType::kInt16:
      return "torch.int16";
    case DType::kInt32:
      return "torch.int32";
    case DType::kInt64:
      return "torch.int64";
    case DType::kFloat16:
      return "torch.float16";
    case DType::kBFloat16:
      return "torch.bfloat16";
    case DType::kFloat32:
      return "torch.float32";
    case DType::kFloat64:
      return "torch.float64";
    case DType::kComplex64:
      return "torch.complex64";
    case DType::kComplex128:
      return "torch.complex128";
  }
  return "";
}

}  // namespace dpfuzz
