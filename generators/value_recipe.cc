#include "generators/value_recipe.h"

#include <array>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dpfuzz {
namespace {

constexpr std::array<std::pair<Distribution, absl::string_view>, 7>
    kDistributions = {{
        {Distribution::kZeros, "zeros"},
        {Distribution::kOnes, "ones"},
        {Distribution::kSmallInt, "small_int"},
        {Distribution::kDyadic, "dyadic"},
        {Distribution::kWide, "wide"},
        {Distribution::kIndices, "indices"},
        {Distribution::kUniqueIndices, "unique_indices"},
    }};

constexpr std::array<std::pair<Special, absl::string_view>, 7> kSpecials = {{
    {kSpecialNaN, "nan"},
    {kSpecialPosInf, "inf"},
    {kSpecialNegInf, "-inf"},
    {kSpecialNegZero, "-0"},
    {kSpecialDenormal, "denormal"},
    {kSpecialIntMin, "int_min"},
    {kSpecialIntMax, "int_max"},
}};

// Finds `name` in a (value, name) table, or lists the accepted names.
template <typename T, size_t N>
absl::StatusOr<T> ParseNamed(
    const std::array<std::pair<T, absl::string_view>, N>& table,
    absl::string_view what, absl::string_view name) {
  std::vector<absl::string_view> names;
  for (const auto& [value, value_name] : table) {
    if (value_name == name) return value;
    names.push_back(value_name);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown ", what, " \"", name,
                                                 "\"; expected one of ",
                                                 absl::StrJoin(names, ", ")));
}

}  // namespace

absl::string_view DistributionName(Distribution distribution) {
  for (const auto& [value, name] : kDistributions) {
    if (value == distribution) return name;
  }
  return "?";
}

absl::StatusOr<Distribution> ParseDistribution(absl::string_view name) {
  return ParseNamed(kDistributions, "distribution", name);
}

absl::string_view SpecialName(Special special) {
  for (const auto& [value, name] : kSpecials) {
    if (value == special) return name;
  }
  return "?";
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
