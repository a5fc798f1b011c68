#include "crashes/repro/repro_python.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "crashes/repro/repro_plan.h"
#include "crashes/repro/repro_python_cost.h"
#include "crashes/repro/repro_python_prelude.h"
#include "crashes/repro/repro_text.h"

namespace dpfuzz {
namespace {

std::string Float(double value) {
  if (std::isnan(value)) return std::signbit(value) ? "-NAN" : "NAN";
  if (std::isinf(value)) return value < 0 ? "-INF" : "INF";
  const FloatText text = ExactFloatText(value);
  return text.is_hex ? absl::StrCat("float.fromhex(\"", text.text, "\")")
                     : text.text;
}

std::string Element(const ReproElement& e) {
  switch (e.kind) {
    case ReproElement::Kind::kPoison:
      return "POISON";
    case ReproElement::Kind::kInt:
      return absl::StrCat(e.integer);
    case ReproElement::Kind::kReal:
      return Float(e.real);
    case ReproElement::Kind::kComplex:
      return absl::StrCat("(", Float(e.real), ", ", Float(e.imag), ")");
  }
  return "";
}

// "[1.0, POISON, ...]", broken after "[" when the line that starts with
// `head` and ends in `tail` would pass column 79.
std::string ElementList(const std::vector<ReproElement>& elements,
                        absl::string_view head, absl::string_view tail) {
  const std::vector<std::string> items =
      ElementItems(elements, Element,
                   [](int64_t n) { return absl::StrCat("*[POISON] * ", n); });
  const std::string one_line =
      absl::StrCat("[", absl::StrJoin(items, ", "), "]");
  if (head.size() + one_line.size() + tail.size() <= 79) return one_line;
  return absl::StrCat("[\n        ", WrapItems(items, 8), "]");
}

std::string Tuple(const Dims& dims) {
  if (dims.size() == 1) return absl::StrCat("(", dims[0], ",)");
  return absl::StrCat("(", absl::StrJoin(dims, ", "), ")");
}

std::string LayoutTuple(const StridedLayout& l) {
  return absl::StrCat("(", Tuple(l.sizes), ", ", Tuple(l.strides), ", ",
                      l.storage_offset, ")");
}

std::string Quoted(absl::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '\\' || ch == '"') out += '\\';
    out += ch;
  }
  return out + "\"";
}

// "tensors[1]" for a Tensor[] element, as oracles/case_tensors.h names it.
std::string GroupName(const ReproTensor& t) {
  return t.index < 0 ? t.arg : absl::StrCat(t.arg, "[", t.index, "]");
}

