#include "crashes/findings/finding.h"

#include <torch/version.h>

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dpfuzz {

std::string FindingSignature(const Case& c, Verdict verdict) {
  std::vector<std::string> dtypes;
  std::set<std::string> devices;
  bool nested = false;
  for (const TensorSpec* spec : TensorSpecsOf(c)) {
    dtypes.emplace_back(DTypeName(spec->dtype));
    devices.emplace(DeviceName(spec->device));
    nested = nested || spec->is_nested();
  }
  std::string signature =
      absl::StrJoin({QualifiedOpName(c), std::string(VariantName(c.variant)),
                     std::string(VerdictName(verdict)),
                     absl::StrJoin(dtypes, ","), absl::StrJoin(devices, ",")},
                    "|");
  // Sharing memory between arguments is its own class of bug.
  if (!c.aliases.empty()) absl::StrAppend(&signature, "|aliased");
  // So are nested tensors: a nested kernel is not the dense one.
  if (nested) absl::StrAppend(&signature, "|nested");
  return signature;
}

uint64_t SignatureHash(const std::string& signature) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char ch : signature) {
    hash ^= ch;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

absl::string_view DismissalName(Dismissal d) {
  switch (d) {
    case Dismissal::kNone:
      return "";
    case Dismissal::kFlaky:
      return "flaky";
    case Dismissal::kOverlap:
      return "overlap";
  }
  return "";
}

Finding MakeFinding(const Case& c, const CaseOutcome& outcome) {
  Finding f;
  f.c = c;
  f.outcome = outcome;
  f.signature = FindingSignature(c, outcome.verdict);
  return f;
}

std::string LibTorchVersion() { return TORCH_VERSION; }

std::string DpfuzzVersion() { return DPFUZZ_VERSION; }

}  // namespace dpfuzz
