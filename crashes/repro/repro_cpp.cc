#include "crashes/repro/repro_cpp.h"

#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "crashes/repro/repro_cpp_literals.h"
#include "crashes/repro/repro_cpp_prelude.h"
#include "crashes/repro/repro_plan.h"
#include "crashes/repro/repro_text.h"

namespace dpfuzz {
namespace {

std::string GroupName(const ReproTensor& t) {
  return t.index < 0 ? t.arg : absl::StrCat(t.arg, "[", t.index, "]");
}

std::string Constants(const ReproPlan& plan) {
  std::vector<std::string> written;
  for (const std::string& w : plan.written) written.push_back(CppQuoted(w));
  auto cc_bool = [](bool b) { return b ? "true" : "false"; };
  return absl::StrCat(
      "// ", std::string(75, '-'), "\n// The case\n// ", std::string(75, '-'),
      "\n\n", "const std::vector<std::string> kWritten = {",
      absl::StrJoin(written, ", "), "};\n",
      "// How dpfuzz compares this op's results (generators/op_spec.h):\n",
      "const bool kExact = ", cc_bool(plan.exact),
      ";  // false: assert_close tolerances, then float64\n",
      "const bool kTiedIndices = ", cc_bool(plan.tied_indices), ";\n",
      "const std::optional<int64_t> kTieDim = ",
      plan.tie_dim ? absl::StrCat(*plan.tie_dim) : "std::nullopt", ";\n",
      "const bool kNondeterministic = ", cc_bool(plan.nondeterministic), ";\n",
      "const bool kPropagatesStrides = ", cc_bool(plan.propagates_strides),
      ";\n",
      "const bool kKeepsMemoryFormat = ", cc_bool(plan.keeps_memory_format),
      ";\n",
      "const std::string kMemoryFormat = ", CppQuoted(plan.memory_format),
      ";\n", "const bool kRejectionAllowed = ", cc_bool(plan.rejection_allowed),
      ";  // aliased out=/in-place arguments\n",
      "const bool kBackward = ", cc_bool(plan.backward), ";\n\n");
}

// "{{"tensors", {tensors_0, tensors_1}}, {"out", {out}}}".
std::string TensorsLiteral(const std::vector<ReproTensor>& tensors,
                           const std::string& prefix) {
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::string>> lists;
  for (const ReproTensor& t : tensors) {
    if (lists.find(t.arg) == lists.end()) names.push_back(t.arg);
    lists[t.arg].push_back(prefix + t.name);
  }
  std::vector<std::string> entries;
  for (const std::string& name : names) {
    entries.push_back(absl::StrCat("      {", CppQuoted(name), ", {",
                                   absl::StrJoin(lists[name], ", "), "}},\n"));
  }
  return absl::StrCat("{\n", absl::StrJoin(entries, ""), "  }");
}

std::string VariantTensors(const ReproPlan& plan) {
  std::string out = absl::StrCat(
      "// The case's tensors as dpfuzz ran them: views of explicit storages.\n",
      "// Fills the grad_outputs and the storages the write check reads.\n",
      "Tensors VariantTensors(std::vector<at::Tensor>& grad_outputs,\n",
      "                       std::vector<CheckedStorage>& storages) {\n");
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
      absl::StrAppend(&out, "  // ", GroupName(*t), ": ", DTypeName(t->dtype),
                      " ", LayoutToString(t->layout), "\n");
    }
    const std::string head =
        absl::StrCat("  const at::Tensor ", storage.name, " = Storage(",
                     CppScalarType(storage.dtype), ", ");
    const std::string tail = absl::StrCat(
        storage.device == Device::kCpu
            ? ""
            : absl::StrCat(", ", CppQuoted(DeviceName(storage.device))),
        ");");
    absl::StrAppend(&out, head, CppElementList(storage.elements, head, tail),
                    tail, "\n");
    std::vector<std::string> roles;
    for (const ReproTensor* t : views) {
      const std::string head =
          absl::StrCat("  const at::Tensor ", t->name, " =");
      const std::string call = absl::StrCat(
          "View(", storage.name, ", ", CppDims(t->layout.sizes), ", ",
          CppDims(t->layout.strides), ", ", t->layout.storage_offset,
          t->requires_grad ? ", /*requires_grad=*/true" : "", ");\n");
      // Past column 80, the call goes on a line of its own.
      absl::StrAppend(&out, head,
                      head.size() + call.size() > 81 ? "\n      " : " ", call);
      roles.push_back(absl::StrCat("{", CppQuoted(GroupName(*t)), ", ",
                                   CppLayout(t->layout), "}"));
    }
    if (views.empty() || views.front()->arg != "grad_outputs") {
      checked.push_back(absl::StrCat(
          "      {", CppQuoted(storage.name), ", ", storage.name, ",\n       {",
          absl::StrJoin(roles, ",\n        "), "}},\n"));
    }
  }
  std::vector<std::string> grads;
  for (const ReproTensor& g : plan.grad_outputs) grads.push_back(g.name);
  absl::StrAppend(&out, "  grad_outputs = {", absl::StrJoin(grads, ", "),
                  "};\n", "  storages = {\n", absl::StrJoin(checked, ""),
                  "  };\n", "  return ", TensorsLiteral(plan.tensors, ""),
                  ";\n}\n\n");
  return out;
}

