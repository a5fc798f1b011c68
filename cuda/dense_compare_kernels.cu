// Kernels of cuda/dense_compare.h: every element is judged, NaN and Inf
// counted, and the lowest differing index kept with atomicMin, so the
// result does not depend on how threads are scheduled.

#include <cuda_fp16.h>

#include "cuda/kernel_util.cuh"
#include "cuda/kernels.h"

namespace dpfuzz::cuda_kernels {
namespace {

template <ValueKind kKind>
constexpr bool kIsComplex =
    kKind == ValueKind::kComplex64 || kKind == ValueKind::kComplex128;

// Bytes of one real component.
template <ValueKind kKind>
constexpr int kPartBytes =
    kKind == ValueKind::kFloat16 || kKind == ValueKind::kBFloat16    ? 2
    : kKind == ValueKind::kFloat32 || kKind == ValueKind::kComplex64 ? 4
                                                                     : 8;

struct Value {
  double re;
  double im;
};

// Element i of `data` as a (real, imag) pair of doubles, exactly.
template <ValueKind kKind>
__device__ __forceinline__ Value Load(const void* data, int64_t i) {
  if constexpr (kKind == ValueKind::kFloat16) {
    __half_raw raw;
    raw.x = static_cast<const unsigned short*>(data)[i];
    return {static_cast<double>(__half2float(__half(raw))), 0.0};
  } else if constexpr (kKind == ValueKind::kBFloat16) {
    const unsigned int bits =
        static_cast<unsigned int>(static_cast<const unsigned short*>(data)[i])
        << 16;
    return {static_cast<double>(__uint_as_float(bits)), 0.0};
  } else if constexpr (kKind == ValueKind::kFloat32) {
    return {static_cast<double>(static_cast<const float*>(data)[i]), 0.0};
  } else if constexpr (kKind == ValueKind::kFloat64) {
    return {static_cast<const double*>(data)[i], 0.0};
  } else if constexpr (kKind == ValueKind::kComplex64) {
    const float* parts = static_cast<const float*>(data) + 2 * i;
    return {static_cast<double>(parts[0]), static_cast<double>(parts[1])};
  } else {
    static_assert(kKind == ValueKind::kComplex128);
    const double* parts = static_cast<const double*>(data) + 2 * i;
    return {parts[0], parts[1]};
  }
}

// Element i compared bit for bit, one component word at a time (the host
// API checked that both buffers are aligned to the component size).
template <ValueKind kKind>
__device__ __forceinline__ bool BitsEqual(const CompareArgs& args, int64_t i) {
  if constexpr (kKind == ValueKind::kBytes) {
    const uint8_t* a =
        static_cast<const uint8_t*>(args.actual) + i * args.element_size;
    const uint8_t* e =
        static_cast<const uint8_t*>(args.expected) + i * args.element_size;
    for (int b = 0; b < args.element_size; ++b) {
      if (a[b] != e[b]) return false;
    }
    return true;
  } else {
    constexpr int kParts = kIsComplex<kKind> ? 2 : 1;
    using Part = typename Word<kPartBytes<kKind>>::type;
    const Part* a = static_cast<const Part*>(args.actual) + kParts * i;
    const Part* e = static_cast<const Part*>(args.expected) + kParts * i;
    for (int p = 0; p < kParts; ++p) {
      if (a[p] != e[p]) return false;
    }
    return true;
  }
}

// |x| of a value: the modulus for complex values, exact when a part is
// zero (CUDA's hypot promises 2 ulp, not exactness, and a tolerance bound
// met with equality must hold as it does on the host).
template <ValueKind kKind>
__device__ __forceinline__ double Magnitude(double re, double im) {
  if constexpr (kIsComplex<kKind>) {
    if (im == 0) return fabs(re);
    if (re == 0) return fabs(im);
    return hypot(re, im);
  } else {
    return fabs(re);
  }
}

template <ValueKind kKind>
__global__ void CompareKernel(const CompareArgs args,
                              CompareCounters* counters) {
  unsigned long long first = kNone;
  unsigned long long mismatches = 0;
  unsigned long long nan_actual = 0;
  unsigned long long nan_expected = 0;
  unsigned long long inf_actual = 0;
  unsigned long long inf_expected = 0;
  double max_abs_diff = 0;
  for (int64_t i = GridStart(); i < args.numel; i += GridStep()) {
    bool same;
    if constexpr (kKind == ValueKind::kBytes) {
      same = BitsEqual<kKind>(args, i);
    } else {
      const Value a = Load<kKind>(args.actual, i);
      const Value e = Load<kKind>(args.expected, i);
      const bool a_nan = isnan(a.re) || isnan(a.im);
      const bool e_nan = isnan(e.re) || isnan(e.im);
      nan_actual += a_nan;
      nan_expected += e_nan;
      inf_actual += isinf(a.re) || isinf(a.im);
      inf_expected += isinf(e.re) || isinf(e.im);
      const bool finite =
          isfinite(a.re) && isfinite(a.im) && isfinite(e.re) && isfinite(e.im);
      const double diff = Magnitude<kKind>(a.re - e.re, a.im - e.im);
      if (finite && diff > max_abs_diff) max_abs_diff = diff;
      const bool both_nan = args.equal_nan && a_nan && e_nan;
      if (!args.tolerance) {
        same = BitsEqual<kKind>(args, i) || both_nan;
      } else if (finite) {
        // torch.isclose's bound, rounded as written (no fused multiply-add),
        // so that a host computes the same verdict.
        same = diff <=
               __dadd_rn(args.atol,
                         __dmul_rn(args.rtol, Magnitude<kKind>(e.re, e.im)));
      } else {
        // Infinities equal only themselves (sign included); NaN never
        // equals a number.
        same = (a.re == e.re && a.im == e.im) || both_nan;
      }
    }
    if (!same) {
      if (first == kNone) first = static_cast<unsigned long long>(i);
      ++mismatches;
    }
  }
  if (mismatches != 0) {
    atomicMin(&counters->first_mismatch, first);
    atomicAdd(&counters->mismatches, mismatches);
  }
  if (nan_actual != 0) atomicAdd(&counters->nan_actual, nan_actual);
  if (nan_expected != 0) atomicAdd(&counters->nan_expected, nan_expected);
  if (inf_actual != 0) atomicAdd(&counters->inf_actual, inf_actual);
  if (inf_expected != 0) atomicAdd(&counters->inf_expected, inf_expected);
  if (max_abs_diff > 0) {
    atomicMax(
        &counters->max_abs_diff_bits,
        static_cast<unsigned long long>(__double_as_longlong(max_abs_diff)));
  }
}

template <ValueKind kKind>
cudaError_t LaunchCompareAs(const CompareArgs& args,
                            CompareCounters* counters) {
  CompareKernel<kKind>
      <<<BlocksFor(args.numel), kThreadsPerBlock>>>(args, counters);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchCompare(const CompareArgs& args, CompareCounters* counters) {
  switch (args.kind) {
    case ValueKind::kBytes:
      return LaunchCompareAs<ValueKind::kBytes>(args, counters);
    case ValueKind::kFloat16:
      return LaunchCompareAs<ValueKind::kFloat16>(args, counters);
    case ValueKind::kBFloat16:
      return LaunchCompareAs<ValueKind::kBFloat16>(args, counters);
    case ValueKind::kFloat32:
      return LaunchCompareAs<ValueKind::kFloat32>(args, counters);
    case ValueKind::kFloat64:
      return LaunchCompareAs<ValueKind::kFloat64>(args, counters);
    case ValueKind::kComplex64:
      return LaunchCompareAs<ValueKind::kComplex64>(args, counters);
    case ValueKind::kComplex128:
      return LaunchCompareAs<ValueKind::kComplex128>(args, counters);
  }
  return cudaErrorInvalidValue;
}

}  // namespace dpfuzz::cuda_kernels