std::string Literal(const ReproArg& arg) {
  const ArgValue& v = arg.value;
  switch (arg.kind) {
    case ReproArgKind::kNone:
      return "None";
    case ReproArgKind::kInt:
      return absl::StrCat(std::get<int64_t>(v));
    case ReproArgKind::kFloat:
      if (const auto* i = std::get_if<int64_t>(&v)) {
        return Float(static_cast<double>(*i));
      }
      return Float(std::get<FloatArg>(v).value);
    case ReproArgKind::kBool:
      return std::get<bool>(v) ? "True" : "False";
    case ReproArgKind::kScalar:
      if (const auto* i = std::get_if<int64_t>(&v)) return absl::StrCat(*i);
      if (const auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
      return Float(std::get<FloatArg>(v).value);
    case ReproArgKind::kString:
      return Quoted(std::get<std::string>(v));
    case ReproArgKind::kDType:
      return TorchDType(*ParseDType(std::get<std::string>(v)));
    case ReproArgKind::kMemoryFormat:
      return absl::StrCat("torch.", std::get<std::string>(v));
    case ReproArgKind::kIntList:
      return absl::StrCat("[", absl::StrJoin(std::get<Dims>(v), ", "), "]");
    case ReproArgKind::kBoolList:
      return absl::StrCat(
          "[",
          absl::StrJoin(std::get<Dims>(v), ", ",
                        [](std::string* out, int64_t d) {
                          out->append(d != 0 ? "True" : "False");
                        }),
          "]");
    default:
      return absl::StrCat("a[", Quoted(arg.name), "]");
  }
}

std::string Constants(const ReproPlan& plan) {
  std::vector<std::string> written;
  for (const std::string& w : plan.written) written.push_back(Quoted(w));
  auto py_bool = [](bool b) { return b ? "True" : "False"; };
  return absl::StrCat(
      "# ", std::string(75, '-'), "\n# The case\n# ", std::string(75, '-'),
      "\n\n", "VERDICT = ", Quoted(VerdictName(plan.verdict)), "\n",
      "WRITTEN = [", absl::StrJoin(written, ", "),
      "]  # arguments the schema writes\n",
      "# How dpfuzz compares this op's results (generators/op_spec.h):\n",
      "EXACT = ", py_bool(plan.exact),
      "  # False: assert_close tolerances, then a float64 reference\n",
      "TIED_INDICES = ", py_bool(plan.tied_indices), "\n",
      "TIE_DIM = ", plan.tie_dim ? absl::StrCat(*plan.tie_dim) : "None", "\n",
      "NONDETERMINISTIC = ", py_bool(plan.nondeterministic), "\n",
      "PROPAGATES_STRIDES = ", py_bool(plan.propagates_strides), "\n",
      "KEEPS_MEMORY_FORMAT = ", py_bool(plan.keeps_memory_format), "\n",
      "MEMORY_FORMAT = ", Quoted(plan.memory_format), "\n",
      "REJECTION_ALLOWED = ", py_bool(plan.rejection_allowed),
      "  # aliased out=/in-place arguments may be rejected\n",
      "BACKWARD = ", py_bool(plan.backward), "\n\n\n");
}

// The arguments dict: plain tensors by name, Tensor[] as lists.
std::string ArgsDict(const std::vector<ReproTensor>& tensors,
                     const std::string& prefix) {
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::string>> lists;
  for (const ReproTensor& t : tensors) {
    if (lists.find(t.arg) == lists.end()) names.push_back(t.arg);
    lists[t.arg].push_back(prefix + t.name);
  }
  std::string out = "{\n";
  for (const std::string& name : names) {
    const bool is_list =
        tensors.end() !=
        std::find_if(tensors.begin(), tensors.end(), [&](const ReproTensor& t) {
          return t.arg == name && t.index >= 0;
        });
    const std::string value =
        is_list ? absl::StrCat("[", absl::StrJoin(lists[name], ", "), "]")
                : lists[name].front();
    absl::StrAppend(&out, "        ", Quoted(name), ": ", value, ",\n");
  }
  return out + "    }";
}

// "([2, 3], [1, 2])": one Python list per component of a field.
std::string ComponentLists(const Components& components) {
  std::vector<std::string> sizes, strides, offsets;
  for (const StridedLayout& c : components) {
    sizes.push_back(absl::StrCat("[", absl::StrJoin(c.sizes, ", "), "]"));
    strides.push_back(absl::StrCat("[", absl::StrJoin(c.strides, ", "), "]"));
    offsets.push_back(absl::StrCat(c.storage_offset));
  }
  return absl::StrCat("[", absl::StrJoin(sizes, ", "), "], [",
                      absl::StrJoin(strides, ", "), "], [",
                      absl::StrJoin(offsets, ", "), "]");
}

std::string ViewLine(const ReproTensor& t, const std::string& storage) {
  if (!t.components.empty()) {
    return absl::StrCat(
        "    ", t.name, " = nested_view(", storage, ", ",
        ComponentLists(t.components),
        t.requires_grad ? ",\n                requires_grad=True" : "", ")\n");
  }
  const std::string line = absl::StrCat(
      "    ", t.name, " = view(", storage, ", ", Tuple(t.layout.sizes), ", ",
      Tuple(t.layout.strides), ", ", t.layout.storage_offset,
      t.requires_grad ? ", requires_grad=True" : "", ")");
  if (line.size() <= 79 || !t.requires_grad) return line + "\n";
  return absl::StrCat("    ", t.name, " = view(", storage, ", ",
                      Tuple(t.layout.sizes), ", ", Tuple(t.layout.strides),
                      ", ", t.layout.storage_offset,
                      ",\n                requires_grad=True)\n");
}

std::string VariantTensors(const ReproPlan& plan) {
  std::string out = absl::StrCat(
      "def variant_tensors():\n",
      "    \"\"\"The case's tensors as dpfuzz ran them: views of explicit\n",
      "    storages. Returns (arguments, grad_outputs, storages).\"\"\"\n");
  std::vector<std::string> checked;
  for (size_t s = 0; s < plan.storages.size(); ++s) {
    const ReproStorage& storage = plan.storages[s];
    std::vector<const ReproTensor*> views;
    for (const auto* list : {&plan.tensors, &plan.grad_outputs}) {
      for (const ReproTensor& t : *list) {
        if (t.storage == static_cast<int>(s)) views.push_back(&t);
      }
    }
    for (const ReproTensor* t : views) {
      absl::StrAppend(&out, "    # ", GroupName(*t), ": ", DTypeName(t->dtype),
                      " ",
                      t->components.empty() ? LayoutToString(t->layout)
                                            : ComponentsToString(t->components),
                      "\n");
    }
    const std::string head = absl::StrCat("    ", storage.name, " = storage(",
                                          TorchDType(storage.dtype), ", ");
    // A nested buffer must be the whole memory: LibTorch 1.13 checks. The
    // memory of an out= whose layout is checked ends where dpfuzz's did:
    // with room past its end, an out= that the op resizes to another shape
    // and back stays where it was, where without it moves (mse_loss.out
    // with a reduction and a 0-dim out).
    const bool exact =
        std::any_of(views.begin(), views.end(), [&plan](const ReproTensor* t) {
          return !t->components.empty() ||
                 (plan.check == ReproCheck::kLayout &&
                  std::count(plan.written.begin(), plan.written.end(), t->arg) >
                      0);
        });
    const std::string tail = absl::StrCat(
        storage.device == Device::kCpu
            ? ""
            : absl::StrCat(", device=", Quoted(DeviceName(storage.device))),
        exact ? ", guard=0" : "", ")");
    absl::StrAppend(&out, head, ElementList(storage.elements, head, tail), tail,
                    "\n");
    std::vector<std::string> roles;
    for (const ReproTensor* t : views) {
      absl::StrAppend(&out, ViewLine(*t, storage.name));
      if (t->components.empty()) {
        roles.push_back(absl::StrCat("(", Quoted(GroupName(*t)), ", ",
                                     LayoutTuple(t->layout), ")"));
      }
      for (size_t k = 0; k < t->components.size(); ++k) {
        roles.push_back(absl::StrCat(
            "(", Quoted(absl::StrCat(GroupName(*t), " component ", k)), ", ",
            LayoutTuple(t->components[k]), ")"));
      }
    }
    if (views.empty() || views.front()->arg != "grad_outputs") {
      checked.push_back(absl::StrCat(
          "        (", Quoted(storage.name), ", ", storage.name,
          ",\n         [", absl::StrJoin(roles, ",\n          "), "]),\n"));
    }
  }
  std::vector<std::string> grads;
  for (const ReproTensor& g : plan.grad_outputs) grads.push_back(g.name);
  absl::StrAppend(&out, "    args = ", ArgsDict(plan.tensors, ""), "\n",
                  "    grad_outputs = [", absl::StrJoin(grads, ", "), "]\n",
                  "    storages = [\n", absl::StrJoin(checked, ""), "    ]\n",
                  "    return args, grad_outputs, storages\n\n\n");
  return out;
}

// The baseline of `t`, on the device of its variant's storage.
std::string DenseLine(const ReproPlan& plan, const ReproTensor& t,
                      const std::string& name) {
  const Device device = plan.storages[t.storage].device;
  std::string sizes = Tuple(t.layout.sizes);
  if (!t.components.empty()) {
    std::vector<std::string> each;
    for (const StridedLayout& c : t.components) {
      each.push_back(absl::StrCat("[", absl::StrJoin(c.sizes, ", "), "]"));
    }
    sizes = absl::StrCat("[", absl::StrJoin(each, ", "), "]");
  }
  const std::string head = absl::StrCat(
      "    ", name, t.components.empty() ? " = dense(" : " = nested_dense(",
      TorchDType(t.dtype), ", ", sizes, ", ");
  const std::string tail =
      absl::StrCat(t.requires_grad ? ", requires_grad=True" : "",
                   device == Device::kCpu
                       ? ""
                       : absl::StrCat(", device=", Quoted(DeviceName(device))),
                   ")");
  return absl::StrCat(head, ElementList(t.baseline, head, tail), tail, "\n");
}

std::string BaselineTensors(const ReproPlan& plan) {
  std::string out = absl::StrCat(
      "def baseline_tensors():\n",
      "    \"\"\"The contiguous baseline: each argument dense, with the\n",
      "    variant's logical values. Returns (arguments, "
      "grad_outputs).\"\"\"\n");
  for (const ReproTensor& t : plan.tensors) {
    absl::StrAppend(&out, DenseLine(plan, t, "base_" + t.name));
  }
  std::vector<std::string> grads;
  for (const ReproTensor& g : plan.grad_outputs) {
    absl::StrAppend(&out, DenseLine(plan, g, "base_" + g.name));
    grads.push_back("base_" + g.name);
  }
  absl::StrAppend(&out, "    args = ", ArgsDict(plan.tensors, "base_"), "\n",
                  "    grad_outputs = [", absl::StrJoin(grads, ", "), "]\n",
                  "    return args, grad_outputs\n\n\n");
  return out;
}

std::string Call(const ReproPlan& plan) {
  std::vector<std::string> parts;
  bool by_keyword = false;
  for (const ReproArg& arg : plan.args) {
    if (arg.kind == ReproArgKind::kDefault) {
      by_keyword = true;  // Later arguments cannot be positional.
      continue;
    }
    const std::string value = Literal(arg);
    parts.push_back(arg.kwarg_only || by_keyword
                        ? absl::StrCat(arg.name, "=", value)
                        : value);
  }
  std::string op = plan.schema_name.substr(plan.schema_name.find("::") + 2);
  const std::string ns =
      plan.schema_name.substr(0, plan.schema_name.find("::"));
  return absl::StrCat("# ", plan.schema, "\n", "def op():\n",
                      "    \"\"\"The operator under test; main() fails (exit "
                      "2) without it.\"\"\"\n",
                      "    return torch.ops.", ns, ".", op, ".",
                      plan.overload.empty() ? "default" : plan.overload,
                      "\n\n\n", "def call(a):\n", "    return op()(\n        ",
                      WrapItems(parts, 8), ")\n\n\n");
}

// The start of every main(): the tensors.
constexpr char kMainStart[] = R"py(def main():
    op()
    variant, grad_outputs, storages = variant_tensors()
    baseline, base_grad_outputs = baseline_tensors()
)py";

