#include "oracles/conditioning.h"

#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "oracles/compare.h"

namespace dpfuzz {
namespace {

// One step of a finite IEEE binary value `bits` (sign and magnitude; `inf`
// the magnitude bits of infinity) toward +inf or -inf; NaN and infinities
// stay.
template <typename Bits>
Bits NextBits(Bits bits, Bits inf, Nudge nudge) {
  constexpr Bits kSign = Bits{1} << (sizeof(Bits) * 8 - 1);
  const Bits magnitude = bits & static_cast<Bits>(~kSign);
  if (magnitude > inf) return bits;  // NaN.
  // An infinity stays: the largest finite value is no small step from it,
  // and would excuse any value where the baseline is infinite.
  if (magnitude == inf) return bits;
  const bool negative = (bits & kSign) != 0;
  if (magnitude == 0) return nudge == Nudge::kUp ? Bits{1} : kSign | Bits{1};
  const bool away_from_zero = (nudge == Nudge::kUp) != negative;
  return away_from_zero ? bits + 1 : bits - 1;
}

template <typename Bits>
void NudgeAll(void* data, int64_t count, Bits inf, Nudge nudge) {
  Bits* p = static_cast<Bits*>(data);
  for (int64_t i = 0; i < count; ++i) p[i] = NextBits(p[i], inf, nudge);
}

// Nudges a contiguous CPU tensor's values in place; false for a dtype
// without IEEE values.
bool NudgeDense(at::Tensor& t, Nudge nudge) {
  const int64_t components = t.numel() * (t.is_complex() ? 2 : 1);
  switch (t.scalar_type()) {
    case at::kHalf:
      NudgeAll<uint16_t>(t.data_ptr(), components, 0x7C00, nudge);
      return true;
    case at::kBFloat16:
      NudgeAll<uint16_t>(t.data_ptr(), components, 0x7F80, nudge);
      return true;
    case at::kFloat:
    case at::kComplexFloat:
      NudgeAll<uint32_t>(t.data_ptr(), components, 0x7F800000u, nudge);
      return true;
    case at::kDouble:
    case at::kComplexDouble:
      NudgeAll<uint64_t>(t.data_ptr(), components, 0x7FF0000000000000ull,
                         nudge);
      return true;
    default:
      return false;
  }
}

// A dense CPU float64 copy of a result's values (complex ones as pairs).
at::Tensor AsDoubles(const at::Tensor& t) {
  at::Tensor dense = ReadDense(t.layout() == at::kStrided ? t : t.to_dense());
  if (dense.is_complex()) dense = at::view_as_real(dense);
  return dense.to(at::kDouble).contiguous().reshape({-1});
}

bool SameValue(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || a == b;
}

}  // namespace

void NudgeInputs(CaseTensors& tensors, const std::vector<std::string>& written,
                 Nudge nudge) {
  const at::NoGradGuard no_grad;
  for (auto& [name, list] : tensors.args) {
    if (std::find(written.begin(), written.end(), name) != written.end()) {
      continue;
    }
    for (at::Tensor& t : list) {
      if (!t.defined() || t.layout() != at::kStrided ||
          !(t.is_floating_point() || t.is_complex())) {
        continue;
      }
      at::Tensor values = t.detach().cpu().contiguous().clone();
      if (NudgeDense(values, nudge)) t.detach().copy_(values);
    }
  }
}

std::optional<NudgedResults> RunNudged(
    const CaseTensors& variant, const std::vector<std::string>& written,
    const std::function<std::optional<std::vector<at::Tensor>>(CaseTensors&)>&
        run) {
  NudgedResults results;
  for (Nudge nudge : {Nudge::kUp, Nudge::kDown}) {
    CaseTensors nudged = MaterializeBaselineBefore(variant);
    NudgeInputs(nudged, written, nudge);
    std::optional<std::vector<at::Tensor>> r = run(nudged);
    if (!r.has_value()) return std::nullopt;
    (nudge == Nudge::kUp ? results.up : results.down) = std::move(*r);
  }
  return results;
}

bool WithinNudges(const at::Tensor& expected, const at::Tensor& up,
                  const at::Tensor& down, const at::Tensor& actual) {
  if (!expected.defined() || !up.defined() || !down.defined() ||
      !actual.defined()) {
    return false;
  }
  for (const at::Tensor* t : {&up, &down, &actual}) {
    if (t->sizes() != expected.sizes()) return false;
  }
  const Tolerance tol = DefaultTolerance(expected.scalar_type());
  const at::Tensor e = AsDoubles(expected);
  const at::Tensor u = AsDoubles(up);
  const at::Tensor d = AsDoubles(down);
  const at::Tensor a = AsDoubles(actual);
  const double* ep = e.data_ptr<double>();
  const double* up_p = u.data_ptr<double>();
  const double* dp = d.data_ptr<double>();
  const double* ap = a.data_ptr<double>();
  for (int64_t i = 0; i < e.numel(); ++i) {
    if (!std::isfinite(ep[i]) || !std::isfinite(up_p[i]) ||
        !std::isfinite(dp[i])) {
      const bool steady = SameValue(ep[i], up_p[i]) && SameValue(ep[i], dp[i]);
      if (steady && !SameValue(ap[i], ep[i])) return false;
      continue;  // Unsteady: the element holds no value to compare with.
    }
    if (!std::isfinite(ap[i])) return false;
    const double slack = tol.atol + tol.rtol * std::abs(ep[i]);
    const double lo = std::min({ep[i], up_p[i], dp[i]}) - slack;
    const double hi = std::max({ep[i], up_p[i], dp[i]}) + slack;
    if (ap[i] < lo || ap[i] > hi) return false;
  }
  return true;
}

std::string IllConditionedReason(const std::string& where) {
  return absl::StrCat(
      "the contiguous baseline itself gives the variant's ", where,
      " once its inputs move by one unit in the last place: the op is "
      "ill-conditioned at these values (a breakpoint, a singular matrix, a "
      "special value), where two kernels may round either way");
}

bool HoldsNonFinite(const std::vector<at::Tensor>& tensors, bool nan_only) {
  const at::NoGradGuard no_grad;
  for (const at::Tensor& t : tensors) {
    if (!t.defined() || !(t.is_floating_point() || t.is_complex())) continue;
    const at::Tensor values = AsDoubles(t);
    if ((nan_only ? at::isnan(values).any() : ~at::isfinite(values).all())
            .item<bool>()) {
      return true;
    }
  }
  return false;
}

namespace {

// The strided tensors of every argument of `before` but those in `written`.
std::vector<at::Tensor> ReadInputs(const CaseTensors& before,
                                   const std::vector<std::string>& written) {
  std::vector<at::Tensor> inputs;
  for (const auto& [name, list] : before.args) {
    if (std::find(written.begin(), written.end(), name) != written.end()) {
      continue;
    }
    for (const at::Tensor& t : list) {
      if (t.defined() && t.layout() == at::kStrided && !t.is_nested()) {
        inputs.push_back(t);
      }
    }
  }
  return inputs;
}

}  // namespace

bool NonFiniteInputs(const CaseTensors& before,
                     const std::vector<std::string>& written) {
  return HoldsNonFinite(ReadInputs(before, written));
}

bool InfinitiesWithoutNaN(const CaseTensors& before,
                          const std::vector<std::string>& written) {
  const std::vector<at::Tensor> inputs = ReadInputs(before, written);
  return HoldsNonFinite(inputs) && !HoldsNonFinite(inputs, /*nan_only=*/true);
}

std::string NonFiniteReason(bool gradient) {
  return gradient
             ? "the inputs, grad_outputs or forward results hold infinities "
               "or NaN: the op's value is not finite here (a singular "
               "matrix) or its derivative is taken at an infinity, and "
               "kernels return what their order of arithmetic gives"
             : "the inputs hold infinities and no NaN, yet the results hold "
               "NaN: inf - inf or 0 * inf happened, and which elements it "
               "reaches, and whether a kernel checks and raises, depends on "
               "the order of its arithmetic, which a layout changes";
}

std::string Unstable(
    const CaseTensors& variant, const std::vector<std::string>& written,
    const CallResults& b, const CallResults& v, const std::string& where,
    const std::vector<at::Tensor>& forward, bool gradient,
    const std::function<std::optional<std::vector<at::Tensor>>(CaseTensors&)>&
        run) {
  const CaseTensors before = MaterializeBaselineBefore(variant);
  if (gradient
          ? HoldsNonFinite(forward) || HoldsNonFinite(before.grad_outputs) ||
                NonFiniteInputs(before, written)
          : HoldsNonFinite(forward, /*nan_only=*/true) &&
                InfinitiesWithoutNaN(before, written)) {
    return NonFiniteReason(gradient);
  }
  const std::optional<NudgedResults> nudged = RunNudged(variant, written, run);
  if (!nudged.has_value() || nudged->up.size() != b.tensors.size() ||
      nudged->down.size() != b.tensors.size()) {
    return "";
  }
  // Every result the finding is about: a list out= names all its tensors.
  bool any = false;
  for (size_t i = 0; i < b.tensors.size() && i < v.tensors.size(); ++i) {
    if (v.names[i] != where) continue;
    any = true;
    if (!WithinNudges(b.tensors[i], nudged->up[i], nudged->down[i],
                      v.tensors[i])) {
      return "";
    }
  }
  return any ? IllConditionedReason(where) : "";
}

}  // namespace dpfuzz
