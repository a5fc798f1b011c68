#include "crashes/bugs/issue_snippet.h"

#include <ATen/core/function_schema.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "common/status_macros.h"
#include "crashes/repro/repro_plan.h"
#include "crashes/repro/repro_text.h"
#include "crashes/repro/snippet_values.h"
#include "generators/geometry.h"
#include "generators/layout_features.h"
#include "generators/materialize.h"
#include "generators/op_registry.h"
#include "generators/poison.h"
#include "generators/view_chain.h"
#include "oracles/nested_case.h"
#include "oracles/resource_oracles.h"
#include "oracles/run_case.h"

namespace dpfuzz {

using absl::StrAppend;
using absl::StrCat;
using absl::StrJoin;

namespace {

// One tensor argument: the statements that build it, and its view relative
// to its named base (for storage checks).
struct Built {
  std::string lines;
  std::string view;
  int64_t buffer = 0;  // Elements of the flat buffer a shared view needs.
  bool as_strided = false;
  bool changed = false;
};

// Builds `t` over a base named `base` (defined here unless `shared`, where
// the caller defines the buffer), or over an unnamed one when empty.
absl::StatusOr<Built> BuildTensor(const ReproTensor& t, const ReproStorage& s,
                                  const std::string& base, bool shared,
                                  int64_t margin, Spelling spelling,
                                  const std::string& fill) {
  if (t.dtype != s.dtype) {
    return absl::UnimplementedError(
        StrCat(t.name, " views a storage of another dtype"));
  }
  Built b;
  const std::string head = t.name + " = ";
  const auto full = [&](const Dims& sizes) {
    return StrCat("torch.full(", Tuple(sizes), ", ", fill,
                  Kwargs(t.dtype, DeviceKwarg(s), false), ")");
  };
  ViewChainOptions options;
  options.tail_margin = margin;
  options.flat_buffer = shared;
  const std::optional<ViewChain> chain = ComputeViewChain(t.layout, options);
  b.buffer =
      chain ? chain->buffer_size : static_cast<int64_t>(s.elements.size());
  std::string base_expr, pre, post;
  Values values;
  if (chain && chain->exact) {
    const std::string format =
        chain->base_format == MemoryFormat::kContiguous ? ""
        : chain->base_format == MemoryFormat::kChannelsLast
            ? ".contiguous(memory_format=torch.channels_last)"
            : ".contiguous(memory_format=torch.channels_last_3d)";
    base_expr = chain->from_buffer ? full({chain->buffer_size})
                                   : full(chain->base_sizes) + format;
    pre = StrCat(chain->from_buffer ? BaseFromBufferPython(*chain) : "",
                 ViewStepsPython(*chain, 0, chain->copy_at));
    post = ViewStepsPython(*chain, chain->copy_at, SIZE_MAX);
    const StridedLayout copied = *ApplyViewChain(*chain, chain->copy_at);
    values = ValuesAt(s, t.dtype, copied);
    if (base.empty() && !chain->from_buffer &&
        ComputeNumel(copied.sizes) == ComputeNumel(chain->base_sizes)) {
      // No gaps: the base's values, then the view ops.
      b.lines = ValuesStatement(
          head, ValuesAt(s, t.dtype, ViewChainBase(*chain)),
          format + ViewStepsPython(*chain, 0, SIZE_MAX), spelling, b.changed);
      return b;
    }
  } else {  // No chain of view ops gives the layout exactly.
    b.as_strided = true;
    const StridedLayout& l = t.layout;
    const int64_t n = static_cast<int64_t>(s.elements.size());
    pre = StrCat(".as_strided(", Tuple(l.sizes), ", ", Tuple(l.strides), ", ",
                 l.storage_offset, ")");
    values = ValuesAt(s, t.dtype, l);
    base_expr = full({n});
    if (ComputeExactOverlap(l.sizes, l.strides) != MemOverlap::kNo) {
      if (shared) {
        return absl::UnimplementedError(
            StrCat(t.name, " overlaps itself in a shared storage"));
      }
      // Elements that share memory take no copy_: the storage, listed.
      base_expr =
          ValuesStatement("", {t.dtype, {n}, s.elements, DeviceKwarg(s)}, "",
                          spelling, b.changed);
      base_expr.pop_back();  // The newline.
      values.elements.clear();
    }
  }
  b.view = pre + post;
  if (!base.empty() && !shared)
    StrAppend(&b.lines, base, " = ", base_expr, "\n");
  const std::string view = (base.empty() ? base_expr : base) + pre;
  if (values.elements.empty()) {
    StrAppend(&b.lines, head, view, post, "\n");
  } else if (const std::optional<std::string> c = Constant(values)) {
    StrAppend(&b.lines, head, view, ".fill_(", *c, ")", post, "\n");
  } else {
    StrAppend(&b.lines, ValuesStatement(head + view + ".copy_(", values,
                                        ")" + post, spelling, b.changed));
  }
  return b;
}

// torch.ops.<ns>.<name>.<overload>(...) with the plan's arguments.
std::string OpCall(const ReproPlan& plan, const std::string& prefix) {
  std::vector<std::string> parts;
  bool by_keyword = false;  // After a defaulted argument.
  for (const ReproArg& arg : plan.args) {
    by_keyword = by_keyword || arg.kind == ReproArgKind::kDefault;
    if (arg.kind == ReproArgKind::kDefault) continue;
    std::vector<std::string> names;
    for (const ReproTensor& t : plan.tensors) {
      if (t.arg == arg.name) names.push_back(t.name);
    }
    const std::string value =
        arg.kind == ReproArgKind::kTensor ? names.front()
        : arg.kind == ReproArgKind::kTensorList ||
                arg.kind == ReproArgKind::kOptionalTensorList
            ? StrCat("[", StrJoin(names, ", "), "]")
            : Literal(arg);
    parts.push_back(arg.kwarg_only || by_keyword ? arg.name + "=" + value
                                                 : value);
  }
  const size_t colons = plan.schema_name.find("::");
  const std::string op =
      StrCat("torch.ops.", plan.schema_name.substr(0, colons), ".",
             plan.schema_name.substr(colons + 2), ".",
             plan.overload.empty() ? "default" : plan.overload, "(");
  const std::string one = StrCat(prefix, op, StrJoin(parts, ", "), ")\n");
  return one.size() <= kWidth + 1
             ? one
             : StrCat(prefix, op, "\n        ", WrapItems(parts, 8), ")\n");
}

// def call(...): the op, then the gradients when `grads`; a single result
// `to_dense` when dpfuzz compared it so (Evidence::layout: a sparse result
// whose structure may agree where its values do not).
std::string CallDef(const ReproPlan& plan, bool grads, size_t returns,
                    bool to_dense, std::vector<std::string>& params) {
  std::vector<std::string> leaves, grad_outputs;
  std::string body;
  for (const ReproTensor& t : plan.tensors) {
    params.push_back(t.name);
    if (!t.requires_grad) continue;
    leaves.push_back(t.name);
    StrAppend(&body, "    ", t.name, " = ", t.name,
              ".detach().requires_grad_()\n");
  }
  if (!grads && to_dense && returns == 1) {
    std::string call = OpCall(plan, "    return ");
    call.insert(call.size() - 1, ".to_dense()");
    return body + call;
  }
  if (!grads) return body + OpCall(plan, "    return ");
  for (const ReproTensor& g : plan.grad_outputs) grad_outputs.push_back(g.name);
  params.insert(params.end(), grad_outputs.begin(), grad_outputs.end());
  return StrCat(
      body, OpCall(plan, "    out = "), "    return torch.autograd.grad(",
      returns == 1 ? "out" : "[o for o in out if o.requires_grad]", ", [",
      StrJoin(leaves, ", "), "], [", StrJoin(grad_outputs, ", "), "])\n");
}

// Memory a storage check compares, and the written views in it.
// The value the memory of a storage checked for writes outside its views
// holds (exact in every floating dtype).
constexpr char kWrittenMemoryFill[] = "-1024.0";

struct CheckedStorage {
  std::string name;
  std::vector<std::string> written_views;
};

// What a layout costs (crashes/repro/repro_python_cost.h, shortened): the
// two layouts side by side, by the counters users read: on CUDA the
// caching allocator's, on the CPU torch.profiler's memory records; or
// timeit.
std::string CostCheck(const ReproPlan& plan) {
  const ResourceOracles defaults;
  const std::string warm = "call(*dense), call(*args)  # warm-up\n";
  const bool cuda = OnCuda(plan);
  const std::string records =
      "def allocations(tensors, calls):  # each CPU allocation and free\n"
      "    with torch.profiler.profile(profile_memory=True) as p:\n"
      "        for _ in range(calls):\n"
      "            call(*tensors)\n"
      "    return [e for e in p.profiler.kineto_results.events()\n"
      "            if e.name() == \"[memory]\"]\n\n";
  if (plan.verdict == Verdict::kLeak) {
    const std::string left =
        cuda ? "def left(tensors, calls):  # CUDA bytes the calls leave\n"
               "    before = torch.cuda.memory_allocated()\n"
               "    for _ in range(calls):\n"
               "        call(*tensors)\n"
               "    return torch.cuda.memory_allocated() - before\n\n"
             : StrCat(records,
                      "def left(tensors, calls):  # CPU bytes the calls "
                      "leave\n"
                      "    return sum(e.nbytes() for e in "
                      "allocations(tensors, calls))\n\n");
    return StrCat(
        "\n", left, warm,
        "leftover = {name: left(t, 100)\n"
        "            for name, t in ((\"contiguous\", dense), (\"strided\", "
        "args))}\n",
        "print(\"bytes left allocated after 100 calls:\", leftover)\n",
        "sys.exit(1 if leftover[\"strided\"] > 0 else 0)\n");
  }
  if (plan.verdict == Verdict::kMemoryAmplification) {
    const std::string peak =
        cuda ? "def peak(tensors):  # one call's peak CUDA allocation\n"
               "    before = torch.cuda.memory_allocated()\n"
               "    torch.cuda.reset_peak_memory_stats()\n"
               "    call(*tensors)\n"
               "    return torch.cuda.max_memory_allocated() - before\n\n"
             : StrCat(records, "def peak(tensors):\n", "    live = top = 0\n",
                      "    for e in sorted(allocations(tensors, 1), key=lambda "
                      "e: e.start_ns()\n",
                      "                    if hasattr(e, \"start_ns\") else "
                      "e.start_us()):\n",
                      "        live += e.nbytes()\n",
                      "        top = max(top, live)\n", "    return top\n\n");
    return StrCat(
        "\n", peak, warm,
        "copies = sum(t.numel() * t.element_size() for t in args\n"
        "             if not t.is_contiguous())\n",
        "print(\"peak bytes: contiguous\", peak(dense), \"+ copies\", "
        "copies, \"; strided\", peak(args))\n",
        "allowed = peak(dense) + copies\n", "sys.exit(1 if peak(args) > ",
        absl::StrFormat("%g", defaults.memory_ratio),
        " * allowed and peak(args) - allowed > ", defaults.memory_excess_bytes,
        " else 0)\n");
  }
  return StrCat(
      "\ndef per_call(f):\n",
      "    return min(timeit.repeat(f, number=100, repeat=3)) / 100\n\n", warm,
      "strided = [t for t in args if not t.is_contiguous()]\n",
      "times = {\"contiguous\": per_call(lambda: call(*dense)),\n",
      "         \"copies\": per_call(lambda: [t.contiguous() for t in "
      "strided]),\n",
      "         \"strided\": per_call(lambda: call(*args))}\n",
      "print({k: f\"{v * 1e6:.1f} us\" for k, v in times.items()})\n",
      "sys.exit(1 if times[\"strided\"] > ",
      absl::StrFormat("%g", defaults.perf_ratio / 2),
      " * (times[\"contiguous\"] + times[\"copies\"]) else 0)\n");
}

// Lines that keep the memory of `storages` before the call and, after it,
// print what changed outside their written views; `changed` is true when
// anything did.
struct StorageComparison {
  std::string before;
  std::string after;
  std::string changed;
};

StorageComparison CompareStorages(const std::vector<CheckedStorage>& storages) {
  StorageComparison c;
  std::vector<std::string> changed;
  for (size_t i = 0; i < storages.size(); ++i) {
    const std::string k = i == 0 ? "" : StrCat(i);
    const std::string& s = storages[i].name;
    const bool marked = !storages[i].written_views.empty();
    StrAppend(&c.before, "before", k, " = ", s, ".clone()\n",
              marked ? StrCat("may_change", k, " = torch.zeros_like(", s,
                              ", dtype=torch.bool)\n")
                     : "");
    for (const std::string& view : storages[i].written_views) {
      StrAppend(&c.before, "may_change", k, view, ".fill_(True)\n");
    }
    changed.push_back(StrCat("changed", k, ".any()"));
    StrAppend(&c.after, "changed", k, " = (", s, " != before", k, ") & ~(", s,
              ".isnan() & before", k, ".isnan())\n",
              marked ? StrCat("changed", k, " &= ~may_change", k, "\n") : "",
              "print(\"expected:\", before", k, "[changed", k,
              "].tolist())\nprint(\"actual:  \", ", s, "[changed", k,
              "].tolist())\n");
  }
  c.changed = StrJoin(changed, " or ");
  return c;
}

// The check of the verdict (as crashes/repro/repro_python.cc's, shortened),
// after `args` and `dense` (contiguous copies of args) are defined.
std::string Check(const ReproPlan& plan,
                  const std::vector<CheckedStorage>& storages,
                  const std::vector<std::string>& names) {
  const std::string show =
      "print(\"expected:\", expected)\nprint(\"actual:  \", actual)\n";
  const std::string close = StrCat(
      "torch.testing.assert_close(actual, expected, ",
      plan.exact && plan.check != ReproCheck::kGrads ? "rtol=0, atol=0, " : "",
      plan.check == ReproCheck::kDevice ? "check_device=False, " : "",
      "equal_nan=True)\n");
  switch (plan.check) {
    case ReproCheck::kValues:
      if (plan.tied_indices) {
        // The values: indices of ties may differ (an int64 values output,
        // of an int64 self, is compared all the same).
        return StrCat(
            "expected = call(*dense)[0]  # values; indices of ties may "
            "differ\nactual = call(*args)[0]\n",
            show, close);
      }
      [[fallthrough]];
    case ReproCheck::kGrads:
      return StrCat("expected = call(*dense)\nactual = call(*args)\n", show,
                    close);
    case ReproCheck::kDevice:
      return StrCat(
          "expected = call(*[t.cpu() for t in dense])\nactual = call(*dense)\n",
          show, close);
    case ReproCheck::kRejection:
      return StrCat(
          "raised = []\nfor name, tensors in ((\"expected:\", dense), "
          "(\"actual:  \", args)):\n    try:\n        call(*tensors)\n"
          "        print(name, \"returns\")\n    except Exception as e:\n"
          "        print(name, \"raises\", repr(e).splitlines()[0])\n"
          "        raised.append(name)\n",
          plan.rejection_allowed  // An aliased out= may be rejected.
              ? "sys.exit(1 if raised == [\"expected:\"] else 0)\n"
              : "sys.exit(1 if len(raised) == 1 else 0)\n");
    case ReproCheck::kInternalAssert:
      return "print(\"expected: results or ordinary errors\")\n"
             "for tensors in (dense, args):\n    try:\n"
             "        call(*tensors)\n    except Exception as e:\n"
             "        if \"INTERNAL ASSERT FAILED\" in str(e):\n"
             "            sys.exit(\"actual:   \" + str(e))\n"
             "print(\"actual:   no INTERNAL ASSERT FAILED\")\n";
    case ReproCheck::kStorage: {
      const StorageComparison c = CompareStorages(storages);
      return StrCat(c.before, "call(*args)\n", c.after, "sys.exit(1 if ",
                    c.changed, " else 0)\n");
    }
    case ReproCheck::kLayout: {  // out=, or a memory format dropped.
      if (plan.written.empty()) {
        for (const ReproTensor& t : plan.tensors) {
          if (t.arg != "self" && t.arg != "input") continue;
          return StrCat(
              "result = call(*args)\n",
              "result = result[0] if isinstance(result, tuple) else result\n",
              "fmt = torch.channels_last if ", t.name,
              ".dim() == 4 else torch.channels_last_3d\n",
              "print(\"input: \", ", t.name, ".stride(), ", t.name,
              ".is_contiguous(memory_format=fmt))\n",
              "print(\"result:\", result.stride(), "
              "result.is_contiguous(memory_format=fmt))\n",
              "sys.exit(0 if result.is_contiguous(memory_format=fmt) else "
              "1)\n");
        }
      }
      const std::string out = StrJoin(plan.written, ", ");
      return StrCat(
          "def place(t):  # memory, strides of dims of size > 1, bits\n"
          "    return (t.data_ptr(), [s for s, n in zip(t.stride(), t.shape) "
          "if n > 1],\n            t.is_conj(), t.is_neg())\n\n"
          "expected = [place(t) for t in (",
          out, ",)]\ncall(*args)\nactual = [place(t) for t in (", out, ",)]\n",
          show, "sys.exit(0 if actual == expected else 1)\n");
    }
    case ReproCheck::kCost:
      return CostCheck(plan);
    case ReproCheck::kCall:
      break;
  }
  // A crash's written storages, with room past them: a heap overflow
  // that lands there shows every time, where free() notices it only on
  // some heaps.
  const StorageComparison c = CompareStorages(storages);
  return StrCat(
      plan.verdict == Verdict::kTimeout
          ? StrCat("faulthandler.dump_traceback_later(", kReproTimeoutSeconds,
                   ", exit=True)\n")
          : "",
      c.before, "call(*args)  # the process dies here, or in free() below\n",
      storages.empty()
          ? ""
          : StrCat(c.after, "if ", c.changed,
                   ":\n    sys.exit(\"the call wrote outside the views\")\n"),
      "del args, ", StrJoin(names, ", "), "\ngc.collect()\n",
      "print(\"the call returned\")\n");
}

// Note [Nested snippets]
// A nested argument is built as LibTorch's own nested views are, over an
// explicit buffer (dpfuzz's storage, gaps as NaN): no chain of public
// calls gives components in another order or with gaps. Its contiguous
// baseline is torch.nested.nested_tensor of its components (unbind), and
// results are compared component by component (assert_close takes the
// lists). Value, gradient and rejection checks are spelled; gradients
// with the case's grad_outputs, nested like the results.
absl::StatusOr<IssueSnippet> NestedSnippet(const ReproPlan& plan,
                                           size_t returns) {
  const bool grads = plan.check == ReproCheck::kGrads;
  if (plan.check != ReproCheck::kValues && !grads &&
      plan.check != ReproCheck::kRejection) {
    return absl::UnimplementedError(
        "a nested finding other than wrong values, gradients or a rejection: "
        "repro.py shows it");
  }
  if (plan.check == ReproCheck::kValues && plan.nondeterministic) {
    return absl::UnimplementedError(
        "its values are compared under rules (random values) that a short "
        "snippet does not spell");
  }
  IssueSnippet snippet;
  bool changed = false;
  std::string tensors;
  std::vector<std::string> dense;
  std::vector<ReproTensor> all = plan.tensors;
  if (grads) {
    all.insert(all.end(), plan.grad_outputs.begin(), plan.grad_outputs.end());
  }
  for (const ReproTensor& t : all) {
    const ReproStorage& s = plan.storages[t.storage];
    const std::string device = DeviceKwarg(s);
    if (t.components.empty()) {
      StrAppend(&tensors, ValuesStatement(StrCat(t.name, " = "),
                                          Values{t.dtype, t.layout.sizes,
                                                 t.baseline, device},
                                          "", Spelling::kList, changed));
      dense.push_back(t.name);
      continue;
    }
    std::vector<std::string> sizes, strides, offsets;
    for (const StridedLayout& c : t.components) {
      sizes.push_back(StrCat("[", StrJoin(c.sizes, ", "), "]"));
      strides.push_back(StrCat("[", StrJoin(c.strides, ", "), "]"));
      offsets.push_back(StrCat(c.storage_offset));
    }
    // The baseline: the same components, contiguous.
    const std::string dense_line =
        StrCat("dense_", t.name, " = torch.nested.nested_tensor(list(", t.name,
               ".unbind()))\n");
    StrAppend(&tensors,
              ValuesStatement(StrCat(t.name, " = nested("),
                              Values{t.dtype,
                                     {static_cast<int64_t>(s.elements.size())},
                                     s.elements,
                                     device},
                              StrCat(", [", StrJoin(sizes, ", "), "], [",
                                     StrJoin(strides, ", "), "], [",
                                     StrJoin(offsets, ", "), "])"),
                              Spelling::kList, changed),
              dense_line);
    dense.push_back(StrCat("dense_", t.name));
  }
  std::vector<std::string> params;
  const std::string def =
      CallDef(plan, grads, returns, /*to_dense=*/false, params);
  std::string body = Check(plan, {}, {});
  // One import fewer: the snippet is short.
  body = absl::StrReplaceAll(body, {{"sys.exit(", "raise SystemExit("}});
  if (plan.check != ReproCheck::kRejection) {
    body = absl::StrReplaceAll(body, {{"call(*dense)", "parts(call(*dense))"},
                                      {"call(*args)", "parts(call(*args))"}});
  }
  if (grads) {  // assert_close says where they differ: short, as it must be.
    body = absl::StrReplaceAll(body, {{"print(\"expected:\", expected)\n", ""},
                                      {"print(\"actual:  \", actual)\n", ""}});
  }
  snippet.python = StrCat(
      absl::StrContains(body, "sys.exit") ? "import sys\n" : "",
      "import torch\n\n",
      "def nested(buffer, sizes, strides, offsets):  # a view of buffer\n"
      "    return torch.ops.aten._nested_view_from_buffer(buffer, "
      "torch.tensor(sizes), torch.tensor(strides),\n"
      "        offsets if torch.__version__ < \"2\" else "
      "torch.tensor(offsets))\n",
      grads ? "def parts(gs):  # gradients, a nested one's components\n"
              "    return [p for g in gs for p in (g.unbind() if g.is_nested "
              "else [g])]\n"
      : plan.check == ReproCheck::kValues
          ? "def parts(t):  # a nested result's (or results') components\n"
            "    if t is None or isinstance(t, (tuple, list)):\n"
            "        return [p for r in t or [] for p in parts(r)]\n"
            "    return list(t.unbind()) if t.is_nested else [t]\n"
          : "",
      tensors, "\ndef call(", StrJoin(params, ", "), "):\n", def, "\nargs = [",
      StrJoin(params, ", "), "]\ndense = [", StrJoin(dense, ", "), "]\n", body);
  snippet.values_changed = changed;
  snippet.lines = static_cast<int>(
      std::count(snippet.python.begin(), snippet.python.end(), '\n'));
  if (snippet.lines > kMaxIssueSnippetLines) {
    return absl::UnimplementedError(StrCat("the nested snippet has ",
                                           snippet.lines, " lines, more than ",
                                           kMaxIssueSnippetLines));
  }
  return snippet;
}

}  // namespace

absl::StatusOr<IssueSnippet> MakeIssueSnippet(const Finding& finding) {
  const Case& c = finding.c;
  const OpSpec* spec = FindOpFor(c);
  if (spec == nullptr) {
    return absl::NotFoundError(StrCat("no op spec for ", QualifiedOpName(c)));
  }
  DPFUZZ_ASSIGN_OR_RETURN(const ReproPlan plan,
                          BuildReproPlan(c, *spec, finding.outcome.verdict));
  DPFUZZ_ASSIGN_OR_RETURN(const c10::OperatorHandle op,
                          OperatorFor(*spec, c.variant));
  const size_t returns = op.schema().returns().size();
  if (HasNestedTensor(c)) return NestedSnippet(plan, returns);
  const bool device = plan.check == ReproCheck::kDevice;
  if ((plan.check == ReproCheck::kValues || device) &&
      (plan.nondeterministic ||
       (plan.tied_indices && (returns < 2 || device)))) {
    return absl::UnimplementedError(
        "its values are compared under rules (random values, tied indices) "
        "that a short snippet does not spell");
  }
  if (plan.check == ReproCheck::kLayout && c.variant != Variant::kOut &&
      finding.outcome.evidence.mechanism != "drops_memory_format") {
    return absl::UnimplementedError(
        "a layout promise of a functional call (preserve_format, strides "
        "propagated): no short snippet checks it");
  }
  // The tensors: the arguments, and the grad_outputs when backward runs
  // and may be where the bug shows (wrong values of the op's own results
  // show in forward).
  // The resource oracles measure the forward call only.
  const bool backward =
      plan.check == ReproCheck::kGrads ||
      (plan.backward && plan.check != ReproCheck::kValues &&
       plan.check != ReproCheck::kDevice && plan.check != ReproCheck::kCost);
  std::vector<const ReproTensor*> all;
  bool grads = false;
  for (const ReproTensor& t : plan.tensors) {
    all.push_back(&t);
    grads |= t.requires_grad && backward;
  }
  for (const ReproTensor& g : plan.grad_outputs) all.push_back(&g);
  if (!grads) all.resize(plan.tensors.size());
  const auto declared = [&](const ReproTensor* t) {
    return std::count(plan.written.begin(), plan.written.end(), t->arg) > 0;
  };
  // An op that writes an argument its schema does not say it writes (the
  // CPU rrelu_with_noise fills `noise`) and writes outside that argument's
  // view: every view may change, and only memory outside them counts.
  const bool undeclared_writes = plan.verdict == Verdict::kOutsideWrite &&
                                 std::none_of(all.begin(), all.end(), declared);
  const auto written = [&](const ReproTensor& t) {
    return undeclared_writes || declared(&t);
  };
  std::vector<Spelling> spelling(all.size(), Spelling::kList);
  for (;;) {
    IssueSnippet snippet;
    std::string tensors;
    std::vector<std::string> names;
    std::vector<CheckedStorage> checked;
    for (size_t s = 0; s < plan.storages.size(); ++s) {
      const ReproStorage& storage = plan.storages[s];
      std::vector<size_t> views;
      bool writes = false;
      for (size_t i = 0; i < all.size(); ++i) {
        if (all[i]->storage != static_cast<int>(s)) continue;
        views.push_back(i);
        writes = writes || written(*all[i]);
      }
      // A named base for views that share memory, and for the memory a
      // storage check compares (the written arguments' for outside_write).
      const bool shared = views.size() > 1;
      // A crash's written storages are checked too, with room past them
      // where an overflow lands (three times what they hold).
      const bool overflow_check = plan.check == ReproCheck::kCall &&
                                  plan.verdict == Verdict::kCrash && writes;
      const bool check_it =
          !views.empty() &&
          ((plan.check == ReproCheck::kStorage &&
            (plan.verdict == Verdict::kOutsideWrite) == writes) ||
           overflow_check);
      const int64_t check_margin =
          overflow_check
              ? std::max<int64_t>(kTailMargin, 3 * static_cast<int64_t>(
                                                       storage.elements.size()))
              : kTailMargin;
      const std::string base = shared || check_it ? storage.name : "";
      // What the memory outside the views holds: NaN, which shows reads
      // outside them; where writes outside them are checked, a number no
      // op computes from the snippet's values, so that a NaN written over
      // it counts (dpfuzz compares its poison bit for bit).
      const std::string fill = check_it && IsFloating(storage.dtype)
                                   ? kWrittenMemoryFill
                                   : Fill(storage.dtype);
      if (!base.empty()) names.push_back(base);
      if (check_it) checked.push_back({base, {}});
      int64_t buffer = static_cast<int64_t>(storage.elements.size());
      std::string lines;
      for (size_t i : views) {
        // Memory past the view, where reads (of expanded views, of NaN) and
        // writes outside it show.
        const StridedLayout& l = all[i]->layout;
        const bool past = check_it ||
                          (ComputeLayoutFeatures(l) & kFeatureZeroStride) ||
                          ((l.storage_offset != 0 ||
                            l.strides != ComputeContiguousStrides(l.sizes)) &&
                           (plan.check == ReproCheck::kCall ||
                            plan.verdict == Verdict::kNanIntroduced));
        DPFUZZ_ASSIGN_OR_RETURN(const Built built,
                                BuildTensor(*all[i], storage, base, shared,
                                            check_it ? check_margin
                                            : past   ? kTailMargin
                                                     : 0,
                                            spelling[i], fill));
        StrAppend(&lines, built.lines);
        buffer = std::max(buffer, built.buffer);
        names.push_back(all[i]->name);
        snippet.uses_as_strided |= built.as_strided;
        snippet.values_changed |= built.changed;
        if (check_it && written(*all[i])) {
          checked.back().written_views.push_back(built.view);
        }
      }
      if (shared) {
        StrAppend(&tensors, base, " = torch.full((", buffer, ",), ", fill,
                  Kwargs(storage.dtype, DeviceKwarg(storage), false), ")\n");
      }
      StrAppend(&tensors, lines);
    }
    std::vector<std::string> params;
    const std::string def = CallDef(
        plan, grads, returns, !finding.outcome.evidence.layout.empty(), params);
    const std::string body = Check(plan, checked, names);
    snippet.python = StrCat(
        plan.verdict == Verdict::kTimeout ? "import faulthandler\n" : "",
        plan.check == ReproCheck::kCall ? "import gc\n" : "",
        absl::StrContains(body, "sys.exit") ? "import sys\n" : "",
        absl::StrContains(body, "timeit.") ? "import timeit\n" : "",
        "import torch\n\n", tensors, "\ndef call(", StrJoin(params, ", "),
        "):\n", def, "\nargs = [", StrJoin(params, ", "), "]\n",
        absl::StrContains(body, "dense")
            ? "dense = [t.clone(memory_format=torch.contiguous_format) for t "
              "in args]\n"
            : "",
        body);
    snippet.lines = static_cast<int>(
        std::count(snippet.python.begin(), snippet.python.end(), '\n'));
    if (snippet.lines <= kMaxIssueSnippetLines) return snippet;
    // Too long: spell the largest listed tensor compactly (first those
    // whose values that spells exactly), and try again.
    size_t pick = all.size();
    const auto rank = [&](size_t i) {
      const Values v{all[i]->dtype, all[i]->layout.sizes, all[i]->baseline};
      return std::make_pair(Constant(v).has_value() || IsArange(v),
                            ComputeNumel(all[i]->layout.sizes));
    };
    for (size_t i = 0; i < all.size(); ++i) {
      if (spelling[i] == Spelling::kList &&
          (pick == all.size() || rank(i) > rank(pick))) {
        pick = i;
      }
    }
    if (pick == all.size()) {
      return absl::UnimplementedError(
          StrCat("the shortest snippet has ", snippet.lines,
                 " lines, more than ", kMaxIssueSnippetLines));
    }
    spelling[pick] = Spelling::kCompact;
  }
}

}  // namespace dpfuzz
