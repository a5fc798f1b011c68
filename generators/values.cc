#include "generators/values.h"

#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "generators/geometry.h"
#include "generators/poison.h"
#include "generators/rng.h"

namespace dpfuzz {
namespace {

constexpr uint32_t kFloatingSpecials = kSpecialNaN | kSpecialPosInf |
                                       kSpecialNegInf | kSpecialNegZero |
                                       kSpecialDenormal;
constexpr uint32_t kIntegerSpecials = kSpecialIntMin | kSpecialIntMax;

// One special value drawn from `specials` (non-empty, applicable).
Special PickSpecial(uint32_t specials, Rng& rng) {
  std::vector<Special> choices;
  for (uint32_t bit = 1; bit <= kAllSpecials; bit <<= 1) {
    if (specials & bit) choices.push_back(static_cast<Special>(bit));
  }
  return rng.Pick(choices);
}

// Range of an integral dtype as int64 (u8: [0, 255]).
void IntegerRange(DType dtype, int64_t& lo, int64_t& hi) {
  switch (dtype) {
    case DType::kUInt8:
      lo = 0, hi = 255;
      return;
    case DType::kInt8:
      lo = INT8_MIN, hi = INT8_MAX;
      return;
    case DType::kInt16:
      lo = INT16_MIN, hi = INT16_MAX;
      return;
    case DType::kInt32:
      lo = INT32_MIN, hi = INT32_MAX;
      return;
    default:
      lo = INT64_MIN, hi = INT64_MAX;
      return;
  }
}

// Largest binary exponent worth drawing for kWide floats of `dtype`.
int MaxExponent(DType component) {
  switch (component) {
    case DType::kFloat16:
      return 15;
    case DType::kFloat64:
      return 1023;
    default:
      return 127;
  }
}

// `index`: kArange's value of the element drawn.
double DrawReal(Distribution distribution, DType component, int64_t index,
                Rng& rng) {
  switch (distribution) {
    case Distribution::kArange:
      return static_cast<double>(index);
    case Distribution::kZeros:
      return 0.0;
    case Distribution::kOnes:
      return 1.0;
    case Distribution::kSmallInt:
      return static_cast<double>(rng.Uniform(-8, 8));
    case Distribution::kDyadic:
      return static_cast<double>(rng.Uniform(-32, 32)) / 8.0;
    case Distribution::kIndices:
    case Distribution::kUniqueIndices:
      break;  // Drawn by GenerateIndices.
    case Distribution::kExplicit:
      break;  // Given, by GenerateExplicit.
    case Distribution::kWide: {
      const int max_exp = MaxExponent(component);
      const double mantissa = 1.0 + rng.UniformDouble();
      const int exponent =
          static_cast<int>(rng.Uniform(-max_exp + 1, max_exp - 1));
      return (rng.OneIn(2) ? -1.0 : 1.0) * std::ldexp(mantissa, exponent);
    }
  }
  return 0.0;
}

double SpecialReal(Special special, DType component) {
  switch (special) {
    case kSpecialNaN:
      return std::numeric_limits<double>::quiet_NaN();
    case kSpecialPosInf:
      return std::numeric_limits<double>::infinity();
    case kSpecialNegInf:
      return -std::numeric_limits<double>::infinity();
    case kSpecialNegZero:
      return -0.0;
    default:  // kSpecialDenormal: the smallest subnormal of the component.
      switch (component) {
        case DType::kFloat16:
          return std::ldexp(1.0, -24);
        case DType::kBFloat16:
          return std::ldexp(1.0, -133);
        case DType::kFloat32:
          return std::numeric_limits<float>::denorm_min();
        default:
          return std::numeric_limits<double>::denorm_min();
      }
  }
}

// Appends `value` (exactly representable or rounded to nearest) as one
// element of the real floating dtype `component`.
void AppendReal(double value, DType component, std::vector<uint8_t>& out) {
  auto append = [&out](const auto& v) {
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out.insert(out.end(), p, p + sizeof(v));
  };
  switch (component) {
    case DType::kFloat16:
      append(c10::Half(static_cast<float>(value)));
      return;
    case DType::kBFloat16:
      append(c10::BFloat16(static_cast<float>(value)));
      return;
    case DType::kFloat32:
      append(static_cast<float>(value));
      return;
    default:
      append(value);
      return;
  }
}

void AppendInteger(int64_t value, DType dtype, std::vector<uint8_t>& out) {
  uint8_t bytes[8];
  std::memcpy(bytes, &value, 8);  // Little-endian: the low bytes come first.
  out.insert(out.end(), bytes, bytes + ElementSize(dtype));
}

int64_t DrawInteger(const ValueRecipe& recipe, uint32_t specials, DType dtype,
                    int64_t index, Rng& rng) {
  int64_t lo = 0;
  int64_t hi = 1;
  if (dtype != DType::kBool) IntegerRange(dtype, lo, hi);
  if (specials != 0 && rng.OneIn(8)) {
    return PickSpecial(specials, rng) == kSpecialIntMin ? lo : hi;
  }
  switch (recipe.distribution) {
    case Distribution::kZeros:
      return 0;
    case Distribution::kOnes:
      return 1;
    case Distribution::kArange:
      return index;
    case Distribution::kSmallInt:
    case Distribution::kDyadic:
      return dtype == DType::kBool ? rng.Uniform(0, 1)
                                   : rng.Uniform(std::max<int64_t>(lo, -8), 8);
    case Distribution::kWide:
      if (rng.OneIn(4)) return rng.OneIn(2) ? lo : hi;
      return rng.Uniform(lo, hi);
    default:  // Index distributions are drawn by GenerateIndices.
      return 0;
  }
  return 0;
}

// kIndices and kUniqueIndices: integers in [0, high), no specials.
std::vector<uint8_t> GenerateIndices(const ValueRecipe& recipe, DType dtype,
                                     const Dims& sizes) {
  Rng rng(recipe.seed);
  const int64_t numel = ComputeNumel(sizes);
  const int64_t run = sizes.empty() ? 1 : std::max<int64_t>(sizes.back(), 1);
  const int64_t high = std::max<int64_t>(recipe.high, 1);
  std::vector<int64_t> pool(high);
  std::vector<uint8_t> out;
  out.reserve(numel * ElementSize(dtype));
  for (int64_t i = 0; i < numel; ++i) {
    int64_t value;
    if (recipe.distribution == Distribution::kUniqueIndices) {
      // A partial Fisher-Yates shuffle per run of the last dim.
      const int64_t k = (i % run) % high;
      if (k == 0) std::iota(pool.begin(), pool.end(), 0);
      std::swap(pool[k], pool[rng.Uniform(k, high - 1)]);
      value = pool[k];
    } else {
      value = rng.Uniform(0, high - 1);
    }
    if (IsFloating(dtype) || IsComplex(dtype)) {
      for (int c = 0; c < (IsComplex(dtype) ? 2 : 1); ++c) {
        AppendReal(c == 0 ? static_cast<double>(value) : 0.0,
                   ComponentType(dtype), out);
      }
    } else {
      AppendInteger(value, dtype, out);
    }
  }
  return out;
}

// kExplicit: the recipe's values in row-major order, cycled; each converted
// to the dtype (integers clamped to its range, non-zero is true). An
// integer that equals the poison pattern is moved off it; a float cannot
// (a case file's "nan" reads back as the default quiet NaN, never the
// poison's payload).
std::vector<uint8_t> GenerateExplicit(const ValueRecipe& recipe, DType dtype,
                                      const Dims& sizes) {
  const int64_t numel = ComputeNumel(sizes);
  std::vector<uint8_t> out;
  out.reserve(numel * ElementSize(dtype));
  int64_t lo = 0;
  int64_t hi = 1;
  if (IsIntegral(dtype)) IntegerRange(dtype, lo, hi);
  for (int64_t i = 0; i < numel; ++i) {
    const size_t start = out.size();
    double v = recipe.data.empty() ? 0.0 : recipe.data[i % recipe.data.size()];
    if (IsFloating(dtype) || IsComplex(dtype)) {
      AppendReal(v, ComponentType(dtype), out);
      if (IsComplex(dtype)) AppendReal(0.0, ComponentType(dtype), out);
    } else if (dtype == DType::kBool) {
      AppendInteger(v != 0 ? 1 : 0, dtype, out);
    } else {
      // Compared as doubles first: casting one past int64's range is UB.
      const int64_t n = std::isnan(v)                  ? 0
                        : v >= static_cast<double>(hi) ? hi
                        : v <= static_cast<double>(lo)
                            ? lo
                            : static_cast<int64_t>(v);
      AppendInteger(n, dtype, out);
      if (IsPoison(dtype, out.data() + start)) {
        out.resize(start);
        AppendInteger(n > lo ? n - 1 : n + 1, dtype, out);
      }
    }
  }
  return out;
}

}  // namespace

uint32_t ApplicableSpecials(uint32_t specials, DType dtype) {
  if (IsFloating(dtype) || IsComplex(dtype))
    return specials & kFloatingSpecials;
  if (IsIntegral(dtype)) return specials & kIntegerSpecials;
  return 0;
}

std::vector<uint8_t> GenerateValues(const ValueRecipe& recipe, DType dtype,
                                    const Dims& sizes) {
  if (recipe.distribution == Distribution::kIndices ||
      recipe.distribution == Distribution::kUniqueIndices) {
    return GenerateIndices(recipe, dtype, sizes);
  }
  if (recipe.distribution == Distribution::kExplicit) {
    return GenerateExplicit(recipe, dtype, sizes);
  }
  const int64_t numel = ComputeNumel(sizes);
  Rng rng(recipe.seed);
  const uint32_t specials = ApplicableSpecials(recipe.specials, dtype);
  const int64_t element_size = ElementSize(dtype);
  std::vector<uint8_t> out;
  out.reserve(numel * element_size);
  const DType component = ComponentType(dtype);
  const int components = IsComplex(dtype) ? 2 : 1;
  for (int64_t i = 0; i < numel; ++i) {
    const size_t start = out.size();
    const int64_t index = dtype == DType::kBool ? i % 2 : i % 64;
    do {  // Redraw the rare value that equals the poison pattern.
      out.resize(start);
      if (IsFloating(dtype) || IsComplex(dtype)) {
        for (int c = 0; c < components; ++c) {
          const double v =
              (specials != 0 && rng.OneIn(8))
                  ? SpecialReal(PickSpecial(specials, rng), component)
                  : DrawReal(recipe.distribution, component, c == 0 ? index : 0,
                             rng);
          AppendReal(v, component, out);
        }
      } else {
        AppendInteger(DrawInteger(recipe, specials, dtype, index, rng), dtype,
                      out);
      }
    } while (IsPoison(dtype, out.data() + start));
  }
  return out;
}

}  // namespace dpfuzz
