#include "cuda/dense_compare.h"

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuda/device_buffer.h"
#include "tests/cuda/cuda_test_util.h"

namespace dpfuzz {
namespace {

using Complex = std::complex<double>;

bool IsFloatingOrComplex(DType dtype) {
  return IsFloating(dtype) || IsComplex(dtype);
}

// One element of `dtype` holding `value` (the imaginary part is dropped
// for real dtypes), little-endian.
std::vector<uint8_t> Encode(DType dtype, Complex value) {
  std::vector<uint8_t> bytes(ElementSize(dtype));
  const auto put = [&bytes](const auto& part, size_t at) {
    std::memcpy(bytes.data() + at, &part, sizeof(part));
  };
  const auto re = static_cast<float>(value.real());
  const auto im = static_cast<float>(value.imag());
  switch (dtype) {
    case DType::kFloat16:
      put(c10::Half(re).x, 0);
      break;
    case DType::kBFloat16:
      put(c10::BFloat16(re).x, 0);
      break;
    case DType::kFloat32:
      put(re, 0);
      break;
    case DType::kFloat64:
      put(value.real(), 0);
      break;
    case DType::kComplex64:
      put(re, 0);
      put(im, 4);
      break;
    case DType::kComplex128:
      put(value.real(), 0);
      put(value.imag(), 8);
      break;
    default:
      ADD_FAILURE() << "no values for " << dtype;
  }
  return bytes;
}

// The host reading of one element, for the host reference below.
Complex Decode(DType dtype, const uint8_t* p) {
  const auto get = [p](auto part, size_t at) {
    std::memcpy(&part, p + at, sizeof(part));
    return part;
  };
  switch (dtype) {
    case DType::kFloat16:
      return static_cast<float>(
          c10::Half(get(uint16_t{}, 0), c10::Half::from_bits()));
    case DType::kBFloat16:
      return static_cast<float>(
          c10::BFloat16(get(uint16_t{}, 0), c10::BFloat16::from_bits()));
    case DType::kFloat32:
      return get(float{}, 0);
    case DType::kFloat64:
      return get(double{}, 0);
    case DType::kComplex64:
      return {get(float{}, 0), get(float{}, 4)};
    case DType::kComplex128:
      return {get(double{}, 0), get(double{}, 8)};
    default:
      return {};
  }
}

bool IsNan(Complex v) { return std::isnan(v.real()) || std::isnan(v.imag()); }
bool IsInf(Complex v) { return std::isinf(v.real()) || std::isinf(v.imag()); }
bool IsFinite(Complex v) {
  return std::isfinite(v.real()) && std::isfinite(v.imag());
}

// What CompareDense must return, computed element by element on the host.
CompareResult HostCompare(const std::vector<uint8_t>& actual,
                          const std::vector<uint8_t>& expected, DType dtype,
                          const CompareOptions& options) {
  const int64_t size = ElementSize(dtype);
  CompareResult r;
  r.numel = static_cast<int64_t>(actual.size()) / size;
  for (int64_t i = 0; i < r.numel; ++i) {
    const uint8_t* a_bytes = actual.data() + i * size;
    const uint8_t* e_bytes = expected.data() + i * size;
    const bool bits_equal = std::memcmp(a_bytes, e_bytes, size) == 0;
    bool same = bits_equal;
    if (IsFloatingOrComplex(dtype)) {
      const Complex a = Decode(dtype, a_bytes);
      const Complex e = Decode(dtype, e_bytes);
      r.nan_actual += IsNan(a);
      r.nan_expected += IsNan(e);
      r.inf_actual += IsInf(a);
      r.inf_expected += IsInf(e);
      const bool finite = IsFinite(a) && IsFinite(e);
      const double diff =
          IsComplex(dtype) ? std::abs(a - e) : std::fabs(a.real() - e.real());
      const double magnitude =
          IsComplex(dtype) ? std::abs(e) : std::fabs(e.real());
      if (finite) r.max_abs_diff = std::max(r.max_abs_diff, diff);
      const bool both_nan = options.equal_nan && IsNan(a) && IsNan(e);
      if (options.mode == CompareMode::kBitwise) {
        same = bits_equal || both_nan;
      } else if (finite) {
        same = diff <= options.atol + options.rtol * magnitude;
      } else {
        same = a == e || both_nan;
      }
    }
    if (!same && r.mismatches++ == 0) r.first_mismatch = i;
  }
  return r;
}

void ExpectSameResult(const CompareResult& got, const CompareResult& want) {
  EXPECT_EQ(got.numel, want.numel);
  EXPECT_EQ(got.mismatches, want.mismatches);
  EXPECT_EQ(got.first_mismatch, want.first_mismatch);
  EXPECT_EQ(got.nan_actual, want.nan_actual);
  EXPECT_EQ(got.nan_expected, want.nan_expected);
  EXPECT_EQ(got.inf_actual, want.inf_actual);
  EXPECT_EQ(got.inf_expected, want.inf_expected);
  EXPECT_DOUBLE_EQ(got.max_abs_diff, want.max_abs_diff);
}

// Uploads both sides and compares them on the device.
absl::StatusOr<CompareResult> DeviceCompare(
    const std::vector<uint8_t>& actual, const std::vector<uint8_t>& expected,
    DType dtype, const CompareOptions& options) {
  DPFUZZ_ASSIGN_OR_RETURN(DeviceBuffer a, DeviceBuffer::FromHost(actual));
  DPFUZZ_ASSIGN_OR_RETURN(DeviceBuffer e, DeviceBuffer::FromHost(expected));
  return CompareDense(a.data(), e.data(),
                      static_cast<int64_t>(actual.size()) / ElementSize(dtype),
                      dtype, options);
}

std::vector<CompareOptions> AllModes() {
  std::vector<CompareOptions> modes;
  for (const CompareMode mode :
       {CompareMode::kBitwise, CompareMode::kTolerance}) {
    for (const bool equal_nan : {true, false}) {
      modes.push_back({mode, 1e-3, 1e-2, equal_nan});
    }
  }
  return modes;
}

// The dtypes read as numbers: NaN, Inf and tolerances apply.
std::vector<DType> FloatingAndComplexDTypes() {
  std::vector<DType> dtypes;
  for (const DType dtype : AllDTypes()) {
    if (IsFloatingOrComplex(dtype)) dtypes.push_back(dtype);
  }
  return dtypes;
}

// `values` as consecutive elements of `dtype`.
std::vector<uint8_t> Elements(DType dtype, const std::vector<Complex>& values) {
  std::vector<uint8_t> bytes;
  for (const Complex& v : values) {
    const std::vector<uint8_t> e = Encode(dtype, v);
    bytes.insert(bytes.end(), e.begin(), e.end());
  }
  return bytes;
}

// Each test loops over its dtypes: CTest starts a process per test.
using DenseCompareTest = GpuTest;

// Random bit patterns (NaNs, infinities, denormals, huge values included),
// then a few bytes changed here and there: every field against the host.
TEST_F(DenseCompareTest, RandomBuffersMatchHostReference) {
  for (const DType dtype : AllDTypes()) {
    SCOPED_TRACE(DTypeName(dtype));
    std::mt19937_64 rng(static_cast<int>(dtype));
    const int64_t numel = 5000;
    const std::vector<uint8_t> expected =
        RandomBytes(numel * ElementSize(dtype), rng);
    std::vector<uint8_t> actual = expected;
    for (int k = 0; k < 60; ++k) {
      actual[rng() % actual.size()] ^= 1 << (rng() % 8);
    }
    for (const CompareOptions& options : AllModes()) {
      SCOPED_TRACE(::testing::Message()
                   << "mode " << static_cast<int>(options.mode) << " equal_nan "
                   << options.equal_nan);
      DPFUZZ_ASSERT_OK_AND_ASSIGN(
          const CompareResult same,
          DeviceCompare(expected, expected, dtype, options));
      ExpectSameResult(same, HostCompare(expected, expected, dtype, options));
      DPFUZZ_ASSERT_OK_AND_ASSIGN(
          const CompareResult got,
          DeviceCompare(actual, expected, dtype, options));
      const CompareResult want = HostCompare(actual, expected, dtype, options);
      ExpectSameResult(got, want);
      EXPECT_GT(want.mismatches, 0);
    }
  }
}

// Differences planted far apart in a buffer larger than one pass of the
// grid: the lowest index wins, whichever block found it first.
TEST_F(DenseCompareTest, FirstMismatchIsTheLowestIndex) {
  for (const DType dtype : AllDTypes()) {
    SCOPED_TRACE(DTypeName(dtype));
    const int64_t size = ElementSize(dtype);
    const int64_t numel = (int64_t{1} << 20) + 3;
    const std::vector<uint8_t> expected(numel * size, 0);
    std::vector<uint8_t> actual = expected;
    // 0x40 in the top byte of the (real part's) first component: 2.0 for
    // every floating dtype, far outside any tolerance.
    const int64_t top = ElementSize(ComponentType(dtype)) - 1;
    for (const int64_t i : {999999, 300000, 700001, 1048578, 300001}) {
      actual[i * size + top] = 0x40;
    }
    for (const CompareOptions& options : AllModes()) {
      DPFUZZ_ASSERT_OK_AND_ASSIGN(
          const CompareResult r,
          DeviceCompare(actual, expected, dtype, options));
      EXPECT_EQ(r.first_mismatch, 300000);
      EXPECT_EQ(r.mismatches, 5);
      EXPECT_FALSE(r.equal());
    }
  }
}

// NaN payloads, infinities of both signs, signed zeros: each mode's rule.
TEST_F(DenseCompareTest, NanInfAndSignedZero) {
  for (const DType dtype : FloatingAndComplexDTypes()) {
    SCOPED_TRACE(DTypeName(dtype));
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double im = IsComplex(dtype) ? 0.5 : 0.0;
    const std::vector<uint8_t> expected = Elements(dtype, {{1, im},
                                                           {nan, im},
                                                           {inf, im},
                                                           {inf, im},
                                                           {0.0, im},
                                                           {2, im},
                                                           {1024, im}});
    std::vector<uint8_t> actual = Elements(dtype, {{1, im},
                                                   {nan, im},
                                                   {inf, im},
                                                   {-inf, im},
                                                   {-0.0, im},
                                                   {nan, im},
                                                   {inf, im}});
    actual[1 * ElementSize(dtype)] ^= 1;  // Another NaN payload.
    struct Case {
      CompareOptions options;
      int64_t mismatches;
      int64_t first;
    };
    const Case cases[] = {
        {{CompareMode::kBitwise, 0, 0, true}, 4, 3},
        {{CompareMode::kBitwise, 0, 0, false}, 5, 1},
        {{CompareMode::kTolerance, 0, 0, true}, 3, 3},
        {{CompareMode::kTolerance, 0, 0, false}, 4, 1},
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::Message()
                   << "mode " << static_cast<int>(c.options.mode)
                   << " equal_nan " << c.options.equal_nan);
      DPFUZZ_ASSERT_OK_AND_ASSIGN(
          const CompareResult r,
          DeviceCompare(actual, expected, dtype, c.options));
      EXPECT_EQ(r.mismatches, c.mismatches);
      EXPECT_EQ(r.first_mismatch, c.first);
      EXPECT_EQ(r.nan_actual, 2);
      EXPECT_EQ(r.nan_expected, 1);
      EXPECT_EQ(r.inf_actual, 3);
      EXPECT_EQ(r.inf_expected, 2);
      EXPECT_EQ(r.max_abs_diff, 0);
    }
  }
}

// |actual - expected| <= atol + rtol * |expected|, relative to the
// expected side, at and just past the bound.
TEST_F(DenseCompareTest, ToleranceBounds) {
  for (const DType dtype : FloatingAndComplexDTypes()) {
    SCOPED_TRACE(DTypeName(dtype));
    const std::vector<uint8_t> expected = Elements(dtype, {1, 1, 2, 2, 1});
    const std::vector<uint8_t> actual =
        Elements(dtype, {1.5, 1.625, 3, 3.25, 1});
    struct Case {
      CompareOptions options;
      int64_t mismatches;
      int64_t first;
    };
    const Case cases[] = {
        {{CompareMode::kTolerance, 0.5, 0, true}, 3, 1},
        {{CompareMode::kTolerance, 0, 0.5, true}, 2, 1},
        {{CompareMode::kTolerance, 1.25, 0, true}, 0, -1},
        {{CompareMode::kBitwise, 10, 10, true}, 4, 0},  // Bitwise ignores both.
    };
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::Message()
                   << "atol " << c.options.atol << " rtol " << c.options.rtol);
      DPFUZZ_ASSERT_OK_AND_ASSIGN(
          const CompareResult r,
          DeviceCompare(actual, expected, dtype, c.options));
      EXPECT_EQ(r.mismatches, c.mismatches);
      EXPECT_EQ(r.first_mismatch, c.first);
      EXPECT_DOUBLE_EQ(r.max_abs_diff, 1.25);
    }
  }
}

