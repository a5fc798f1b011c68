#include "oracles/compare.h"

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "generators/aten_bridge.h"
#include "generators/materialize.h"
#include "generators/poison.h"

namespace dpfuzz {
namespace {

// The logical elements of a tensor as bytes, with how to read them.
// Comparison runs on these directly: a few dozen ATen calls per case would
// cost more than the op under test.
struct Elements {
  // The elements, row-major: in `owner`'s memory where it holds them so (a
  // contiguous host tensor, as most results are), else in `bytes`.
  at::Tensor owner;
  std::vector<uint8_t> bytes;
  const uint8_t* data = nullptr;
  at::ScalarType type;
  int64_t size = 0;       // Bytes per element.
  int components = 1;     // 2 for complex.
  bool floating = false;  // Floating or complex.

  explicit Elements(const at::Tensor& tensor)
      : type(tensor.scalar_type()), size(tensor.element_size()) {
    const at::Tensor t = StridedValues(tensor);
    if (t.layout() == at::kStrided && !t.is_nested() && t.has_storage() &&
        t.device().is_cpu() && t.is_contiguous() && !t.is_conj() &&
        !t.is_neg()) {
      owner = t;
      data = static_cast<const uint8_t*>(t.data_ptr());
    } else if (FromScalarType(type).ok() && t.has_storage()) {
      bytes = ReadLogicalBytes(t);
    } else {
      const at::Tensor dense = t.detach().cpu().contiguous();
      const auto* p = static_cast<const uint8_t*>(dense.data_ptr());
      bytes.assign(p, p + dense.nbytes());
    }
    if (data == nullptr) data = bytes.data();
    components = t.is_complex() ? 2 : 1;
    floating = t.is_floating_point() || t.is_complex();
  }
  // `data` points into `bytes` or `owner`.
  Elements(const Elements&) = delete;
  Elements& operator=(const Elements&) = delete;

  const uint8_t* at(int64_t i) const { return data + i * size; }

  // Component c of element i, as a double.
  double Component(int64_t i, int c) const {
    const uint8_t* p = at(i) + c * (size / components);
    switch (type) {
      case at::kHalf:
      case at::kComplexHalf:
        return static_cast<float>(*reinterpret_cast<const c10::Half*>(p));
      case at::kBFloat16:
        return static_cast<float>(*reinterpret_cast<const c10::BFloat16*>(p));
      case at::kFloat:
      case at::kComplexFloat: {
        float f;
        std::memcpy(&f, p, sizeof(f));
        return f;
      }
      default: {
        double d;
        std::memcpy(&d, p, sizeof(d));
        return d;
      }
    }
  }

  std::complex<double> Value(int64_t i) const {
    return {Component(i, 0), components == 2 ? Component(i, 1) : 0.0};
  }

  bool IsNan(int64_t i) const {
    const std::complex<double> v = Value(i);
    return std::isnan(v.real()) || std::isnan(v.imag());
  }

  bool IsFinite(int64_t i) const {
    const std::complex<double> v = Value(i);
    return std::isfinite(v.real()) && std::isfinite(v.imag());
  }

  std::string ToString(int64_t i) const {
    if (floating) {
      const std::complex<double> v = Value(i);
      if (components == 2)
        return absl::StrCat("(", v.real(), ", ", v.imag(), ")");
      return absl::StrCat(v.real());
    }
    if (type == at::kBool) return at(i)[0] != 0 ? "true" : "false";
    int64_t v = 0;
    std::memcpy(&v, at(i), size);
    if (type != at::kByte && size < 8)
      v = (v << (64 - 8 * size)) >> (64 - 8 * size);
    return absl::StrCat(v);
  }
};

// How many roundings an accumulating op may add to a result: reductions,
// matmuls and gradients summed over broadcast dims round at every step, in
// an order that depends on the layout.
constexpr double kAccumulation = 4;

// The largest finite value of a floating dtype (of its components).
double LargestFinite(at::ScalarType type) {
  switch (type) {
    case at::kHalf:
      return 65504.0;
    case at::kBFloat16:
      return static_cast<double>(std::numeric_limits<c10::BFloat16>::max());
    case at::kFloat:
    case at::kComplexFloat:
      return std::numeric_limits<float>::max();
    default:
      return std::numeric_limits<double>::max();
  }
}

// The magnitude reference of each element, as |value| (Note [Accumulation
// error]); empty when there is none.
struct Magnitude {
  std::optional<Elements> values;
  double eps = 0;  // k * eps of Note [Accumulation error].
  double largest = 0;

