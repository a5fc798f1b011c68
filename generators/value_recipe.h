// ValueRecipe: how the logical values of a tensor are drawn.
//
// A recipe is a seed, a distribution and a set of special values to sprinkle
// in. It is part of a TensorSpec, so a case file pins the exact values
// without storing them. Distributions are chosen so that most of them are
// exactly representable in every dtype (Note [Exact values]), which is what
// lets non-accumulating ops be compared bit for bit across layouts.
//
//   ValueRecipe{.seed = 7, .distribution = Distribution::kDyadic,
//               .specials = kSpecialNaN | kSpecialNegZero}
//   prints as "dyadic#7+nan,-0"
//
// kExplicit keeps the values themselves (`data`, row-major, cycled when the
// tensor has more elements): seeds recorded from PyTorch's own samples
// (generators/seed_corpus.h) hold indices a real forward produced, masks,
// lengths and offsets that only those exact values make valid.
//
// Note [Exact values]
// kZeros, kOnes, kArange, kSmallInt and kDyadic only produce values that every
// dtype dpfuzz generates holds exactly (bf16 has 8 significant bits, so small
// integers and eighths up to 4 fit), and that stay exact through a few
// additions and multiplications. kWide is for ops whose bugs hide at the
// extremes; it is not exact under accumulation.

#ifndef DPFUZZ_GENERATORS_VALUE_RECIPE_H_
#define DPFUZZ_GENERATORS_VALUE_RECIPE_H_

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dpfuzz {

enum class Distribution : uint8_t {
  kZeros,     // Every element 0.
  kOnes,      // Every element 1 (true for bool).
  kSmallInt,  // Integers in [-8, 8] ([0, 8] unsigned, {0, 1} bool).
  kDyadic,    // Multiples of 1/8 in [-4, 4]; integral dtypes: as kSmallInt.
  kWide,      // Across the dtype's range: extremes, large and tiny values.
  kIndices,   // Integers in [0, high): valid indices into a dim of size high.
  kUniqueIndices,  // As kIndices, distinct within each run of the last dim
                   // (scatter targets without duplicates); needs
                   // size(-1) <= high.
  kExplicit,       // The values of `data`, converted to the dtype.
  kArange,  // Element i (row-major) is i % 64: torch.arange's values, exact
            // in every dtype (bool: i % 2); what a reduced case's values
            // become when they can (reducers/reduction_passes.cc).
};

// Special values, a bit set. Each applies only where the dtype has it: the
// floating ones to floating and complex dtypes, the integer ones to integral.
enum Special : uint32_t {
  kSpecialNaN = 1u << 0,       // quiet NaN
  kSpecialPosInf = 1u << 1,    // +Inf
  kSpecialNegInf = 1u << 2,    // -Inf
  kSpecialNegZero = 1u << 3,   // -0.0
  kSpecialDenormal = 1u << 4,  // the smallest positive subnormal
  kSpecialIntMin = 1u << 5,    // the integer type's minimum
  kSpecialIntMax = 1u << 6,    // the integer type's maximum
};
inline constexpr uint32_t kAllSpecials = (1u << 7) - 1;

struct ValueRecipe {
  uint64_t seed = 0;
  Distribution distribution = Distribution::kSmallInt;
  uint32_t specials = 0;  // Bit set of Special.
  int64_t high = 0;       // Exclusive bound of kIndices, kUniqueIndices.
  std::vector<double> data = {};  // kExplicit's values; empty for the others.

  friend bool operator==(const ValueRecipe& a, const ValueRecipe& b) {
    // `data` compares by bits: a NaN equals itself, -0.0 differs from 0.0.
    return a.seed == b.seed && a.distribution == b.distribution &&
           a.specials == b.specials && a.high == b.high &&
           SameBits(a.data, b.data);
  }
  friend bool operator!=(const ValueRecipe& a, const ValueRecipe& b) {
    return !(a == b);
  }
  template <typename H>
  friend H AbslHashValue(H h, const ValueRecipe& r) {
    h = H::combine(std::move(h), r.seed, r.distribution, r.specials, r.high,
                   r.data.size());
    for (double v : r.data) h = H::combine(std::move(h), BitsOf(v));
    return h;
  }

 private:
  static uint64_t BitsOf(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    return bits;
  }
  static bool SameBits(const std::vector<double>& a,
                       const std::vector<double>& b) {
    return a.size() == b.size() &&
           (a.empty() ||
            std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
  }
};

// "zeros", "ones", "small_int", "dyadic", "wide", "indices", "unique_indices".
absl::string_view DistributionName(Distribution distribution);
absl::StatusOr<Distribution> ParseDistribution(absl::string_view name);

// "nan", "inf", "-inf", "-0", "denormal", "int_min", "int_max".
absl::string_view SpecialName(Special special);
absl::StatusOr<Special> ParseSpecial(absl::string_view name);

// "dyadic#7+nan,-0"; "small_int#3" without specials; "indices<5#3";
// "explicit[12]#0" (12 values).
std::string ValueRecipeToString(const ValueRecipe& recipe);
std::ostream& operator<<(std::ostream& os, const ValueRecipe& recipe);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_VALUE_RECIPE_H_