// The baseline of `t`, on the device of its variant's storage.
std::string DenseLine(const ReproPlan& plan, const ReproTensor& t,
                      const std::string& name) {
  const Device device = plan.storages[t.storage].device;
  const std::string head =
      absl::StrCat("  const at::Tensor ", name, " = Dense(",
                   CppScalarType(t.dtype), ", ", CppDims(t.layout.sizes), ", ");
  const std::string tail =
      absl::StrCat(device == Device::kCpu
                       ? (t.requires_grad ? ", /*requires_grad=*/true" : "")
                       : absl::StrCat(", /*requires_grad=*/",
                                      t.requires_grad ? "true" : "false", ", ",
                                      CppQuoted(DeviceName(device))),
                   ");");
  return absl::StrCat(head, CppElementList(t.baseline, head, tail), tail, "\n");
}

std::string BaselineTensors(const ReproPlan& plan) {
  std::string out = absl::StrCat(
      "// The contiguous baseline: each argument dense, with the variant's\n",
      "// logical values.\n",
      "Tensors BaselineTensors(std::vector<at::Tensor>& grad_outputs) {\n");
  for (const ReproTensor& t : plan.tensors) {
    absl::StrAppend(&out, DenseLine(plan, t, "base_" + t.name));
  }
  std::vector<std::string> grads;
  for (const ReproTensor& g : plan.grad_outputs) {
    absl::StrAppend(&out, DenseLine(plan, g, "base_" + g.name));
    grads.push_back("base_" + g.name);
  }
  absl::StrAppend(&out, "  grad_outputs = {", absl::StrJoin(grads, ", "),
                  "};\n", "  return ", TensorsLiteral(plan.tensors, "base_"),
                  ";\n}\n\n");
  return out;
}

std::string Call(const ReproPlan& plan) {
  std::vector<std::string> values;
  for (const ReproArg& arg : plan.args) values.push_back(CppStackValue(arg));
  const std::string find = absl::StrCat(
      "      c10::Dispatcher::singleton().findSchemaOrThrow(",
      CppQuoted(plan.schema_name), ", ", CppQuoted(plan.overload), ");");
  const std::string find_wrapped = absl::StrCat(
      "      c10::Dispatcher::singleton().findSchemaOrThrow(\n", "          ",
      CppQuoted(plan.schema_name), ", ", CppQuoted(plan.overload), ");");
  return absl::StrCat("// ", plan.schema, "\n",
                      "std::vector<at::Tensor> Call(const Tensors& a) {\n",
                      "  static const c10::OperatorHandle op =\n",
                      find.size() > 80 ? find_wrapped : find, "\n",
                      "  return CallBoxed(op, {", WrapItems(values, 24),
                      "});\n}\n\n");
}

