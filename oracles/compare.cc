#include "oracles/compare.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "generators/aten_bridge.h"
#include "generators/materialize.h"
#include "generators/poison.h"

namespace dpfuzz {
namespace {

std::string ElementString(const at::Tensor& dense, int64_t flat) {
  const at::Tensor e = dense.reshape({-1})[flat];
  if (e.is_complex()) {
    const c10::complex<double> z = e.item<c10::complex<double>>();
    return absl::StrCat("(", z.real(), ", ", z.imag(), ")");
  }
  if (e.is_floating_point()) return absl::StrCat(e.item<double>());
  if (e.scalar_type() == at::kBool) return e.item<bool>() ? "true" : "false";
  return absl::StrCat(e.item<int64_t>());
}

bool HoldsPoison(const at::Tensor& dense, int64_t flat) {
  absl::StatusOr<DType> dtype = FromScalarType(dense.scalar_type());
  if (!dtype.ok()) return false;
  const auto* bytes = static_cast<const uint8_t*>(dense.data_ptr());
  return IsPoison(*dtype, bytes + flat * dense.element_size());
}

at::Tensor Widen(const at::Tensor& dense) {
  return dense.to(dense.is_complex() ? at::kComplexDouble : at::kDouble);
}

at::Tensor IsNan(const at::Tensor& wide) {
  return wide.is_complex()
             ? at::isnan(at::real(wide)) | at::isnan(at::imag(wide))
             : at::isnan(wide);
}

}  // namespace

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

at::Tensor ReadDense(const at::Tensor& tensor) {
  absl::StatusOr<DType> dtype = FromScalarType(tensor.scalar_type());
  if (!dtype.ok() || !tensor.has_storage()) {
    return tensor.detach().cpu().contiguous();
  }
  return MakeContiguousTensor(*dtype, tensor.sizes().vec(),
                              ReadLogicalBytes(tensor));
}

std::string MultiIndex(int64_t flat, at::IntArrayRef sizes) {
  std::vector<int64_t> index(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return absl::StrCat("[", absl::StrJoin(index, ", "), "]");
}

std::optional<Difference> CompareValues(const at::Tensor& expected,
                                        const at::Tensor& actual,
                                        Comparison comparison,
                                        const at::Tensor& reference) {
  at::NoGradGuard no_grad;
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
  if (expected.numel() == 0) return std::nullopt;
  const at::Tensor e = ReadDense(expected);
  const at::Tensor a = ReadDense(actual);
  at::Tensor differs;
  at::Tensor error;
  Verdict verdict = Verdict::kMismatch;
  if (!e.is_floating_point() && !e.is_complex()) {
    differs = e.ne(a);
  } else {
    const at::Tensor ew = Widen(e);
    const at::Tensor aw = Widen(a);
    const at::Tensor e_nan = IsNan(ew);
    const at::Tensor a_nan = IsNan(aw);
    const at::Tensor introduced = a_nan & ~e_nan;
    error = at::abs(aw - ew).nan_to_num(0, 0, 0);
    const at::Tensor same = ew.eq(aw) | (e_nan & a_nan);
    if (comparison == Comparison::kExact) {
      differs = ~same;
    } else {
      const Tolerance tol = DefaultTolerance(e.scalar_type());
      at::Tensor allowed = tol.atol + tol.rtol * at::abs(ew);
      if (reference.defined()) {
        const at::Tensor ref = Widen(ReadDense(reference));
        allowed = allowed + tol.rtol * at::abs(ref) +
                  at::abs(ew - ref).nan_to_num(0, 0, 0);
      }
      differs = ~same & ~(at::abs(aw - ew) <= allowed);
    }
    if (introduced.any().item<bool>()) {
      differs = introduced;
      verdict = Verdict::kNanIntroduced;
    }
  }
  const at::Tensor flat = differs.reshape({-1});
  const int64_t count = flat.sum().item<int64_t>();
  if (count == 0) return std::nullopt;
  const int64_t first = flat.nonzero()[0][0].item<int64_t>();
  Difference d;
  d.verdict = verdict;
  d.count = count;
  d.index = MultiIndex(first, e.sizes());
  d.expected = ElementString(e, first);
  d.actual = ElementString(a, first);
  if (error.defined()) d.max_error = error.max().item<double>();
  d.detail =
      absl::StrCat(count, " of ", e.numel(), " elements differ; first at ",
                   d.index, ": expected ", d.expected, ", got ", d.actual,
                   HoldsPoison(a, first) ? " (the poison of a gap)" : "");
  return d;
}

}  // namespace dpfuzz
