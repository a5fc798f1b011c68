// The issue.md half of crashes/bugs/issue_snippet.h: running a snippet with
// the track's Python and judging how it ended (CheckIssueSnippet), the
// text of issue.md (IssueMarkdown), and writing both files (WriteIssue).

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "common/files.h"
#include "common/run_process.h"
#include "common/status_macros.h"
#include "crashes/bugs/bug.h"
#include "crashes/bugs/issue_snippet.h"
#include "crashes/repro/python_repro_check.h"
#include "crashes/repro/repro_plan.h"
#include "crashes/repro/repro_text.h"
#include "crashes/repro/warm_python.h"
#include "generators/geometry.h"
#include "generators/layout_features.h"
#include "generators/op_registry.h"

namespace dpfuzz {

using absl::StrAppend;
using absl::StrCat;
using absl::StrJoin;

namespace {

// An argument and its layout, in c10's notation and in words:
// {"out", "f32 [1, 1]@[0, 2]+2", "strided along size-1 dims"}.
struct Culprit {
  std::string name;
  std::string layout;
  std::string words;
};

// The words of a layout's features, or of `feature` alone when given
// ("permuted" -> "transposed" for a 2-d tensor).
std::vector<std::string> FeatureWords(const StridedLayout& layout,
                                      const std::string& feature) {
  static constexpr std::pair<LayoutFeature, const char*> kWords[] = {
      {kFeaturePermuted, "permuted"},
      {kFeatureChannelsLast, "channels_last"},
      {kFeatureChannelsLast3d, "channels_last_3d"},
      {kFeatureGapped, "sliced with a step"},
      {kFeatureOffset, "at a storage offset"},
      {kFeatureZeroStride, "expanded"},
      {kFeatureOverlapping, "overlapping itself"},
      {kFeatureOddUnitStride, "strided along size-1 dims"}};
  std::vector<std::string> words;
  const uint32_t features = ComputeLayoutFeatures(layout);
  for (const auto& [bit, word] : kWords) {
    if (feature.empty() ? (features & bit) != 0
                        : LayoutFeatureName(bit) == feature) {
      words.push_back(
          bit == kFeaturePermuted && layout.dim() == 2 ? "transposed" : word);
    }
  }
  return words;
}

// A nested tensor's components in words: those of their layouts ("nested,
// its components transposed"), or of where they lie in their buffer.
std::string NestedWords(const TensorSpec& spec, const std::string& feature) {
  if (feature == "nested_component_order") {
    return "nested, its components out of order or apart in their buffer";
  }
  const std::string own = absl::StartsWith(feature, "nested_")
                              ? feature.substr(std::string("nested_").size())
                              : "";
  std::vector<std::string> words;
  for (const StridedLayout& component : spec.components) {
    for (const std::string& word : FeatureWords(component, own)) {
      if (std::find(words.begin(), words.end(), word) == words.end()) {
        words.push_back(word);
      }
    }
  }
  return words.empty()
             ? "nested"
             : StrCat("nested, its components ", StrJoin(words, ", "));
}

Culprit Describe(const std::string& name, const TensorSpec& spec,
                 const std::string& feature) {
  if (spec.is_nested()) {
    return {
        name,
        StrCat(DTypeName(spec.dtype), " ", ComponentsToString(spec.components)),
        NestedWords(spec, feature)};
  }
  return {name, StrCat(DTypeName(spec.dtype), " ", LayoutToString(spec.layout)),
          feature == "dtype"
              ? StrCat("of dtype ", DTypeName(spec.dtype))
              : StrJoin(FeatureWords(spec.layout, feature), ", ")};
}

// A tensor of a case: the argument (or "grad_output", as blame names the
// gradients given) and the name a snippet gives it.
struct NamedSpec {
  std::string argument;
  std::string name;
  TensorSpec spec;
};

// Every tensor of `c`, its grad_outputs last.
std::vector<NamedSpec> TensorsOf(const Case& c) {
  std::vector<NamedSpec> out;
  for (const Argument& arg : c.args) {
    std::vector<TensorSpec> specs;
    if (const auto* t = std::get_if<TensorSpec>(&arg.value)) specs = {*t};
    if (const auto* l = std::get_if<std::vector<TensorSpec>>(&arg.value)) {
      specs = *l;
    }
    for (size_t i = 0; i < specs.size(); ++i) {
      out.push_back(
          {arg.name,
           StrCat(arg.name, specs.size() > 1 ? StrCat("[", i, "]") : ""),
           specs[i]});
    }
  }
  for (size_t k = 0; k < c.grad_outputs.size(); ++k) {
    out.push_back(
        {"grad_output", StrCat("grad_output_", k), c.grad_outputs[k]});
  }
  return out;
}

// The argument a finding is about: the blamed one (else, where the blame
// names none of the arguments, the first strided one); unblamed, the one
// its simulated mechanism names, else the first named in `first`, else
// the only strided one. None when several are strided and nothing says
// which matters: a title names no argument it has not tried.
std::optional<Culprit> CulpritOf(const Finding& f,
                                 const std::vector<std::string>& first) {
  const std::string blamed =
      f.blame.culprit.substr(0, f.blame.culprit.find(','));
  const std::string named =
      blamed.empty() ? f.outcome.evidence.mechanism_argument : blamed;
  std::vector<Culprit> strided;
  std::optional<Culprit> in_first;
  for (const NamedSpec& t : TensorsOf(f.c)) {
    if (!named.empty() && t.argument == named) {
      return Describe(t.name, t.spec, blamed.empty() ? "" : f.blame.feature);
    }
    if (!in_first && std::count(first.begin(), first.end(), t.argument) != 0) {
      in_first = Describe(t.name, t.spec, "");
    }
    if (!IsPlain(t.spec)) strided.push_back(Describe(t.name, t.spec, ""));
  }
  if (in_first) return in_first;
  if (!strided.empty() && (!blamed.empty() || strided.size() == 1)) {
    return strided.front();
  }
  return std::nullopt;
}

struct VerdictText {
  Verdict verdict;
  const char* verb;  // Title: "<op> <verb> when <argument> is <words>".
  const char* what;  // "With <argument> as <layout>, <op> <what>."
};

constexpr VerdictText kTexts[] = {
    {Verdict::kMismatch, "gives wrong values",
     "returns other values than on contiguous copies"},
    {Verdict::kNanIntroduced, "returns NaN",
     "returns NaN where contiguous copies give numbers"},
    {Verdict::kRejectionMismatch, "raises an error for one layout only",
     "raises an error on one of two layouts of the same values only"},
    {Verdict::kInternalAssert, "hits INTERNAL ASSERT FAILED",
     "fails with INTERNAL ASSERT FAILED"},
    {Verdict::kInputModified, "modifies an input",
     "changes memory of an argument it only reads"},
    {Verdict::kOutsideWrite, "writes outside its output",
     "writes memory outside the view it was given to write"},
    {Verdict::kGradMismatch, "gives wrong gradients",
     "gives other gradients than on contiguous copies"},
    {Verdict::kLayoutContract, "does not keep its out= tensor",
     "moves or restrides the out= tensor of the right size it was given"},
    {Verdict::kDeviceMismatch, "gives other results on CUDA than on the CPU",
     "returns other values on CUDA than on the CPU"},
    {Verdict::kLeak, "leaks memory",
     "leaves more memory allocated after every call, its results freed"},
    {Verdict::kMemoryAmplification, "uses far more memory",
     "allocates far more than on contiguous copies plus the copies"},
    {Verdict::kPerfCliff, "is far slower",
     "runs far slower than on contiguous copies plus making the copies"},
    {Verdict::kCrash, "crashes", "kills the process"},
    {Verdict::kTimeout, "hangs", "does not return"},
    {Verdict::kOom, "runs out of memory", "exhausts memory"},
};

// A functional call's layout promise is about its result (its memory
// format, its strides, a nested result's metadata), not an out=.
constexpr VerdictText kResultLayout = {
    Verdict::kLayoutContract, "returns a result of another layout",
    "returns a result whose layout breaks what PyTorch promises for it"};

constexpr char kReproPy[] =
    "`repro.py` beside this file rebuilds the case exactly as dpfuzz ran it.";

}  // namespace

IssueCheck CheckIssueSnippet(const std::string& python, double timeout_seconds,
                             const std::atomic<bool>* cancel) {
  IssueCheck check;
  const std::string& torch = ReproPythonTorchVersion();
  const absl::StatusOr<std::string> dir = MakeTempDirectory("dpfuzz_issue_");
  const std::string path = StrCat(dir.ok() ? *dir : "", "/", kIssueSnippetFile);
  const absl::Status status =
      dir.ok() ? WriteFileAtomically(path, python, "snippet") : dir.status();
  if (torch.empty()) {
    check.result = StrCat("not run: ", kReproPython, " cannot import torch");
  } else if (ReleaseOf(torch) != ReleaseOf(LibTorchVersion())) {
    check.result = StrCat("not run: ", kReproPython, " has torch ", torch,
                          ", not LibTorch ", LibTorchVersion());
  } else if (!status.ok()) {
    check.result = StrCat("not run: ", status.message());
  } else {
    const ProcessResult r = RunReproPython(
        path, static_cast<int>(std::ceil(std::max(timeout_seconds, 1.0))),
        cancel);
    check.ran = !r.cancelled;
    check.output = r.output;
    check.python = StrCat(kReproPython, " (torch ", torch, ")");
    // An uncaught error other than the snippet's assertion is the snippet
    // failing, not the bug showing: the first unindented line after the
    // last traceback names it.
    std::string error;
    const size_t at = r.output.rfind("Traceback (most recent call last)");
    for (absl::string_view line : absl::StrSplit(
             at == std::string::npos ? "" : r.output.substr(at), '\n')) {
      if (error.empty() && !line.empty() && line[0] != ' ' && line[0] != 'T') {
        error = std::string(line);
      }
    }
    const bool raised =
        !error.empty() && !absl::StartsWith(error, "AssertionError");
    if (r.cancelled) {
      check.result = kCheckCutShort;
    } else if (r.signal != 0 ||
               (r.exited && r.exit_status == 1 && !raised && !r.timed_out)) {
      check.reproduces = true;
      check.result = StrCat("reproduces (", Describe(r), ")");
    } else if (r.exited && r.exit_status == 0) {
      check.result = "does not reproduce (exit 0)";
    } else {
      check.result =
          StrCat("failed: ", Describe(r), raised ? ", " + error : "");
    }
  }
  if (dir.ok()) RemoveTree(*dir);
  return check;
}

std::string IssueMarkdown(const Finding& finding, const IssueSnippet& snippet,
                          const IssueCheck& check, const std::string& command) {
  const VerdictText* text = &kTexts[0];
  for (const VerdictText& t : kTexts) {
    if (t.verdict == finding.outcome.verdict) text = &t;
  }
  // The plan of the repro: the schema called, what its check demands.
  const OpSpec* spec = FindOpFor(finding.c);
  const absl::StatusOr<ReproPlan> plan =
      spec == nullptr
          ? absl::NotFoundError("no op spec")
          : BuildReproPlan(finding.c, *spec, finding.outcome.verdict);
  const std::string op =
      plan.ok() ? StrCat(plan->schema_name, plan->overload.empty() ? "" : ".",
                         plan->overload)
                : QualifiedOpName(finding.c);
  // Where the bug needs no layout (a baseline failure), none is named; a
  // write outside a view or a moved out= is first about the written ones.
  const Verdict v = finding.outcome.verdict;
  if (v == Verdict::kLayoutContract &&
      finding.c.variant == Variant::kFunctional) {
    text = &kResultLayout;
  }
  const bool baseline = finding.outcome.kind == FindingKind::kBaselineFailure;
  const std::optional<Culprit> culprit =
      baseline ? std::nullopt
               : CulpritOf(finding, plan.ok() && (v == Verdict::kOutsideWrite ||
                                                  v == Verdict::kLayoutContract)
                                        ? plan->written
                                        : std::vector<std::string>{});
  // The title's end and the first sentence's start: the arguments that
  // share memory, the culprit's layout, or none.
  const Blame& b = finding.blame;
  std::string subject = baseline ? " on contiguous arguments" : "";
  std::string with = "On contiguous arguments, ";
  if (!baseline && !finding.c.aliases.empty() &&
      (b.feature == "aliasing" || b.culprit.empty())) {
    // Who shares with whom: the case's aliases (the blame names only the
    // written side).
    std::vector<std::string> who;
    for (const Alias& a : finding.c.aliases) {
      for (const std::string& n : {a.arg, a.base}) {
        if (std::find(who.begin(), who.end(), n) == who.end()) who.push_back(n);
      }
    }
    std::vector<std::string> parts;
    for (const std::string& name : who) {
      const Argument* arg = FindArgument(finding.c, name);
      const auto* spec =
          arg == nullptr ? nullptr : std::get_if<TensorSpec>(&arg->value);
      if (spec != nullptr) {
        parts.push_back(StrCat("`", name, "` as ", DTypeName(spec->dtype), " ",
                               LayoutToString(spec->layout)));
      }
    }
    subject = StrCat(" when `", StrJoin(who, "` and `"), "` share memory");
    with = StrCat("With ", StrJoin(parts, " and "), " in one memory, ");
  } else if (culprit) {
    subject = culprit->words.empty()
                  ? ""
                  : StrCat(" when `", culprit->name, "` is ", culprit->words);
    with = StrCat("With `", culprit->name, "` as ", culprit->layout, ", ");
  } else if (!baseline) {
    std::vector<std::string> layouts;
    for (const NamedSpec& t : TensorsOf(finding.c)) {
      if (IsPlain(t.spec)) continue;
      const Culprit strided = Describe(t.name, t.spec, "");
      layouts.push_back(StrCat("`", t.name, "` as ", strided.layout));
    }
    if (!layouts.empty()) {
      subject = " on strided arguments";
      with = StrCat("With ", StrJoin(layouts, ", "),
                    " (which of them the bug needs is not known yet), ");
    }
  }
  const Evidence& e = finding.outcome.evidence;
  std::string out = StrCat(
      "# ", op, " ", text->verb, subject, "\n\n", with, "`", op, "` ",
      text->what, ". ",
      // Where it looked: a gradient of an expanded leaf is compared
      // per memory location, not per element as the snippet prints.
      !e.detail.empty()
          ? StrCat("dpfuzz saw", e.where.empty() ? "" : StrCat(" in ", e.where),
                   ": ", e.detail, ".")
      : !e.error.empty() ? StrCat("The error: ", e.error, ".")
      : plan.ok()        ? StrCat("The check: ", CheckDescription(*plan))
                         : "",
      "\n\n");
  if (const ConfidenceJudgement c = ConfidenceOf(finding);
      c.confidence == Confidence::kLow) {
    StrAppend(&out, "Low confidence: ", c.reason, ".\n\n");
  }
  if (snippet.python.empty()) {
    StrAppend(&out, "No short snippet: ", check.result, ". ", kReproPy, "\n");
  } else {
    StrAppend(&out, "```python\n", snippet.python, "```\n\n",
              snippet.uses_as_strided
                  ? "(`as_strided` where no chain of view ops gives the "
                    "layout.)\n"
                  : "",
              snippet.values_changed
                  ? "(Some tensors hold `arange` values, not the case's: too "
                    "many to list.)\n"
                  : "");
    if (!check.ran) {
      StrAppend(&out, "Not checked (", check.result, "). ", kReproPy, "\n");
    } else {
      StrAppend(
          &out,
          check.reproduces
              ? StrCat("Checked with ", check.python, ": it ", check.result,
                       ".")
              : StrCat("**This snippet does not show the bug**: run "
                       "with ",
                       check.python, ", it ", check.result, ". ", kReproPy),
          check.output.empty()
              ? " It printed nothing.\n"
              : StrCat(" It printed:\n\n```\n", check.output,
                       absl::EndsWith(check.output, "\n") ? "" : "\n",
                       "```\n"));
    }
  }
  StrAppend(&out, "\n## Versions\n\n- LibTorch ", LibTorchVersion(),
            check.python.empty() ? "" : ", Python " + check.python,
            "\n- dpfuzz ", DpfuzzVersion(), "\n\n## Found by\n\n```\n", command,
            "\n```\n");
  return out;
}

absl::StatusOr<IssueCheck> WriteIssue(const Finding& finding,
                                      const std::string& dir,
                                      const std::string& command,
                                      double timeout_seconds,
                                      const std::atomic<bool>* cancel) {
  const absl::StatusOr<IssueSnippet> snippet = MakeIssueSnippet(finding);
  IssueCheck check;
  if (snippet.ok()) {
    check = CheckIssueSnippet(snippet->python, timeout_seconds, cancel);
    DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(
        StrCat(dir, "/", kIssueSnippetFile), snippet->python, "issue snippet"));
  } else {
    check.result = std::string(snippet.status().message());
  }
  DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(
      StrCat(dir, "/", kIssueFile),
      IssueMarkdown(finding, snippet.ok() ? *snippet : IssueSnippet{}, check,
                    command),
      "issue"));
  return check;
}

}  // namespace dpfuzz
