// The issue of a finding: `issue.md`, what a PyTorch bug report needs, with
// a short self-contained Python snippet instead of dpfuzz's full repro.
//
// MakeIssueSnippet writes the snippet (at most kMaxIssueSnippetLines
// lines, `torch` alone): each tensor argument is built the way people build
// that layout (explicit values, then slicing with steps, .t(), .permute(),
// .unfold(), .expand(), .contiguous(memory_format=...); as_strided only
// where no chain of view ops gives it, generators/view_chain.h). It calls
// the op the finding's case calls, through torch.ops, on that
// layout and on a contiguous copy, and performs the check of the finding's
// verdict in a few lines (crashes/repro/repro_plan.h says which): results
// compared with torch.testing.assert_close (exactly, or with its default
// tolerances for ops that accumulate), gradients, which side raises, an
// INTERNAL ASSERT FAILED, memory outside the written views, the out=
// tensor's place, or only the call for a crash. It exits 1 while the bug
// shows (a crash: death by a signal), 0 once fixed. Values are listed
// exactly; tensors too large to list take zeros/ones/arange when their
// values are those, else arange values (`values_changed`). Memory around
// a view holds NaN (integers: dpfuzz's poison value; bool: True) where the
// bug may read or write it.
//
// Nothing here claims more than was seen: CheckIssueSnippet runs the
// snippet with the track's Python (kReproPython, the torch of the LibTorch
// under test) and IssueMarkdown says what it printed, that it did not
// reproduce, or why it was not run, pointing at repro.py then.
//
//   absl::StatusOr<IssueCheck> check =
//       WriteIssue(finding, "findings/mismatch-cat-0123", "dpfuzz --op=cat",
//                  120);
//   // findings/mismatch-cat-0123/issue.md, issue.py
//
// The snippet of known_findings/masked_scatter-noncontiguous-self-memory-order
// (its long lines cut here):
//
//   import torch
//
//   self_ = torch.full((2, 4), torch.nan, dtype=torch.complex64)[:, ::2]...
//       [(3.0+0.125j), (-4.0+0.25j)], [(-3.375+3.75j), (-0.375-1.75j)]])).t()
//   mask = torch.full((5,), True)[1::3].fill_(True)
//   source = torch.full((5, 2), torch.nan, dtype=torch.complex64)[3:]...
//       [(-8.0-4.0j), (5.0+3.0j)], [(0.0+1.0j), (0.0-4.0j)]])).t()
//
//   def call(self_, mask, source):
//       return torch.ops.aten.masked_scatter_.default(self_, mask, source)
//
//   args = [self_, mask, source]
//   dense = [t.clone(memory_format=torch.contiguous_format) for t in args]
//   expected = call(*dense)
//   actual = call(*args)
//   print("expected:", expected)
//   print("actual:  ", actual)
//   torch.testing.assert_close(actual, expected, rtol=0, atol=0,
//   equal_nan=True)
//
// crashes/bugs/issue_markdown.cc implements the issue.md half
// (CheckIssueSnippet, IssueMarkdown, WriteIssue).

#ifndef DPFUZZ_CRASHES_BUGS_ISSUE_SNIPPET_H_
#define DPFUZZ_CRASHES_BUGS_ISSUE_SNIPPET_H_

#include <atomic>
#include <string>

#include "absl/status/statusor.h"
#include "crashes/findings/finding.h"

namespace dpfuzz {

inline constexpr char kIssueFile[] = "issue.md";
inline constexpr char kIssueSnippetFile[] = "issue.py";
// One screen. The tensors take a line each, the call and the check about
// twelve more: an op of many tensors (a norm's backward with five inputs
// and three out= tensors, lu_unpack's out= with four, an RNN's weights)
// needs more than 25, and a snippet that long is still one a maintainer
// writes for such an op.
inline constexpr int kMaxIssueSnippetLines = 40;

struct IssueSnippet {
  std::string python;
  int lines = 0;
  bool uses_as_strided = false;  // Some layout no view chain gives.
  bool values_changed = false;   // Some tensor holds arange values instead
                                 // of the case's (too many to list).
};

// Pure text, nothing runs. An error when the verdict is no finding, the op
// has no spec, or the check needs more than a snippet says (values of
// random ops or tied indices, layout promises of functional calls, more
// than kMaxIssueSnippetLines lines).
absl::StatusOr<IssueSnippet> MakeIssueSnippet(const Finding& finding);

struct IssueCheck {
  bool ran = false;
  bool reproduces = false;  // Exit 1 (without an unexpected Python error)
                            // or death by a signal.
  // "reproduces (exit 1)", "reproduces (signal 6 (Aborted))", "does not
  // reproduce (exit 0)", "failed: ...", or why it was not run.
  std::string result;
  std::string output;  // What it printed (stdout and stderr), when run.
  std::string python;  // "/usr/bin/python3 (torch 1.13.0a0)", when run.
};

// Runs `python` (a snippet) with kReproPython in a new temporary directory,
// when that Python's torch is the LibTorch under test.
// `cancel`: as in common/run_process.h.
IssueCheck CheckIssueSnippet(const std::string& python, double timeout_seconds,
                             const std::atomic<bool>* cancel = nullptr);

// Title, what is wrong in two sentences, the ```python block, what it
// printed when checked (or that it did not reproduce, or was not checked,
// and why: then repro.py), versions, the command that found it. An empty
// snippet.python: no snippet, check.result says why.
std::string IssueMarkdown(const Finding& finding, const IssueSnippet& snippet,
                          const IssueCheck& check, const std::string& command);

// Makes, checks and writes <dir>/issue.md and <dir>/issue.py (the snippet
// alone, when there is one), each atomically; returns the check.
absl::StatusOr<IssueCheck> WriteIssue(
    const Finding& finding, const std::string& dir, const std::string& command,
    double timeout_seconds, const std::atomic<bool>* cancel = nullptr);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_BUGS_ISSUE_SNIPPET_H_
