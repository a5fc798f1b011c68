#include "oracles/reference.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>

#include "absl/status/statusor.h"
#include "generators/contract_rules.h"
#include "generators/dtype.h"
#include "generators/materialize.h"
#include "oracles/backward.h"
#include "oracles/invoke.h"

namespace dpfuzz {
namespace {

// Note [Sensitivity probes]
// The op on |inputs| bounds the error of sums, matmuls and convolutions
// (Note [Accumulation error]), not of ops whose terms cancel by design: a
// normalization (x - mean) / std near zero, a variance. For those the
// scale of an element's rounding error is its sensitivity: how far it
// moves when every floating input (and grad_output) moves by a relative
// h, x_j -> x_j * (1 + h * s_j) with random signs s_j. To first order the
// element moves by h * sum_j J_ij x_j s_j, whose size estimates the
// componentwise condition sum_j |J_ij x_j| (exactly when one term
// dominates, as x_i / std does in a normalization; within sqrt(n) for a
// sum, whose bound is the op on |inputs| anyway). Rounding an input or an
// intermediate to the dtype is such a perturbation with h = u, so a
// kernel's roundings move the element by about u times the sensitivity
// each. The probe runs both ways, +h and -h, and keeps the smaller move:
// a discontinuity (floor at an integer, a tie in max) jumps on one side
// only, and a jump is no rounding error. h = 2^-20 keeps second-order
// terms (h^2) far below every dtype's eps but float64's, whose bound is
// negligible anyway. Each input moves by h * (|x_j| + mean |x|): a purely
// relative move would keep two zeros tied.
// A flat function hides what its kernel sums: the input gradient of a
// normalization vanishes for a constant grad_output, or at the element
// that differs when the others are equal ((b, a, a): -sqrt(2), 1/sqrt(2),
// 1/sqrt(2) after normalizing), for any nearby values, yet the kernel
// still subtracts terms of size |grad_output| / std and keeps their
// rounding. Two more runs see such terms: backward with |grad_outputs|
// under random weights in [-1, 1] (no constant grad_output), and the whole
// call in float32, whose distance from float64, divided by float32's eps,
// is the size of the terms its roundings came from (two samples: at the
// inputs and at the +h probe's, as one may round luckily).
// A random op's float64 runs differ by whole values: its sensitivity is
// huge and its values are in effect not judged, as they must not be.
constexpr double kProbe = 1.0 / (1 << 20);
constexpr double kSingleEpsilon = 1.0 / (1 << 23);

using Transform = std::function<at::Tensor(const at::Tensor& wide, int64_t k)>;

// Float64 (complex128) copies of the floating tensors of `tensors`, passed
// through `transform` (with the tensor's index), the others as they are;
// copies of tensors that require grad require it too. `single`: float32
// (complex64) copies instead.
std::vector<at::Tensor> Widen(const std::vector<at::Tensor>& tensors,
                              const Transform& transform = nullptr,
                              int64_t first = 0, bool single = false) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> wide;
  int64_t k = first;
  for (const at::Tensor& t : tensors) {
    if (!t.defined() || (!t.is_floating_point() && !t.is_complex())) {
      wide.push_back(t);
      continue;
    }
    const at::ScalarType type =
        t.is_complex() ? (single ? at::kComplexFloat : at::kComplexDouble)
                       : (single ? at::kFloat : at::kDouble);
    at::Tensor w = t.detach().to(type).clone();
    if (transform) w = transform(w, k++).to(type);
    wide.push_back(t.requires_grad() ? w.requires_grad_(true) : w);
  }
  return wide;
}

NamedTensors Widen(const NamedTensors& tensors,
                   const Transform& transform = nullptr, bool single = false) {
  NamedTensors wide;
  int64_t k = 0;
  for (const auto& [name, list] : tensors) {
    wide[name] = Widen(list, transform, k, single);
    k += static_cast<int64_t>(list.size());
  }
  return wide;
}

at::Tensor Absolute(const at::Tensor& t, int64_t) { return t.abs(); }

// A float64 tensor of t's sizes on t's device, its values drawn on the host
// by `draw` from a CPU generator seeded with `seed`: the same numbers on
// every device (a CUDA tensor takes no CPU generator).
at::Tensor DrawnOnHost(
    const at::Tensor& t, uint64_t seed,
    const std::function<void(at::Tensor&, at::Generator&)>& draw) {
  at::Generator gen = at::detail::createCPUGenerator(seed);
  at::Tensor x = at::empty(t.sizes(), at::TensorOptions().dtype(at::kDouble));
  draw(x, gen);
  return x.to(t.device());
}

// x + h * s * (|x| + mean |x|), s a sign per element drawn from (seed, k).
Transform Perturbation(double h, uint64_t seed) {
  return [h, seed](const at::Tensor& t, int64_t k) {
    at::Tensor signs = DrawnOnHost(t, seed + 7919 * k,
                                   [](at::Tensor& x, at::Generator& gen) {
                                     x.bernoulli_(0.5, gen);
                                   })
                           .mul_(2)
                           .sub_(1);
    // Relative, plus the tensor's mean magnitude: ties (two zeros) break.
    const at::Tensor scale = t.abs();
    const double mean = t.numel() > 0 ? scale.mean().item<double>() : 0;
    return t + signs.mul_(h).mul_(scale.add(std::isfinite(mean) ? mean : 0));
  };
}

// |x| * r, r uniform in [-1, 1] per element, drawn from (seed, k).
Transform Reweighted(uint64_t seed) {
  return [seed](const at::Tensor& t, int64_t k) {
    at::Tensor weights = DrawnOnHost(
        t, seed + 7919 * k,
        [](at::Tensor& x, at::Generator& gen) { x.uniform_(-1, 1, gen); });
    return t.abs().mul(weights);
  };
}

// `c` with the absolute values of the numbers `schema` takes as float or
// Scalar (coefficients such as addmm's beta); ints (dims, sizes) as they
// are.
Case AbsoluteScalars(const Case& c, const c10::FunctionSchema& schema) {
  Case absolute = c;
  for (const c10::Argument& arg : schema.arguments()) {
    c10::TypePtr type = arg.real_type();
    if (type->kind() == c10::TypeKind::OptionalType) {
      type = type->castRaw<c10::OptionalType>()->getElementType();
    }
    if (type->kind() != c10::TypeKind::FloatType &&
        type->kind() != c10::TypeKind::NumberType) {
      continue;
    }
    for (Argument& given : absolute.args) {
      if (given.name != arg.name()) continue;
      if (auto* f = std::get_if<FloatArg>(&given.value)) {
        f->value = std::abs(f->value);
      } else if (auto* i = std::get_if<int64_t>(&given.value)) {
        *i = *i == INT64_MIN ? INT64_MAX : std::abs(*i);
      }
    }
  }
  return absolute;
}

// `c` with the floating dtypes its ScalarType arguments name ("dtype":
// "bf16") in float64 (`single`: float32), complex ones likewise: a
// reference computes in its own precision.
Case WidenDtypeArguments(const Case& c, const c10::FunctionSchema& schema,
                         bool single) {
  Case wide = c;
  for (const c10::Argument& arg : schema.arguments()) {
    c10::TypePtr type = arg.real_type();
    if (type->kind() == c10::TypeKind::OptionalType) {
      type = type->castRaw<c10::OptionalType>()->getElementType();
    }
    if (type->kind() != c10::TypeKind::ScalarTypeType) continue;
    for (Argument& given : wide.args) {
      auto* name = std::get_if<std::string>(&given.value);
      if (given.name != arg.name() || name == nullptr) continue;
      const absl::StatusOr<DType> dtype = ParseDType(*name);
      if (!dtype.ok()) continue;
      if (IsFloating(*dtype)) {
        *name =
            std::string(DTypeName(single ? DType::kFloat32 : DType::kFloat64));
      } else if (IsComplex(*dtype)) {
        *name = std::string(
            DTypeName(single ? DType::kComplex64 : DType::kComplex128));
      }
    }
  }
  return wide;
}

bool Usable(const std::vector<at::Tensor>& v, size_t i,
            const at::Tensor& like) {
  return i < v.size() && v[i].defined() && like.defined() &&
         v[i].sizes() == like.sizes();
}

// Element by element: the larger of |absolute| and the sensitivity
// min(|plus - value|, |minus - value|) / h, of what each run has.
std::vector<at::Tensor> Combine(const std::vector<at::Tensor>& value,
                                const std::vector<at::Tensor>& absolute,
                                const std::vector<at::Tensor>& plus,
                                const std::vector<at::Tensor>& minus) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> out(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    const at::Tensor& v = value[i];
    if (!v.defined() || (!v.is_floating_point() && !v.is_complex())) continue;
    at::Tensor m;
    if (Usable(absolute, i, v) && absolute[i].scalar_type() != at::kBool) {
      m = absolute[i].detach().abs().to(at::kDouble);
    }
    if (Usable(plus, i, v) && Usable(minus, i, v) &&
        plus[i].scalar_type() == v.scalar_type() &&
        minus[i].scalar_type() == v.scalar_type()) {
      const at::Tensor base = v.detach();
      const at::Tensor p =
          at::minimum((plus[i].detach() - base).abs().to(at::kDouble),
                      (minus[i].detach() - base).abs().to(at::kDouble))
              .div_(kProbe)
              .nan_to_num_(0, 0, 0);
      m = m.defined() ? at::maximum(m, p) : p;
    }
    out[i] = m;
  }
  return out;
}