// The start of a device_mismatch main(): the contiguous baseline on its
// device takes the variant's place, the same values on the CPU the
// baseline's.
constexpr char kDeviceMainStart[] = R"py(def main():
    op()
    variant, _ = baseline_tensors()
    baseline = on_cpu(variant)
)py";

constexpr char kBothCalls[] =
    R"py(    expected, b_error = attempt(call, baseline)
    actual, v_error = attempt(call, variant)
    if b_error or v_error:
        print("expected: both calls return (this check compares them)")
        print("actual:   baseline: %s; variant: %s"
              % (b_error or "returned", v_error or "returned"))
        return 0
)py";

constexpr char kValuesMain[] =
    R"py(    names, expected = results(expected, baseline)
    _, actual = results(actual, variant)
    if len(expected) != len(actual):
        print("expected: %d results (contiguous baseline)" % len(expected))
        print("actual:   %d results (strided variant)" % len(actual))
        return 1
    reference = None
    for i, name in enumerate(names):
        self_ = baseline.get("self")
        d = compare_output(expected[i], actual[i], None, self_)
        if d is not None and not EXACT:
            if reference is None:
                returned, error = attempt(call, wide)
                reference = [] if error else results(returned, wide)[1]
            ref = reference[i] if i < len(reference) else None
            if ref is not None and ref.shape != expected[i].shape:
                ref = None
            d = compare_output(expected[i], actual[i], ref, self_)
        if d is not None:
            return int(show_difference(name, d))
    show_difference("every result", None)
)py";