// Complex tolerance uses the modulus of the difference, not its parts.
TEST_F(DenseCompareTest, ComplexToleranceUsesTheModulus) {
  for (const DType dtype : {DType::kComplex64, DType::kComplex128}) {
    const std::vector<uint8_t> expected = Encode(dtype, {0, 0});
    const std::vector<uint8_t> actual = Encode(dtype, {3, 4});
    DPFUZZ_ASSERT_OK_AND_ASSIGN(
        const CompareResult inside,
        DeviceCompare(actual, expected, dtype,
                      {CompareMode::kTolerance, 5.25, 0, true}));
    EXPECT_TRUE(inside.equal());
    EXPECT_DOUBLE_EQ(inside.max_abs_diff, 5);
    DPFUZZ_ASSERT_OK_AND_ASSIGN(
        const CompareResult outside,
        DeviceCompare(actual, expected, dtype,
                      {CompareMode::kTolerance, 4.75, 0, true}));
    EXPECT_EQ(outside.first_mismatch, 0);
  }
}

// Integers and bool are exact whatever the tolerances.
TEST_F(DenseCompareTest, IntegersAndBoolAreExact) {
  const std::vector<int32_t> e32 = {1, 2, 3};
  const std::vector<int32_t> a32 = {1, 3, 3};
  const auto bytes = [](const std::vector<int32_t>& v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  const CompareOptions loose{CompareMode::kTolerance, 10, 1, true};
  DPFUZZ_ASSERT_OK_AND_ASSIGN(
      const CompareResult ints,
      DeviceCompare(bytes(a32), bytes(e32), DType::kInt32, loose));
  EXPECT_EQ(ints.mismatches, 1);
  EXPECT_EQ(ints.first_mismatch, 1);
  EXPECT_EQ(ints.max_abs_diff, 0);
  EXPECT_EQ(ints.nan_actual + ints.inf_actual, 0);
  DPFUZZ_ASSERT_OK_AND_ASSIGN(
      const CompareResult bools,
      DeviceCompare({1, 0, 2}, {1, 0, 1}, DType::kBool, loose));
  EXPECT_EQ(bools.first_mismatch, 2);
}

TEST_F(DenseCompareTest, RejectsHostMemory) {
  const std::vector<float> host(4);
  DPFUZZ_ASSERT_OK_AND_ASSIGN(DeviceBuffer device, DeviceBuffer::Allocate(16));
  const absl::StatusOr<CompareResult> r =
      CompareDense(host.data(), device.data(), 4, DType::kFloat32);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument)
      << r.status();
}

}  // namespace
}  // namespace dpfuzz