  Magnitude(const at::Tensor& magnitude, int64_t numel, at::ScalarType type,
            int64_t terms)
      : eps(AccumulationRoundings(terms) * Epsilon(type)),
        largest(LargestFinite(type)) {
    if (magnitude.defined() && magnitude.numel() == numel && eps > 0) {
      values.emplace(magnitude);
    }
  }

  // |M| of element i; NaN when unknown or not finite (an infinite input:
  // no rounding explains a difference then).
  double At(int64_t i) const {
    if (!values.has_value()) return std::nan("");
    const double m = std::abs(values->Value(i));
    return std::isfinite(m) ? m : std::nan("");
  }

  // Whether baseline and variant values this far apart are within the
  // roundings an accumulation may take.
  bool Covers(int64_t i, double difference) const {
    return difference <= eps * At(i);
  }

  // Whether an infinite or NaN input reaches element i.
  bool NonFinite(int64_t i) const {
    if (!values.has_value()) return false;
    return !std::isfinite(std::abs(values->Value(i)));
  }

  // Whether a partial sum of element i may overflow the dtype.
  bool MayOverflow(int64_t i) const { return At(i) * (1 + eps) >= largest; }
};

}  // namespace

double AccumulationRoundings(int64_t terms) {
  return std::max(
      kAccumulationRoundings,
      2 * std::sqrt(static_cast<double>(std::max<int64_t>(terms, 1))));
}

double Epsilon(at::ScalarType type) {
  switch (type) {
    case at::kHalf:
      return std::ldexp(1.0, -10);
    case at::kBFloat16:
      return std::ldexp(1.0, -7);
    case at::kFloat:
    case at::kComplexFloat:
      return std::ldexp(1.0, -23);
    case at::kDouble:
    case at::kComplexDouble:
      return std::ldexp(1.0, -52);
    default:
      return 0;
  }
}

Tolerance DefaultTolerance(at::ScalarType type) {
  switch (type) {
    case at::kHalf:
      return {1e-3, 1e-5};
    case at::kBFloat16:
      return {1.6e-2, 1e-5};
    case at::kFloat:
    case at::kComplexFloat:
      return {1.3e-6, 1e-5};
    case at::kDouble:
    case at::kComplexDouble:
      return {1e-7, 1e-7};
    default:
      return {0, 0};
  }
}

at::Tensor ReadDense(const at::Tensor& result) {
  const at::Tensor tensor = StridedValues(result);
  absl::StatusOr<DType> dtype = FromScalarType(tensor.scalar_type());
  if (!dtype.ok() || !tensor.has_storage()) {
    return tensor.detach().cpu().contiguous();
  }
  return ReadContiguousCopy(tensor, *dtype);
}

std::string MultiIndex(int64_t flat, at::IntArrayRef sizes) {
  std::vector<int64_t> index(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return absl::StrCat("[", absl::StrJoin(index, ", "), "]");
}

namespace {

std::optional<Difference> CompareElements(
    const at::Tensor& expected, const at::Tensor& actual, Comparison comparison,
    const at::Tensor& reference, const at::Tensor& magnitude, int64_t terms) {
  if (!expected.defined() || !actual.defined()) {
    // An output the op did not compute (output_mask): both or neither.
    if (expected.defined() == actual.defined()) return std::nullopt;
    Difference d;
    d.detail = absl::StrCat(actual.defined() ? "a tensor" : "no tensor",
                            " where the baseline has ",
                            expected.defined() ? "one" : "none");
    return d;
  }
  if (expected.sizes() != actual.sizes()) {
    Difference d;
    d.detail =
        absl::StrCat("shape ", c10::str(actual.sizes()),
                     " where the baseline has ", c10::str(expected.sizes()));
    return d;
  }
  if (expected.scalar_type() != actual.scalar_type()) {
    Difference d;
    d.detail = absl::StrCat("dtype ", c10::toString(actual.scalar_type()),
                            " where the baseline has ",
                            c10::toString(expected.scalar_type()));
    return d;
  }
  const int64_t numel = expected.numel();
  if (numel == 0) return std::nullopt;
  const Elements e(expected);
  const Elements a(actual);
  std::optional<Elements> ref;
  if (reference.defined() && reference.numel() == numel) ref.emplace(reference);
  const Magnitude mag(magnitude, numel, e.type, terms);
  const bool tolerant = comparison == Comparison::kTolerance;
  const absl::StatusOr<DType> dtype = FromScalarType(a.type);
  const Tolerance tol = DefaultTolerance(e.type);
  int64_t count = 0;
  int64_t first = -1;
  int64_t introduced = 0;
  int64_t first_introduced = -1;
  double max_error = 0;
  for (int64_t i = 0; i < numel; ++i) {
    bool same;
    if (!e.floating) {
      same = std::memcmp(e.at(i), a.at(i), e.size) == 0;
    } else {
      const std::complex<double> ev = e.Value(i);
      const std::complex<double> av = a.Value(i);
      const bool e_nan = e.IsNan(i);
      const bool a_nan = a.IsNan(i);
      // An overflow in one order of summation only, then inf - inf, or an
      // infinite input times a zero that one kernel skips: a NaN that is
      // not the poison (see Note [Accumulation error]).
      const bool unstable =
          tolerant && (mag.MayOverflow(i) || mag.NonFinite(i));
      if (a_nan && e.IsFinite(i) &&
          !(unstable && dtype.ok() && !IsPoison(*dtype, a.at(i))) &&
          introduced++ == 0) {
        first_introduced = i;
      }
      same = ev == av || (e_nan && a_nan);
      const bool both_finite = e.IsFinite(i) && a.IsFinite(i);
      if (both_finite) max_error = std::max(max_error, std::abs(av - ev));
      if (!same && tolerant) {
        // Non-finite results differ between code paths (the order of an
        // inf - inf, complex formulas); only their NaN-ness is compared,
        // and that above, as nan_introduced. An infinity against a number
        // is an overflow the other side avoided, possible only where
        // partial sums reach the dtype's range; elsewhere a finding.
        if (!both_finite) {
          same = (!e.IsFinite(i) && !a.IsFinite(i)) || unstable;
        } else if (mag.Covers(i, std::abs(av - ev))) {
          same = true;  // Within the roundings of an accumulation.
        } else if (!ref.has_value()) {
          same = std::abs(av - ev) <= tol.atol + tol.rtol * std::abs(ev);
        } else if (ref->IsFinite(i)) {
          // Against the reference: within the accumulation tolerance, or
          // no worse than twice the baseline's own error.
          const std::complex<double> rv = ref->Value(i);
          const double allowed =
              std::max(tol.atol + kAccumulation * tol.rtol * std::abs(rv),
                       2 * std::abs(ev - rv));
          same = std::abs(av - rv) <= allowed;
        } else {
          same = true;  // No exact answer to hold either side to.
        }
      }
    }
    if (!same && count++ == 0) first = i;
  }
  const bool nan = introduced > 0;
  if (count == 0 && !nan) return std::nullopt;
  Difference d;
  d.verdict = nan ? Verdict::kNanIntroduced : Verdict::kMismatch;
  const int64_t at_index = nan ? first_introduced : first;
  d.count = nan ? introduced : count;
  d.index = MultiIndex(at_index, expected.sizes());
  d.expected = e.ToString(at_index);
  d.actual = a.ToString(at_index);
  d.max_error = max_error;
  const bool poison = dtype.ok() && IsPoison(*dtype, a.at(at_index));
  d.detail =
      absl::StrCat(d.count, " of ", numel, " elements ",
                   nan ? "are NaN where the baseline has a number" : "differ",
                   "; first at ", d.index, ": expected ", d.expected, ", got ",
                   d.actual, poison ? kPoisonNote : "");
  return d;
}

}  // namespace

std::optional<Difference> CompareValues(
    const at::Tensor& expected, const at::Tensor& actual, Comparison comparison,
    const at::Tensor& reference, const at::Tensor& magnitude, int64_t terms) {
  // A nested result of dense arguments (_nested_tensor_from_mask): its
  // components one by one, without references.
  if (expected.defined() && actual.defined() &&
      (expected.is_nested() || actual.is_nested())) {
    Difference d;
    if (expected.is_nested() != actual.is_nested()) {
      d.detail =
          absl::StrCat(actual.is_nested() ? "a nested" : "a dense",
                       " tensor where the baseline has ",
                       expected.is_nested() ? "a nested" : "a dense", " one");
      return d;
    }
    const std::vector<at::Tensor> e = expected.unbind(), a = actual.unbind();
    if (e.size() != a.size()) {
      d.detail = absl::StrCat(a.size(), " components where the baseline has ",
                              e.size());
      return d;
    }
    for (size_t i = 0; i < e.size(); ++i) {
      if (std::optional<Difference> c = CompareValues(e[i], a[i], comparison)) {
        c->detail = absl::StrCat("component ", i, ": ", c->detail);
        return c;
      }
    }
    return std::nullopt;
  }
  std::optional<Difference> d = CompareElements(expected, actual, comparison,
                                                reference, magnitude, terms);
  for (const at::Tensor* t : {&expected, &actual}) {
    if (d.has_value() && t->defined() && t->layout() != at::kStrided) {
      d->layout = c10::str(t->layout());
    }
  }
  return d;
}

}  // namespace dpfuzz