// The end of a values check, or of a nested one with an unbind reference.
constexpr char kValuesEnd[] = R"py(    return 0
)py";
constexpr char kUnbindReferenceEnd[] =
    R"py(    return int(unbind_reference(baseline))


def unbind_reference(baseline):
    """dpfuzz's unbind reference: component i of the contiguous nested
    baseline's result must equal the op on component i alone, as a dense
    batch of one. True when one does not."""
    returned, error = attempt(call, baseline)
    if error:
        return False
    outs = returned if isinstance(returned, (list, tuple)) else [returned]
    for o, out in enumerate(outs):
        if not (isinstance(out, torch.Tensor) and out.is_nested):
            continue
        for i, component in enumerate(out.unbind()):
            args = {}
            for k, v in baseline.items():
                nested = isinstance(v, torch.Tensor) and v.is_nested
                args[k] = v.unbind()[i].unsqueeze(0) if nested else v
            alone, error = attempt(call, args)
            if error:
                continue
            alone = alone if isinstance(alone, torch.Tensor) else alone[o]
            if alone.dim() == 0 or alone.size(0) != 1:
                continue
            d = first_difference(alone[0], component, EXACT)
            if d is not None:
                print("expected: output %d component %d%s = %r (the op on "
                      "that component alone)" % (o, i, d.get("index", ""),
                                                 d.get("expected")))
                print("actual:   %r (contiguous nested baseline); %s"
                      % (d.get("actual"), d["verdict"]))
                return True
    print("expected: every component as the op on that component alone")
    print("actual:   the same")
    return False
)py";

