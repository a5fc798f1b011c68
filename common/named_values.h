// Names for enum values: one table per enum, looked up both ways.
//
// Every enum that appears in files or on the command line (variants,
// verdicts, distributions, ...) keeps a constexpr table of (value, name)
// pairs; these two functions read it, and parse errors list every accepted
// name.
//
//   constexpr std::array<std::pair<Variant, absl::string_view>, 2> kNames =
//       {{{Variant::kFunctional, "functional"}, {Variant::kOut, "out"}}};
//   NameOf(kNames, Variant::kOut)            -> "out"
//   ParseNamed(kNames, "variant", "outt")    -> error: unknown variant "outt";
//                                               expected one of functional, out

#ifndef DPFUZZ_COMMON_NAMED_VALUES_H_
#define DPFUZZ_COMMON_NAMED_VALUES_H_

#include <array>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"

namespace dpfuzz {

template <typename T, size_t N>
using NameTable = std::array<std::pair<T, absl::string_view>, N>;

// The name of `value`, "?" if the table lacks it.
template <typename T, size_t N>
absl::string_view NameOf(const NameTable<T, N>& table, T value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return "?";
}

// The value named `name`; `what` names the kind in the error.
template <typename T, size_t N>
absl::StatusOr<T> ParseNamed(const NameTable<T, N>& table,
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

}  // namespace dpfuzz

#endif  // DPFUZZ_COMMON_NAMED_VALUES_H_
