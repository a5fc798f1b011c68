#include "generators/value_recipe.h"

#include <array>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/named_values.h"

namespace dpfuzz {
namespace {

constexpr NameTable<Distribution, 9> kDistributions = {{
    {Distribution::kZeros, "zeros"},
    {Distribution::kOnes, "ones"},
    {Distribution::kSmallInt, "small_int"},
    {Distribution::kDyadic, "dyadic"},
    {Distribution::kWide, "wide"},
    {Distribution::kIndices, "indices"},
    {Distribution::kUniqueIndices, "unique_indices"},
    {Distribution::kExplicit, "explicit"},
    {Distribution::kArange, "arange"},
}};

constexpr NameTable<Special, 7> kSpecials = {{
    {kSpecialNaN, "nan"},
    {kSpecialPosInf, "inf"},
    {kSpecialNegInf, "-inf"},
    {kSpecialNegZero, "-0"},
    {kSpecialDenormal, "denormal"},
    {kSpecialIntMin, "int_min"},
    {kSpecialIntMax, "int_max"},
}};

}  // namespace

absl::string_view DistributionName(Distribution distribution) {
  return NameOf(kDistributions, distribution);
}

absl::StatusOr<Distribution> ParseDistribution(absl::string_view name) {
  return ParseNamed(kDistributions, "distribution", name);
}

absl::string_view SpecialName(Special special) {
  return NameOf(kSpecials, special);
}

absl::StatusOr<Special> ParseSpecial(absl::string_view name) {
  return ParseNamed(kSpecials, "special value", name);
}

std::string ValueRecipeToString(const ValueRecipe& recipe) {
  std::string out = absl::StrCat(DistributionName(recipe.distribution));
  if (recipe.distribution == Distribution::kIndices ||
      recipe.distribution == Distribution::kUniqueIndices) {
    absl::StrAppend(&out, "<", recipe.high);
  }
  if (recipe.distribution == Distribution::kExplicit) {
    absl::StrAppend(&out, "[", recipe.data.size(), "]");
  }
  absl::StrAppend(&out, "#", recipe.seed);
  std::vector<absl::string_view> names;
  for (const auto& [value, name] : kSpecials) {
    if (recipe.specials & value) names.push_back(name);
  }
  if (!names.empty()) absl::StrAppend(&out, "+", absl::StrJoin(names, ","));
  return out;
}

std::ostream& operator<<(std::ostream& os, const ValueRecipe& recipe) {
  return os << ValueRecipeToString(recipe);
}

}  // namespace dpfuzz