constexpr char kGradsMain[] = R"py(    names, inputs = grad_inputs(variant)
    expected, b_error = attempt(backward, expected, grad_inputs(baseline)[1],
                                base_grad_outputs)
    actual, v_error = attempt(backward, actual, inputs, grad_outputs)
    if b_error or v_error:
        print("expected: both backward calls return (this check compares "
              "them)")
        print("actual:   baseline: %s; variant: %s"
              % (b_error or "returned", v_error or "returned"))
        return 0
    reference = None
    for i, name in enumerate(names[:min(len(expected), len(actual))]):
        d = first_difference(expected[i], actual[i], exact=False)
        if d is not None:
            if reference is None:
                reference = reference_grads(baseline, base_grad_outputs)
            ref = reference[i] if i < len(reference) else None
            if ref is not None and ref.shape != expected[i].shape:
                ref = None
            d = first_difference(expected[i], actual[i], False, ref)
        if d is not None:
            return int(show_difference(name, d))
    show_difference("every gradient", None)
    return 0


def reference_grads(baseline, grad_outputs):
    """Gradients of the float64 reference run, [] when it fails."""
    wide = widen(baseline)
    returned, error = attempt(call, wide)
    if error:
        return []
    wide_grads = widen({"g": grad_outputs})["g"]
    grads, error = attempt(backward, returned, grad_inputs(wide)[1],
                           wide_grads)
    return grads or []
)py";

constexpr char kErrorsMain[] =
    R"py(    expected, b_error = attempt(call, baseline)
    actual, v_error = attempt(call, variant)
    if judge("forward", b_error, v_error):
        return 1
    if BACKWARD and b_error is None and v_error is None:
        _, b_error = attempt(backward, expected, grad_inputs(baseline)[1],
                             base_grad_outputs)
        _, v_error = attempt(backward, actual, grad_inputs(variant)[1],
                             grad_outputs)
        if judge("backward", b_error, v_error):
            return 1
    print("expected: %s" % EXPECTED)
    print("actual:   so it is (baseline: %s; variant: %s)"
          % (b_error or "returned", v_error or "returned"))
    return 0
)py";

constexpr char kRejectionJudge[] = R"py(

EXPECTED = "the strided variant raises exactly when the baseline does"


def judge(stage, b_error, v_error):
    """True (and prints) when exactly one side raised in `stage`."""
    if (b_error is None) == (v_error is None):
        return False
    if v_error is not None and REJECTION_ALLOWED:
        return False  # PyTorch may reject an out= that aliases an input
    if v_error is not None:
        print("expected: the strided variant's %s returns, as the contiguous "
              "baseline's does" % stage)
        print("actual:   it raised: %s" % v_error)
    else:
        print("expected: the strided variant's %s raises, as the contiguous "
              "baseline's does: %s" % (stage, b_error))
        print("actual:   it returned")
    return True
)py";

