// Ill-conditioned baselines: whether a layout's wrong values are values the
// contiguous baseline itself gives once its inputs move by one unit in the
// last place.
//
//   std::optional<NudgedResults> n = RunNudged(variant, written, run);
//   if (n && WithinNudges(expected, n->up[i], n->down[i], actual)) ...
#ifndef DPFUZZ_ORACLES_CONDITIONING_H_
#define DPFUZZ_ORACLES_CONDITIONING_H_

#include <ATen/ATen.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oracles/call_results.h"
#include "oracles/case_tensors.h"

namespace dpfuzz {

// Note [Ill-conditioned baselines]
// Small integers, which dpfuzz draws for values a person can read, sit on
// the breakpoints of piecewise ops (hardswish's derivative at 3, relu's at
// 0) and make matrices singular; special values (infinities, subnormals)
// sit where arithmetic changes its rules. There an op's value jumps, and
// two kernels of the same op (the vectorized one a contiguous input takes,
// the scalar one a strided input takes) may round or compare their way to
// either side: hardswish_backward at exactly 3 gives 1.5 on one path and 1
// on the other. Such a difference is the op's own instability, not a
// layout's mistake, and a maintainer closes it as numerical. dpfuzz tells
// it apart by running the baseline twice more with every floating input
// moved one unit in the last place, once up and once down (NudgeInputs):
// when every element of the variant's result lies within what the three
// baselines span (widened by the dtype's tolerance), or where the three are
// not all finite and equal (an element that turns non-finite under a
// nudge holds no value to compare with), the layout changed nothing a
// one-ulp change of the inputs would not; the finding is low confidence
// with that reason. A layout mistake reads or writes a wrong element, which
// lands outside so narrow a band on some element of the result. This holds
// even where a mechanism's simulation (oracles/mechanism.h) matches: on a
// result of few distinct values (a step, a comparison) one may match by
// chance. Only findings pay for the two runs.

enum class Nudge : uint8_t { kUp, kDown };

// Moves each element of every floating or complex argument of `tensors`
// but those in `written` (out= arguments, whose values the op overwrites)
// to the next value of its dtype toward +inf (kUp) or -inf (kDown), in
// place: zeros of either sign to the smallest subnormal, the largest
// finite value to infinity; NaN and infinities stay.
void NudgeInputs(CaseTensors& tensors, const std::vector<std::string>& written,
                 Nudge nudge);

// The results of the baseline on inputs nudged up and down, in the order
// `run` returns them.
struct NudgedResults {
  std::vector<at::Tensor> up;
  std::vector<at::Tensor> down;
};

// `run` on two fresh baselines of `variant` (MaterializeBaselineBefore:
// the values before the op ran), nudged up and down; nullopt when either run
// gives no results (an error).
std::optional<NudgedResults> RunNudged(
    const CaseTensors& variant, const std::vector<std::string>& written,
    const std::function<std::optional<std::vector<at::Tensor>>(CaseTensors&)>&
        run);

// Whether every element of `actual` lies within the span of `expected`,
// `up` and `down` (all of one shape, any layout and device), widened by
// `expected`'s dtype's default tolerance, or is an element where those
// three are not all finite and equal. False when the shapes differ.
bool WithinNudges(const at::Tensor& expected, const at::Tensor& up,
                  const at::Tensor& down, const at::Tensor& actual);

// The reason a finding so explained is low confidence, for `where` (the
// result it is about: "output 0", "grad of self").
std::string IllConditionedReason(const std::string& where);

// Note [Non-finite baselines]
// Where infinities or NaN flow through an op, which elements they reach,
// and whether a kernel checks for them and raises, depends on the order of
// its arithmetic, which a layout changes: slogdet of a matrix with an
// infinite entry gives sign 0 on one path and 1 on another; linalg_solve
// of a singular matrix with an infinite row returns NaN on one path and
// raises "singular" on the other. So a finding is low confidence, with
// the reason below, when
//  - its wrong values, or its rejection on one side, come with inputs that
//    hold an infinity and no NaN and results (of the side that returned)
//    that hold a NaN: inf - inf, 0 * inf or inf / inf happened on the way.
//    A NaN input is left out, as are results that are only infinite: they
//    reach their own elements on every path (neg of inf is -inf);
//  - its wrong gradient comes with an infinity or NaN in the inputs, the
//    grad_outputs or the baseline's forward results: the op's value is not
//    finite there (a singular matrix) or its derivative is taken at an
//    infinity, and the backward's arithmetic meets them (matrix_exp's
//    backward gives other garbage from one identical call to the next;
//    linalg_solve's gradient of a matrix with an infinite entry is NaN on
//    one path and 0 on another).
// A layout bug that reads a gap or a wrong element does not need special
// values: the reducer drops them (simplify_values), and the reduced
// finding stays high.

// Whether some floating or complex tensor of `tensors` holds an infinity
// or a NaN (`nan_only`: a NaN).
bool HoldsNonFinite(const std::vector<at::Tensor>& tensors,
                    bool nan_only = false);

// Whether some floating or complex argument of `before` but those in
// `written` holds an infinity or a NaN.
bool NonFiniteInputs(const CaseTensors& before,
                     const std::vector<std::string>& written);

// Whether some floating or complex argument of `before` but those in
// `written` holds an infinity, and none holds a NaN.
bool InfinitiesWithoutNaN(const CaseTensors& before,
                          const std::vector<std::string>& written);

// The reason a finding so judged is low confidence: of values or a
// rejection, or of a gradient.
std::string NonFiniteReason(bool gradient);

// Why the results named `where` (`b`'s and `v`'s) may differ by the op's
// own instability rather than the layout's mistake, "" when they do not:
// Note [Non-finite baselines] (`forward`: the baseline's forward results;
// `gradient`: the results are gradients) and Note [Ill-conditioned
// baselines] (`run` gives the results on a nudged baseline).
std::string Unstable(
    const CaseTensors& variant, const std::vector<std::string>& written,
    const CallResults& b, const CallResults& v, const std::string& where,
    const std::vector<at::Tensor>& forward, bool gradient,
    const std::function<std::optional<std::vector<at::Tensor>>(CaseTensors&)>&
        run);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_CONDITIONING_H_
