#include "oracles/resource_oracles.h"

#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace dpfuzz {

absl::StatusOr<ResourceOracles> ParseOracleList(absl::string_view list) {
  ResourceOracles on;
  for (absl::string_view entry :
       absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    const absl::string_view name = absl::StripAsciiWhitespace(entry);
    if (name == "leak") {
      on.leak = true;
    } else if (name == "memory") {
      on.memory = true;
    } else if (name == "perf") {
      on.perf = true;
    } else if (name == "all") {
      on.leak = on.memory = on.perf = true;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--oracles: unknown oracle \"", name,
                       "\"; the opt-in oracles are leak, memory, perf and "
                       "all (the value oracles always run)"));
    }
  }
  return on;
}

void TurnOnOracleOf(Verdict verdict, ResourceOracles& oracles) {
  oracles.leak |= verdict == Verdict::kLeak;
  oracles.memory |= verdict == Verdict::kMemoryAmplification;
  oracles.perf |= verdict == Verdict::kPerfCliff;
}

std::string OracleList(const ResourceOracles& oracles) {
  std::vector<std::string> names;
  if (oracles.leak) names.emplace_back("leak");
  if (oracles.memory) names.emplace_back("memory");
  if (oracles.perf) names.emplace_back("perf");
  return absl::StrJoin(names, ",");
}

}  // namespace dpfuzz