constexpr char kAssertJudge[] = R"py(

EXPECTED = "no call fails with INTERNAL ASSERT FAILED"


def judge(stage, b_error, v_error):
    """True (and prints) when a side hit an internal assert in `stage`."""
    for side, error in (("contiguous baseline", b_error),
                        ("strided variant", v_error)):
        if error is not None and "INTERNAL ASSERT FAILED" in error:
            print("expected: the %s's %s returns or raises an ordinary error"
                  % (side, stage))
            print("actual:   %s" % error)
            return True
    return False
)py";

constexpr char kStorageMain[] = R"py(    before = snapshot(storages)
    returned, error = attempt(call, variant)
    if error:
        print("expected: the call returns (this check needs its writes)")
        print("actual:   it raised: %s" % error)
        return 0
    change = storage_change(storages, before, variant)
    if change is None:
        print("expected: elements no written argument addresses unchanged")
        print("actual:   unchanged")
        return 0
    print("expected: %s" % change["where"])
    print("actual:   %s" % change["after"])
    return 1
)py";

constexpr char kLayoutMainStart[] =
    R"py(    pointers = [variant[name].data_ptr() for name in WRITTEN]
    returned, error = attempt(call, variant)
    if error:
        print("expected: the call returns (this check needs its result)")
        print("actual:   it raised: %s" % error)
        return 0
)py";

constexpr char kLayoutMainEnd[] = R"py(    if broken is None:
        print("expected: the layout PyTorch promises")
        print("actual:   kept")
        return 0
    print("expected: the layout PyTorch promises")
    print("actual:   %s" % broken)
    return 1
)py";

std::string LayoutMain(const ReproPlan& plan) {
  std::string out = kLayoutMainStart;
  if (plan.c.variant == Variant::kOut) {
    std::vector<std::string> layouts;
    for (const std::string& name : plan.written) {
      for (const ReproTensor& t : plan.tensors) {
        if (t.arg == name) {
          layouts.push_back(
              absl::StrCat(Quoted(name), ": ", LayoutTuple(t.layout)));
        }
      }
    }
    absl::StrAppend(&out, "    layouts = {", absl::StrJoin(layouts, ", "),
                    "}  # as given\n",
                    "    broken = broken_out_contract(variant, returned, "
                    "layouts, pointers)\n");
  } else {
    absl::StrAppend(&out,
                    "    broken = broken_layout_promise(variant, returned)\n");
  }
  return out + kLayoutMainEnd;
}

// Whether a storage of the case lives on a device other than the CPU.
bool OnDevice(const ReproPlan& plan) {
  return std::any_of(
      plan.storages.begin(), plan.storages.end(),
      [](const ReproStorage& s) { return s.device != Device::kCpu; });
}

