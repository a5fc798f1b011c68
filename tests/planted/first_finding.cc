#include "tests/planted/first_finding.h"

#include "common/status_macros.h"
#include "oracles/case_builder.h"

namespace dpfuzz {

absl::StatusOr<std::optional<Finding>> FirstFinding(const OpSpec& spec,
                                                    const CaseRunner& run,
                                                    int max_seeds) {
  const std::vector<Variant> variants = VariantsOf(spec);
  BuildOptions build;
  build.alias_one_in = 0;
  for (uint64_t seed = 1; seed <= static_cast<uint64_t>(max_seeds); ++seed) {
    DPFUZZ_ASSIGN_OR_RETURN(
        std::optional<Case> c,
        BuildCase(spec, DType::kFloat32, variants[seed % variants.size()], seed,
                  build));
    if (!c.has_value()) continue;
    DPFUZZ_ASSIGN_OR_RETURN(std::optional<Finding> f, run(*c));
    if (f.has_value()) return f;
  }
  return std::nullopt;
}

}  // namespace dpfuzz