// m = max(m, |more|) element by element, where both are there.
void Raise(std::vector<at::Tensor>& m, const std::vector<at::Tensor>& more) {
  at::NoGradGuard no_grad;
  for (size_t i = 0; i < m.size(); ++i) {
    if (!m[i].defined() || !Usable(more, i, m[i]) ||
        (!more[i].is_floating_point() && !more[i].is_complex())) {
      continue;
    }
    m[i] = at::maximum(
        m[i], more[i].detach().abs().to(at::kDouble).nan_to_num(0, 0, 0));
  }
}

// |single - value| / eps(float32) element by element: the scale of the
// terms a float32 run rounded (see Note [Sensitivity probes]).
std::vector<at::Tensor> Noise(const std::vector<at::Tensor>& value,
                              const std::vector<at::Tensor>& single) {
  at::NoGradGuard no_grad;
  std::vector<at::Tensor> noise(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    const at::Tensor& v = value[i];
    if (!v.defined() || (!v.is_floating_point() && !v.is_complex()) ||
        !Usable(single, i, v) || single[i].is_complex() != v.is_complex() ||
        (!single[i].is_floating_point() && !single[i].is_complex())) {
      continue;
    }
    noise[i] = (single[i].detach().to(v.scalar_type()) - v.detach())
                   .abs()
                   .to(at::kDouble)
                   .div_(kSingleEpsilon);
  }
  return noise;
}

}  // namespace