std::string CallMain(const ReproPlan& plan) {
  std::string out =
      "def main():\n"
      "    op()\n"
      "    variant, grad_outputs, storages = variant_tensors()\n";
  if (plan.verdict == Verdict::kTimeout) {
    // A Python signal handler cannot run while the call is inside C++;
    // faulthandler's watchdog thread can, and exits with status 1.
    absl::StrAppend(&out, "    print(\"expected: the call finishes within ",
                    kReproTimeoutSeconds, " s\")\n",
                    "    print(\"if it does not, this script prints "
                    "'Timeout' and exits 1\",\n          flush=True)\n",
                    "    faulthandler.dump_traceback_later(",
                    kReproTimeoutSeconds, ", exit=True)\n");
  } else {
    absl::StrAppend(&out,
                    "    print(\"expected: the call returns or raises an "
                    "error, and writes\"\n",
                    "          \" nothing past the end of a storage\")\n",
                    "    print(\"calling the strided variant; if the process "
                    "dies now (a signal), \"\n",
                    "          \"the bug shows\", flush=True)\n");
  }
  absl::StrAppend(
      &out, "    returned, error = attempt(call, variant)\n",
      "    if error is None:  # Results are read as dpfuzz reads them:\n",
      "        _, error = attempt(flatten, returned)  # sparse ones "
      "densified\n",
      "    if error is None and BACKWARD:\n",
      "        _, error = attempt(backward, returned, "
      "grad_inputs(variant)[1],\n",
      "                           grad_outputs)\n",
      OnDevice(plan)
          ? "    if error is None:  # Kernels run asynchronously.\n"
            "        _, error = attempt(torch.cuda.synchronize)\n"
            "    if error and \"CUDA error\" in error:  # The context is "
            "lost.\n"
            "        print(\"actual:   the device failed: %s\"\n"
            "              % error.splitlines()[0])\n"
            "        return 1\n"
          : "",
      "    past_end = overflow(storages, variant)\n", "    if past_end:\n",
      "        print(\"actual:   the call wrote %s\" % past_end)\n",
      "        return 1\n",
      "    # Free the tensors now: a corrupted heap often aborts in free().\n",
      "    returned = variant = grad_outputs = storages = None\n",
      "    gc.collect()\n");
  if (plan.verdict == Verdict::kTimeout) {
    absl::StrAppend(&out, "    faulthandler.cancel_dump_traceback_later()\n");
  }
  if (plan.verdict == Verdict::kOom) {
    absl::StrAppend(
        &out,
        "    if error and (\"allocate\" in error or \"memory\" in error):\n",
        "        print(\"actual:   it ran out of memory: %s\" % error)\n",
        "        return 1\n");
  }
  absl::StrAppend(&out, "    print(\"actual:   the call %s\"\n",
                  "          % (\"raised: \" + error if error else "
                  "\"returned\"))\n",
                  "    return 0\n");
  return out;
}

// A values check after `start`: the float64 copies of the baseline for the
// reference run, made before an in-place call writes it; both calls; the
// comparison.
std::string ValuesCheck(const ReproPlan& plan, const char* start) {
  return absl::StrCat(start,
                      plan.exact ? ""
                                 : "    wide = widen(baseline)  # before "
                                   "an in-place call writes it\n",
                      kBothCalls, kValuesMain,
                      plan.per_component ? kUnbindReferenceEnd : kValuesEnd);
}

absl::StatusOr<std::string> Main(const ReproPlan& plan) {
  switch (plan.check) {
    case ReproCheck::kValues:
      return ValuesCheck(plan, kMainStart);
    case ReproCheck::kDevice:
      return ValuesCheck(plan, kDeviceMainStart);
    case ReproCheck::kGrads:
      return absl::StrCat(kMainStart, kBothCalls, kGradsMain);
    case ReproCheck::kRejection:
      return absl::StrCat(kMainStart, kErrorsMain, kRejectionJudge);
    case ReproCheck::kInternalAssert:
      return absl::StrCat(kMainStart, kErrorsMain, kAssertJudge);
    case ReproCheck::kStorage:
      return absl::StrCat(kMainStart, kStorageMain);
    case ReproCheck::kLayout:
      if (plan.c.variant != Variant::kOut && !plan.written.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("layout_contract for ", QualifiedOpName(plan.c),
                         " in-place: dpfuzz checks no layout promise there"));
      }
      return absl::StrCat(kMainStart, LayoutMain(plan));
    case ReproCheck::kCost:
      return PythonCostMain(plan);
    case ReproCheck::kCall:
      return CallMain(plan);
  }
  return absl::InternalError("unknown check");
}

}  // namespace

absl::StatusOr<std::string> PythonRepro(const Case& c, const OpSpec& spec,
                                        Verdict verdict) {
  DPFUZZ_ASSIGN_OR_RETURN(ReproPlan plan, BuildReproPlan(c, spec, verdict));
  DPFUZZ_ASSIGN_OR_RETURN(std::string main, Main(plan));
  return absl::StrCat(
      "#!/usr/bin/env python3\n", ReproHeader(plan, "# "), "\n",
      PythonReproPrelude(plan.check),
      plan.check == ReproCheck::kCost ? PythonCostHelpers() : "",
      Constants(plan), VariantTensors(plan), BaselineTensors(plan), Call(plan),
      main, "\n\nif __name__ == \"__main__\":\n    run(main)\n");
}

}  // namespace dpfuzz
