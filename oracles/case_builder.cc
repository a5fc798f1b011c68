#include "oracles/case_builder.h"

#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <set>
#include <string>

#include "common/status_macros.h"
#include "common/torch_compat.h"
#include "generators/aten_bridge.h"
#include "generators/contract_rules.h"
#include "generators/geometry.h"
#include "generators/layout_generator.h"
#include "generators/nested_layout.h"
#include "generators/op_args.h"
#include "generators/rng.h"
#include "oracles/backward.h"
#include "oracles/baseline_run.h"
#include "oracles/case_tensors.h"
#include "oracles/device_sync.h"
#include "oracles/invoke.h"
#include "oracles/run_case.h"

namespace dpfuzz {
namespace {

// A spec on `device` for a tensor the op will read (grad_outputs) or write
// (out=), shaped like `like`, with a generated layout.
absl::StatusOr<TensorSpec> SpecLike(const at::Tensor& like, bool written,
                                    Device device, Rng& rng) {
  // A grad_output like a nested result: its components, laid out as
  // nested inputs are (Note [Nested buffers by version]); a nested tensor
  // of scalars (a select of 1-d components) has none a spec can hold.
  if (like.is_nested() && !written && like.dim() > 1) {
    DPFUZZ_ASSIGN_OR_RETURN(DType dtype, FromScalarType(like.scalar_type()));
    // From the metadata: an op's nested result may point outside its
    // buffer (oracles/nested_promises.h), which unbind would refuse.
    const at::Tensor rows = like._nested_tensor_size().contiguous();
    std::vector<Dims> sizes;
    for (int64_t i = 0; i < rows.size(0); ++i) {
      const int64_t* row = rows.data_ptr<int64_t>() + i * rows.size(1);
      sizes.emplace_back(row, row + rows.size(1));
    }
    TensorSpec spec = NestedValues(sizes, dtype, rng);
    spec.components =
        GenerateComponents(sizes, compat::kNestedBufferMayHaveGaps, rng);
    spec.device = device;
    return spec;
  }
  // Nested out= tensors and tensors of scalars, sparse and other results
  // without strides of their own.
  if (like.is_nested() || like.layout() != at::kStrided) {
    return absl::UnimplementedError(
        absl::StrCat("no strided spec is like a ", c10::str(like.layout()),
                     like.is_nested() ? " nested" : "", " tensor"));
  }
  DPFUZZ_ASSIGN_OR_RETURN(DType dtype, FromScalarType(like.scalar_type()));
  LayoutOptions options;
  options.allow_overlap = !written;
  TensorSpec spec = GenerateTensorSpec(like.sizes().vec(), dtype, options, rng);
  spec.device = device;
  return spec;
}

// Gives input tensors new layouts (see the header); `written` ones never
// overlap, `fixed` ones keep theirs (OpSpec::fixed_layout).
void VaryLayouts(std::vector<Argument>& args,
                 const std::set<std::string>& written,
                 const std::vector<std::string>& fixed,
                 const BuildOptions& options, Rng& rng) {
  std::vector<TensorSpec*> specs;
  std::vector<bool> writable;
  for (Argument& arg : args) {
    if (std::find(fixed.begin(), fixed.end(), arg.name) != fixed.end()) {
      continue;
    }
    if (auto* t = std::get_if<TensorSpec>(&arg.value)) {
      specs.push_back(t);
      writable.push_back(written.count(arg.name) > 0);
    } else if (auto* list = std::get_if<std::vector<TensorSpec>>(&arg.value)) {
      for (TensorSpec& t : *list) {
        specs.push_back(&t);
        writable.push_back(false);
      }
    }
  }
  if (specs.empty()) return;
  const size_t forced = rng.Uniform(0, static_cast<int64_t>(specs.size()) - 1);
  for (size_t i = 0; i < specs.size(); ++i) {
    if (i != forced && rng.OneIn(options.layout_one_in)) continue;
    if (specs[i]->is_nested()) {  // See Note [Nested buffers by version].
      specs[i]->components =
          GenerateComponents(ComponentSizes(specs[i]->components),
                             compat::kNestedBufferMayHaveGaps, rng);
      continue;
    }
    LayoutOptions layout;
    layout.allow_overlap = !writable[i];
    specs[i]->layout =
        GenerateLayout(specs[i]->layout.sizes, specs[i]->dtype, layout, rng)
            .layout;
  }
}

// Accumulating ops are judged with tolerances, which mean nothing once
// values span the dtype's range (cancellation makes the result depend on
// the order of summation, which depends on the layout): their wide values
// become dyadic ones, grad_outputs' too. Specials (NaN, inf, denormals)
// stay.
void KeepValuesTame(std::vector<Argument>& args,
                    std::vector<TensorSpec>& grad_outputs) {
  auto tame = [](TensorSpec& t) {
    if (t.values.distribution == Distribution::kWide) {
      t.values.distribution = Distribution::kDyadic;
    }
  };
  for (Argument& arg : args) {
    if (auto* t = std::get_if<TensorSpec>(&arg.value)) tame(*t);
    if (auto* list = std::get_if<std::vector<TensorSpec>>(&arg.value)) {
      for (TensorSpec& t : *list) tame(t);
    }
  }
  for (TensorSpec& t : grad_outputs) tame(t);
}

// Makes a written tensor share storage with an input of its dtype.
void MaybeAlias(Case& c, const std::set<std::string>& written, Rng& rng) {
  for (const std::string& out : written) {
    const Argument* w = FindArgument(c, out);
    const auto* w_spec = w ? std::get_if<TensorSpec>(&w->value) : nullptr;
    if (w_spec == nullptr) continue;
    std::vector<std::string> inputs;
    for (const Argument& arg : c.args) {
      const auto* t = std::get_if<TensorSpec>(&arg.value);
      if (t != nullptr && written.count(arg.name) == 0 &&
          t->dtype == w_spec->dtype) {
        inputs.push_back(arg.name);
      }
    }
    if (inputs.empty()) continue;
    const std::string& input = rng.Pick(inputs);
    // In-place: the input lives in self's storage (self's values win);
    // out=: out lives in the input's storage (the input's values win).
    c.aliases.push_back(c.variant == Variant::kInplace ? Alias{input, out}
                                                       : Alias{out, input});
    return;
  }
}

void BeforeProbe(const Case& c, const BuildOptions& options) {
  if (!options.before_probe) return;
  Case probe = c;
  probe.variant = Variant::kFunctional;
  options.before_probe(probe);
}

// Marks some inputs of `dtype` as requiring grad and adds a grad_output for
// each output that then requires grad. Some arguments must not require
// grad (running stats, class weights): when the op rejects the marked
// inputs, or an output is of a kind no grad_output is drawn for (a
// ComplexHalf or sparse gradient), the case goes without backward.
absl::Status AddGradients(Case& c, DType dtype, const c10::OperatorHandle& op,
                          const BuildOptions& options, Rng& rng) {
  bool any = false;
  for (Argument& arg : c.args) {
    auto* t = std::get_if<TensorSpec>(&arg.value);
    if (t != nullptr && t->dtype == dtype && rng.Uniform(0, 3) > 0) {
      t->requires_grad = any = true;
    }
  }
  if (!any) return absl::OkStatus();
  DPFUZZ_ASSIGN_OR_RETURN(CaseTensors tensors, MaterializeVariant(c));
  BeforeProbe(c, options);
  DPFUZZ_ASSIGN_OR_RETURN(CallResult probe,
                          Invoke(op, c, MaterializeBaseline(tensors).args));
  const auto without_backward = [&c] {
    for (TensorSpec* t : AllTensorSpecsOf(c)) t->requires_grad = false;
    c.grad_outputs.clear();
    return absl::OkStatus();
  };
  if (probe.outcome != CallOutcome::kOk) return without_backward();
  for (const at::Tensor& out : DifferentiableOutputs(probe.outputs)) {
    absl::StatusOr<TensorSpec> g = SpecLike(out, false, options.device, rng);
    if (!g.ok()) return without_backward();
    c.grad_outputs.push_back(*g);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> FitGradOutputs(const OpSpec& spec, Case& c) {
  if (c.grad_outputs.empty() || c.variant != Variant::kFunctional) {
    return false;
  }
  DPFUZZ_ASSIGN_OR_RETURN(c10::OperatorHandle op,
                          OperatorFor(spec, Variant::kFunctional));
  DPFUZZ_ASSIGN_OR_RETURN(CaseTensors tensors, MaterializeVariant(c));
  DPFUZZ_ASSIGN_OR_RETURN(CallResult probe,
                          Invoke(op, c, MaterializeBaseline(tensors).args));
  if (probe.outcome != CallOutcome::kOk) return false;
  const std::vector<at::Tensor> results = DifferentiableOutputs(probe.outputs);
  if (results.size() != c.grad_outputs.size()) return false;
  bool changed = false;
  for (size_t i = 0; i < results.size(); ++i) {
    // A nested result has no sizes of its own; its grad_output's
    // components are the reducer's to shrink (reducers/nested_passes.h).
    if (c.grad_outputs[i].is_nested() || results[i].is_nested() ||
        results[i].layout() != at::kStrided) {
      continue;
    }
    StridedLayout& l = c.grad_outputs[i].layout;
    const Dims sizes = results[i].sizes().vec();
    if (l.sizes == sizes) continue;
    l.strides = l.sizes.size() == sizes.size()
                    ? ComputeDenseStridesInOrder(sizes, l.strides)
                    : ComputeContiguousStrides(sizes);
    l.sizes = sizes;
    changed = true;
  }
  return changed;
}

std::vector<Variant> VariantsOf(const OpSpec& spec) {
  if (spec.inplace_only) return {Variant::kInplace};
  if (spec.out_only) return {Variant::kOut};
  std::vector<Variant> variants = {Variant::kFunctional};
  if (!spec.out_overload.empty()) variants.push_back(Variant::kOut);
  if (spec.has_inplace) variants.push_back(Variant::kInplace);
  return variants;
}

absl::StatusOr<std::optional<Case>> BuildCase(const OpSpec& spec, DType dtype,
                                              Variant variant, uint64_t seed,
                                              const BuildOptions& options) {
  Rng rng(seed);
  return BuildCase(spec, dtype, variant, seed, rng, options);
}

absl::StatusOr<std::optional<Case>> BuildCase(const OpSpec& spec, DType dtype,
                                              Variant variant, uint64_t seed,
                                              Rng& rng,
                                              const BuildOptions& options) {
  DPFUZZ_ASSIGN_OR_RETURN(
      std::optional<BuiltCase> built,
      BuildCaseWithBaseline(spec, dtype, variant, seed, rng, options));
  if (!built.has_value()) return std::optional<Case>();
  return std::optional<Case>(std::move(built->c));
}

absl::StatusOr<std::optional<BuiltCase>> BuildCaseWithBaseline(
    const OpSpec& spec, DType dtype, Variant variant, uint64_t seed,
    const BuildOptions& options) {
  Rng rng(seed);
  return BuildCaseWithBaseline(spec, dtype, variant, seed, rng, options);
}

absl::StatusOr<std::optional<BuiltCase>> BuildCaseWithBaseline(
    const OpSpec& spec, DType dtype, Variant variant, uint64_t seed, Rng& rng,
    const BuildOptions& options) {
  if (!spec.seeds_only.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        SpecName(spec), " takes its arguments from recorded seeds ", "only (",
        spec.seeds_only, "): draw a seeded case"));
  }
  Case c;
  c.op = spec.op;
  c.overload = spec.overload;
  c.variant = variant;
  c.seed = seed;
  c.args = spec.make_args(rng, dtype);
  PlaceOnDevice(c, options.device);
  PrepareDevice(options.device);
  if (spec.comparison == Comparison::kTolerance) {
    KeepValuesTame(c.args, c.grad_outputs);
  }

  DPFUZZ_ASSIGN_OR_RETURN(c10::OperatorHandle functional,
                          OperatorFor(spec, Variant::kFunctional));
  DPFUZZ_ASSIGN_OR_RETURN(c10::OperatorHandle op, OperatorFor(spec, variant));
  const std::vector<std::string> written_list = WrittenArguments(op);
  const std::set<std::string> written(written_list.begin(), written_list.end());
  // Input layouts first: overlapping layouts change the logical values an
  // input holds (see MaterializeShared), and with them output shapes.
  // Arguments mutated by design are written too (generators/
  // contract_rules.h).
  const std::vector<std::string> mutated = MutatedByDesign(c);
  std::set<std::string> never_overlap = written;
  never_overlap.insert(mutated.begin(), mutated.end());
  never_overlap.insert(spec.never_overlap.begin(), spec.never_overlap.end());
  VaryLayouts(c.args, never_overlap, spec.fixed_layout, options, rng);

  // The probe: the functional call on the baseline of these inputs. Its
  // tensors are made without grad mode, but the call runs under the grad
  // mode RunCase runs the baseline and the variant under, for the probe's
  // run may become the case's baseline run: an op that takes another path
  // by grad mode (cumprod_backward) would be judged on two paths, not two
  // layouts.
  std::optional<BaselineRun> run;
  {
    CaseTensors tensors;
    CaseTensors baseline;
    {
      at::NoGradGuard no_grad;
      DPFUZZ_ASSIGN_OR_RETURN(tensors, MaterializeVariant(c));
      BeforeProbe(c, options);
      baseline = MaterializeBaseline(tensors);
    }
    DPFUZZ_ASSIGN_OR_RETURN(CallResult probe,
                            Invoke(functional, c, baseline.args));
    run =
        BaselineRun{std::move(tensors), std::move(baseline), std::move(probe)};
  }
  const CallResult& probe = run->call;
  if (probe.outcome == CallOutcome::kRejected)
    return std::optional<BuiltCase>();
  if (variant == Variant::kOut) {
    if (written_list.size() != probe.outputs.size())
      return std::optional<BuiltCase>();
    for (size_t i = 0; i < written_list.size(); ++i) {
      absl::StatusOr<TensorSpec> out =
          SpecLike(probe.outputs[i], true, options.device, rng);
      if (!out.ok()) return std::optional<BuiltCase>();
      c.args.push_back(Argument{written_list[i], *out});
    }
  } else if (variant == Variant::kInplace) {
    // The written argument: "self" for ATen, any name for an in-place-only
    // custom op (myns::scale_(Tensor(a!) x)).
    const Argument* self =
        FindArgument(c, written_list.empty() ? "self" : written_list[0]);
    const auto* self_spec =
        self ? std::get_if<TensorSpec>(&self->value) : nullptr;
    if (self_spec == nullptr || probe.outputs.empty() ||
        probe.outputs[0].sizes().vec() != self_spec->layout.sizes ||
        probe.outputs[0].scalar_type() != ToScalarType(self_spec->dtype)) {
      return std::optional<BuiltCase>();  // The result does not fit in self.
    }
  } else if (spec.differentiable && options.check_grad &&
             (IsFloating(dtype) || IsComplex(dtype))) {
    DPFUZZ_RETURN_IF_ERROR(AddGradients(c, dtype, functional, options, rng));
  }
  if (!written.empty() && options.alias_one_in > 0 &&
      rng.OneIn(options.alias_one_in))
    MaybeAlias(c, written, rng);
  if (spec.comparison == Comparison::kTolerance) {
    KeepValuesTame(c.args, c.grad_outputs);  // The grad_outputs made now.
  }
  // The probe ran this very case (no grad: grad_outputs come only with an
  // input that requires grad; no aliases: only written tensors get them),
  // and left its tensors as they were made (oracles/baseline_run.h).
  bool probed_this_case =
      variant == Variant::kFunctional && written.empty() && mutated.empty();
  for (const TensorSpec* t : AllTensorSpecsOf(c)) {
    probed_this_case = probed_this_case && !t->requires_grad;
  }
  if (!probed_this_case) run.reset();
  return std::optional<BuiltCase>(BuiltCase{std::move(c), std::move(run)});
}

}  // namespace dpfuzz