Reference::Reference(const c10::OperatorHandle& op, const Case& c,
                     const CaseTensors& baseline,
                     const std::vector<std::string>& written)
    : op_(op),
      c_(c),
      baseline_(baseline),
      written_(written),
      mutated_(MutatedByDesign(c)) {
  if (!Overwrites()) return;
  // Copies of what the call overwrites; the rest is read when widened.
  inputs_ = baseline.args;
  at::NoGradGuard no_grad;
  for (const std::vector<std::string>* names : {&written_, &mutated_}) {
    for (const std::string& name : *names) {
      const auto it = inputs_.find(name);
      if (it == inputs_.end()) continue;
      for (at::Tensor& t : it->second) {
        if (!t.defined()) continue;
        const bool grad = t.requires_grad();
        t = t.detach().clone();
        if (grad) t.requires_grad_(true);
      }
    }
  }
}

int64_t Reference::Terms() const {
  int64_t terms = 1;
  for (const auto& [name, tensors] : baseline_.args) {
    for (const at::Tensor& t : tensors) {
      if (t.defined() && (t.is_floating_point() || t.is_complex())) {
        terms = std::max(terms, t.numel());
      }
    }
  }
  for (const at::Tensor& g : baseline_.grad_outputs) {
    terms = std::max(terms, g.numel());
  }
  return terms;
}

const Reference::Run& Reference::Value() {
  if (!value_.has_value()) {
    wide_ = Widen(Overwrites() ? inputs_ : baseline_.args);
    pristine_ = Widen(wide_);  // The call may overwrite wide_.
    value_ = RunOn(WidenDtypeArguments(c_, op_.schema(), false), wide_,
                   Widen(baseline_.grad_outputs));
  }
  return *value_;
}