// The main() fragments below use the delimiter "repro", which keeps
// clang-format from formatting them (it formats "cc" raw strings).
constexpr char kMainStart[] = R"repro(int main() {
  std::vector<at::Tensor> grad_outputs, base_grad_outputs;
  std::vector<CheckedStorage> storages;
  const Tensors variant = VariantTensors(grad_outputs, storages);
  const Tensors baseline = BaselineTensors(base_grad_outputs);
)repro";

// The start of a device_mismatch main(): the contiguous baseline on its
// device takes the variant's place, the same values on the CPU the
// baseline's.
constexpr char kDeviceMainStart[] = R"repro(int main() {
  std::vector<at::Tensor> grad_outputs;
  const Tensors variant = BaselineTensors(grad_outputs);
  const Tensors baseline = OnCpu(variant);
)repro";

constexpr char kBothCalls[] =
    R"repro(  const Attempt b = Try([&] { return Call(baseline); });
  const Attempt v = Try([&] { return Call(variant); });
  if (b.error || v.error) {
    std::cout << "expected: both calls return (this check compares them)\n"
              << "actual:   baseline " << Said(b.error) << "; variant "
              << Said(v.error) << "\n";
    return 0;
  }
)repro";

constexpr char kValuesMain[] = R"repro(  std::vector<std::string> names;
  const std::vector<at::Tensor> expected = Results(b.outputs, baseline, &names);
  const std::vector<at::Tensor> actual = Results(v.outputs, variant);
  if (expected.size() != actual.size()) {
    std::cout << "expected: " << expected.size()
              << " results (contiguous baseline)\n"
              << "actual:   " << actual.size() << " results (strided variant)\n";
    return 1;
  }
  const at::Tensor self =
      baseline.count("self") == 1 && baseline.at("self").size() == 1
          ? baseline.at("self").front()
          : at::Tensor();
  std::optional<std::vector<at::Tensor>> reference;
  for (size_t i = 0; i < expected.size(); ++i) {
    std::optional<Difference> d =
        CompareOutput(expected[i], actual[i], at::Tensor(), self);
    if (d && !kExact) {
      if (!reference) {
        const Attempt r = Try([&] { return Call(wide); });
        reference =
            r.error ? std::vector<at::Tensor>{} : Results(r.outputs, wide);
      }
      at::Tensor ref;
      if (i < reference->size() &&
          (*reference)[i].sizes() == expected[i].sizes()) {
        ref = (*reference)[i];
      }
      d = CompareOutput(expected[i], actual[i], ref, self);
    }
    if (d) return ShowDifference(names[i], d) ? 1 : 0;
  }
  ShowDifference("every result", std::nullopt);
  return 0;
}
)repro";

constexpr char kGradsMain[] = R"repro(  std::vector<std::string> names;
  const std::vector<at::Tensor> inputs = GradInputs(variant, &names);
  const Attempt gb = Try([&] {
    return Backward(b.outputs, GradInputs(baseline), base_grad_outputs);
  });
  const Attempt gv =
      Try([&] { return Backward(v.outputs, inputs, grad_outputs); });
  if (gb.error || gv.error) {
    std::cout << "expected: both backward calls return (this check compares "
                 "them)\n"
              << "actual:   baseline " << Said(gb.error) << "; variant "
              << Said(gv.error) << "\n";
    return 0;
  }
  std::optional<std::vector<at::Tensor>> reference;
  for (size_t i = 0;
       i < names.size() && i < gb.outputs.size() && i < gv.outputs.size();
       ++i) {
    std::optional<Difference> d =
        FirstDifference(gb.outputs[i], gv.outputs[i], /*exact=*/false);
    if (d) {
      if (!reference) reference = ReferenceGrads(baseline, base_grad_outputs);
      at::Tensor ref;
      if (i < reference->size() &&
          (*reference)[i].sizes() == gb.outputs[i].sizes()) {
        ref = (*reference)[i];
      }
      d = FirstDifference(gb.outputs[i], gv.outputs[i], false, ref);
    }
    if (d) return ShowDifference(names[i], d) ? 1 : 0;
  }
  ShowDifference("every gradient", std::nullopt);
  return 0;
}
)repro";

