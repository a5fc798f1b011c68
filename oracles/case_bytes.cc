#include "oracles/case_bytes.h"

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "generators/case_json.h"
#include "generators/rng.h"

namespace dpfuzz {

bool IsCaseForm(const uint8_t* data, size_t size) {
  return size > 0 && data[0] == '{';
}

absl::StatusOr<std::optional<Case>> DecodeCase(
    const uint8_t* data, size_t size, const std::vector<const OpSpec*>& ops,
    const BuildOptions& options) {
  if (IsCaseForm(data, size)) {
    absl::StatusOr<Case> c = CaseFromJson(
        absl::string_view(reinterpret_cast<const char*>(data), size),
        "<case bytes>");
    if (!c.ok()) return c.status();
    return std::optional<Case>(std::move(*c));
  }
  if (ops.empty()) {
    return absl::InvalidArgumentError(
        "a choice-form input needs ops to pick from (none given)");
  }
  Rng rng = Rng::FromChoices(data, size);
  const OpSpec& spec = *rng.Pick(ops);
  if (spec.dtypes.empty()) {
    return absl::FailedPreconditionError("the picked op accepts no dtype");
  }
  const DType dtype = rng.Pick(spec.dtypes);
  const Variant variant = rng.Pick(VariantsOf(spec));
  return BuildCase(spec, dtype, variant, /*seed=*/0, rng, options);
}

std::string EncodeCase(const Case& c) { return CaseToJson(c); }

}  // namespace dpfuzz