const Reference::Run& Reference::Magnitude() {
  const Run& value = Value();
  if (magnitude_.has_value()) return *magnitude_;
  const std::vector<at::Tensor>& g = baseline_.grad_outputs;
  const Case wide = WidenDtypeArguments(c_, op_.schema(), false);
  NamedTensors absolute = Widen(pristine_, Absolute);
  const Run a =
      RunOn(AbsoluteScalars(wide, op_.schema()), absolute, Widen(g, Absolute));
  // See Note [Sensitivity probes]; grad_outputs get signs of their own.
  const int64_t n = static_cast<int64_t>(pristine_.size()) + 1000;
  NamedTensors up = Widen(pristine_, Perturbation(kProbe, c_.seed));
  NamedTensors down = Widen(pristine_, Perturbation(-kProbe, c_.seed));
  const Run plus = RunOn(wide, up, Widen(g, Perturbation(kProbe, c_.seed), n));
  const Run minus =
      RunOn(wide, down, Widen(g, Perturbation(-kProbe, c_.seed), n));
  magnitude_ =
      Run{Combine(value.results, a.results, plus.results, minus.results),
          Combine(value.grads, a.grads, plus.grads, minus.grads),
          Combine(value.mutated, a.mutated, plus.mutated, minus.mutated)};
  if (!value.grads.empty()) {
    // Gradients are linear in grad_outputs, and may vanish for the given
    // ones by design (a constant grad_output against values of mean zero)
    // while the kernel still sums terms of their size: backward with
    // |grad_outputs| under random weights in [-1, 1] sees those terms.
    NamedTensors args = Widen(pristine_);
    const Run reweighted =
        RunOn(wide, args, Widen(g, Reweighted(c_.seed + 1), n));
    Raise(magnitude_->grads, reweighted.grads);
  }
  // Two samples of float32 noise, at the inputs and at the +h probe's.
  const Case single = WidenDtypeArguments(c_, op_.schema(), true);
  for (const Run* at : {&value, &plus}) {
    const Transform moved =
        at == &value ? Transform() : Perturbation(kProbe, c_.seed);
    NamedTensors args = Widen(pristine_, moved, /*single=*/true);
    const Run s = RunOn(single, args, Widen(g, moved, n, /*single=*/true));
    Raise(magnitude_->results, Noise(at->results, s.results));
    Raise(magnitude_->grads, Noise(at->grads, s.grads));
    Raise(magnitude_->mutated, Noise(at->mutated, s.mutated));
  }
  return *magnitude_;
}

Reference::Run Reference::RunOn(const Case& c, NamedTensors& args,
                                const std::vector<at::Tensor>& grad_outputs) {
  Run run;
  absl::StatusOr<CallResult> r = Invoke(op_, c, args);
  if (!r.ok() || r->outcome != CallOutcome::kOk) return run;
  // Results and gradients are read as strided values (a sparse gradient,
  // a ZeroTensor): the arithmetic below is for dense tensors.
  const auto strided = [](const std::vector<at::Tensor>& tensors) {
    std::vector<at::Tensor> out;
    for (const at::Tensor& t : tensors) {
      out.push_back(t.defined() ? StridedValues(t) : t);
    }
    return out;
  };
  if (written_.empty()) {
    run.results = strided(r->outputs);
  } else {
    for (const std::string& name : written_) {
      const auto it = args.find(name);
      if (it == args.end()) continue;
      run.results.insert(run.results.end(), it->second.begin(),
                         it->second.end());
    }
  }
  for (const std::string& name : mutated_) {
    const auto it = args.find(name);
    run.mutated.push_back(it != args.end() && it->second.size() == 1
                              ? it->second.front()
                              : at::Tensor());
  }
  if (c_.grad_outputs.empty() || !written_.empty()) return run;
  const CallResult g = RunBackward(r->outputs, GradInputs(args), grad_outputs);
  if (g.outcome == CallOutcome::kOk) run.grads = strided(g.outputs);
  return run;
}

at::Tensor Matching(const std::vector<at::Tensor>& tensors, size_t i,
                    const at::Tensor& like) {
  return i < tensors.size() && tensors[i].defined() && like.defined() &&
                 tensors[i].sizes() == like.sizes()
             ? tensors[i]
             : at::Tensor();
}

std::optional<Difference> ValueThenMagnitude(
    const std::function<std::optional<Difference>(const at::Tensor&)>& compare,
    const std::function<at::Tensor()>& magnitude) {
  std::optional<Difference> d = compare(at::Tensor());
  return d.has_value() ? compare(magnitude()) : d;
}

}  // namespace dpfuzz