constexpr char kErrorsMain[] =
    R"repro(  const Attempt b = Try([&] { return Call(baseline); });
  const Attempt v = Try([&] { return Call(variant); });
  if (Judge("forward", b.error, v.error)) return 1;
  std::optional<std::string> b_error = b.error, v_error = v.error;
  if (kBackward && !b.error && !v.error) {
    b_error = Try([&] {
                return Backward(b.outputs, GradInputs(baseline),
                                base_grad_outputs);
              }).error;
    v_error = Try([&] {
                return Backward(v.outputs, GradInputs(variant), grad_outputs);
              }).error;
    if (Judge("backward", b_error, v_error)) return 1;
  }
  std::cout << "expected: " << kExpected << "\n"
            << "actual:   so it is (baseline " << Said(b_error) << "; variant "
            << Said(v_error) << ")\n";
  return 0;
}
)repro";

constexpr char kRejectionJudge[] = R"repro(const char kExpected[] =
    "the strided variant raises exactly when the baseline does";

// True (and prints) when exactly one side raised in `stage`.
bool Judge(const std::string& stage, const std::optional<std::string>& b_error,
           const std::optional<std::string>& v_error) {
  if (b_error.has_value() == v_error.has_value()) return false;
  if (v_error && kRejectionAllowed) return false;  // Aliased out= may raise.
  if (v_error) {
    std::cout << "expected: the strided variant's " << stage
              << " returns, as the contiguous baseline's does\n"
              << "actual:   it raised: " << *v_error << "\n";
  } else {
    std::cout << "expected: the strided variant's " << stage
              << " raises, as the contiguous baseline's does: " << *b_error
              << "\nactual:   it returned\n";
  }
  return true;
}

)repro";

constexpr char kAssertJudge[] = R"repro(const char kExpected[] =
    "no call fails with INTERNAL ASSERT FAILED";

// True (and prints) when a side hit an internal assert in `stage`.
bool Judge(const std::string& stage, const std::optional<std::string>& b_error,
           const std::optional<std::string>& v_error) {
  for (const auto& [side, error] :
       {std::pair{"contiguous baseline", &b_error},
        std::pair{"strided variant", &v_error}}) {
    if (*error &&
        (*error)->find("INTERNAL ASSERT FAILED") != std::string::npos) {
      std::cout << "expected: the " << side << "'s " << stage
                << " returns or raises an ordinary error\n"
                << "actual:   " << **error << "\n";
      return true;
    }
  }
  return false;
}

)repro";

constexpr char kStorageMain[] =
    R"repro(  std::vector<std::vector<uint8_t>> before;
  for (const CheckedStorage& s : storages) before.push_back(Bytes(s.storage));
  const Attempt v = Try([&] { return Call(variant); });
  if (v.error) {
    std::cout << "expected: the call returns (this check needs its writes)\n"
              << "actual:   it raised: " << *v.error << "\n";
    return 0;
  }
  std::string after;
  const std::string where = StorageChange(storages, before, &after);
  if (where.empty()) {
    std::cout << "expected: elements no written argument addresses "
                 "unchanged\nactual:   unchanged\n";
    return 0;
  }
  std::cout << "expected: " << where << "\nactual:   " << after << "\n";
  return 1;
}
)repro";

