#include "oracles/output_promises.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "generators/geometry.h"
#include "oracles/judgement.h"
#include "oracles/nested_promises.h"

namespace dpfuzz {

std::optional<std::string> CheckInsideStorage(const at::Tensor& output) {
  if (!output.defined() || output.is_nested() ||
      output.layout() != at::kStrided || !output.has_storage() ||
      output._is_zerotensor() || output.numel() == 0) {
    return std::nullopt;
  }
  const int64_t elements =
      static_cast<int64_t>(output.storage().nbytes()) / output.element_size();
  const at::IntArrayRef sizes = output.sizes(), strides = output.strides();
  const int64_t last = ComputeStorageExtent({sizes.data(), sizes.size()},
                                            {strides.data(), strides.size()},
                                            output.storage_offset()) -
                       1;
  if (output.storage_offset() >= 0 && last < elements) return std::nullopt;
  return absl::StrCat("the output (sizes [",
                      absl::StrJoin(output.sizes(), ", "), "], strides [",
                      absl::StrJoin(output.strides(), ", "), "], offset ",
                      output.storage_offset(), ") reaches element ", last,
                      " of a storage of ", elements);
}

std::optional<CaseOutcome> BrokenOutputPromise(const CallResult& result,
                                               FindingKind kind) {
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    const at::Tensor& output = result.outputs[i];
    std::optional<std::string> broken = output.defined() && output.is_nested()
                                            ? CheckNestedPromises(output)
                                            : CheckInsideStorage(output);
    if (!broken.has_value()) continue;
    CaseOutcome finding =
        MakeFinding(Verdict::kLayoutContract,
                    Described(kind == FindingKind::kBaselineFailure
                                  ? absl::StrCat("baseline output ", i)
                                  : absl::StrCat("output ", i),
                              *broken));
    finding.kind = kind;
    return finding;
  }
  return std::nullopt;
}

}  // namespace dpfuzz