constexpr char kLayoutStart[] = R"repro(  std::vector<void*> pointers;
  for (const std::string& name : kWritten) {
    pointers.push_back(variant.at(name).front().data_ptr());
  }
  const Attempt v = Try([&] { return Call(variant); });
  if (v.error) {
    std::cout << "expected: the call returns (this check needs its result)\n"
              << "actual:   it raised: " << *v.error << "\n";
    return 0;
  }
)repro";

constexpr char kLayoutEnd[] =
    R"repro(  std::cout << "expected: the layout PyTorch promises\nactual:   "
            << (broken.empty() ? "kept" : broken) << "\n";
  return broken.empty() ? 0 : 1;
}
)repro";

std::string LayoutMain(const ReproPlan& plan) {
  std::string out = kLayoutStart;
  if (plan.c.variant == Variant::kOut) {
    std::vector<std::string> layouts;
    for (const std::string& name : plan.written) {
      for (const ReproTensor& t : plan.tensors) {
        if (t.arg == name) {
          layouts.push_back(absl::StrCat("{", CppQuoted(name), ", ",
                                         CppLayout(t.layout), "}"));
        }
      }
    }
    absl::StrAppend(&out, "  const std::map<std::string, Layout> layouts = {",
                    absl::StrJoin(layouts, ", "), "};  // as given\n",
                    "  const std::string broken =\n",
                    "      BrokenOutContract(variant, v.outputs, layouts, "
                    "pointers);\n");
  } else {
    absl::StrAppend(&out,
                    "  const std::string broken = "
                    "BrokenLayoutPromise(variant, v.outputs);\n");
  }
  return out + kLayoutEnd;
}

std::string CallMain(const ReproPlan& plan) {
  std::string out;
  const bool timeout = plan.verdict == Verdict::kTimeout;
  if (timeout) {
    absl::StrAppend(
        &out, "extern \"C\" void OnTimeout(int) {\n",
        "  const char message[] =\n",
        "      \"actual:   the call was still running after ",
        kReproTimeoutSeconds, " s (timeout)\\n\";\n",
        "  if (write(1, message, sizeof(message) - 1) < 0) _exit(1);\n",
        "  _exit(1);\n}\n\n");
  }
  absl::StrAppend(
      &out, "int main() {\n", "  std::vector<at::Tensor> grad_outputs;\n",
      "  std::vector<CheckedStorage> storages;\n",
      "  Tensors variant = VariantTensors(grad_outputs, storages);\n");
  if (timeout) {
    absl::StrAppend(&out, "  std::signal(SIGALRM, OnTimeout);\n",
                    "  std::cout << \"expected: the call finishes within ",
                    kReproTimeoutSeconds, " s\" << std::endl;\n", "  alarm(",
                    kReproTimeoutSeconds, ");\n");
  } else {
    absl::StrAppend(&out,
                    "  std::cout << \"expected: the call returns or raises an "
                    "error\\n\"\n",
                    "            << \"calling the strided variant; if the "
                    "process dies now (a signal), \"\n",
                    "               \"the bug shows\"\n",
                    "            << std::endl;\n");
  }
  absl::StrAppend(
      &out, "  Attempt v = Try([&] { return Call(variant); });\n",
      "  if (!v.error && kBackward) {\n", "    v.error = Try([&] {\n",
      "                return Backward(v.outputs, GradInputs(variant), "
      "grad_outputs);\n",
      "              }).error;\n  }\n",
      "  // Free the tensors now: a corrupted heap often aborts in free().\n",
      "  v.outputs.clear();\n  variant.clear();\n  grad_outputs.clear();\n",
      "  storages.clear();\n");
  if (timeout) absl::StrAppend(&out, "  alarm(0);\n");
  if (plan.verdict == Verdict::kOom) {
    absl::StrAppend(
        &out,
        "  if (v.error && (v.error->find(\"allocate\") != std::string::npos "
        "||\n",
        "                  v.error->find(\"memory\") != std::string::npos)) "
        "{\n",
        "    std::cout << \"actual:   it ran out of memory: \" << *v.error << "
        "\"\\n\";\n",
        "    return 1;\n  }\n");
  }
  absl::StrAppend(&out,
                  "  std::cout << \"actual:   the call \" << Said(v.error) << "
                  "\"\\n\";\n",
                  "  return 0;\n}\n");
  return out;
}

// A values check after `start`: the float64 copies of the baseline for the
// reference run, made before an in-place call writes it; both calls; the
// comparison.
std::string ValuesCheck(const ReproPlan& plan, const char* start) {
  return absl::StrCat(start,
                      plan.exact ? ""
                                 : "  const Tensors wide = Widen(baseline);"
                                   "  // before an in-place call\n",
                      kBothCalls,
                      plan.exact ? "  const Tensors& wide = baseline;  "
                                   "// unused: kExact\n"
                                 : "",
                      kValuesMain);
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
      return absl::StrCat(kRejectionJudge, kMainStart, kErrorsMain);
    case ReproCheck::kInternalAssert:
      return absl::StrCat(kAssertJudge, kMainStart, kErrorsMain);
    case ReproCheck::kStorage:
      return absl::StrCat(kMainStart, kStorageMain);
    case ReproCheck::kLayout:
      if (plan.c.variant != Variant::kOut && !plan.written.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("layout_contract for ", QualifiedOpName(plan.c),
                         " in-place: dpfuzz checks no layout promise there"));
      }
      return absl::StrCat(kMainStart, LayoutMain(plan));
    case ReproCheck::kCall:
      return CallMain(plan);
    case ReproCheck::kCost:
      break;  // Python only (ReproText).
  }
  return absl::InternalError("unknown check");
}

}  // namespace

absl::StatusOr<std::string> CppRepro(const Case& c, const OpSpec& spec,
                                     Verdict verdict) {
  DPFUZZ_ASSIGN_OR_RETURN(ReproPlan plan, BuildReproPlan(c, spec, verdict));
  DPFUZZ_ASSIGN_OR_RETURN(std::string main, Main(plan));
  return absl::StrCat(ReproHeader(plan, "// "),
                      "//\n// Build: cmake -S . -B build && cmake --build "
                      "build && ./build/repro\n\n",
                      CppReproPrelude(plan.check), Constants(plan),
                      VariantTensors(plan), BaselineTensors(plan), Call(plan),
                      main);
}

std::string CppReproCMakeLists() {
  return R"cmake(# Builds the dpfuzz repro beside this file against LibTorch:
#   cmake -S . -B build && cmake --build build && ./build/repro
# Debian's libtorch-dev is found as it is; another LibTorch through
#   -DCMAKE_PREFIX_PATH=/path/to/libtorch  (for the one inside the PyPI
#   wheel: python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
# A CUDA-enabled LibTorch (the wheel's) also needs a CUDA toolkit of the
# version it was built with, named by -DCUDA_TOOLKIT_ROOT_DIR=/path/to/cuda
#   -DCMAKE_CUDA_COMPILER=/path/to/cuda/bin/nvcc  (pip's cuda-toolkit[nvcc]
#   at the wheel's version installs one in site-packages/nvidia/cu13)
cmake_minimum_required(VERSION 3.18)
project(dpfuzz_repro LANGUAGES CXX)

set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE RelWithDebInfo)
endif()

find_package(Torch REQUIRED)

add_executable(repro repro.cc)
# The torch target carries LibTorch's flags (its C++ ABI) and the C++
# standard its headers need (newer releases: C++20).
target_link_libraries(repro PRIVATE torch)
get_target_property(torch_cxx_standard torch CXX_STANDARD)
if(torch_cxx_standard GREATER CMAKE_CXX_STANDARD)
  set_target_properties(repro PROPERTIES CXX_STANDARD ${torch_cxx_standard})
endif()
)cmake";
}

}  // namespace dpfuzz
