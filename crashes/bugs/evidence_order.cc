#include "crashes/bugs/evidence_order.h"

#include <algorithm>
#include <cmath>

#include "generators/values.h"

namespace dpfuzz {

bool HoldsUnusualValues(const Case& c) {
  for (const TensorSpec* t : AllTensorSpecsOf(c)) {
    const ValueRecipe& v = t->values;
    if (ApplicableSpecials(v.specials, t->dtype) != 0 ||
        v.distribution == Distribution::kWide ||
        std::any_of(v.data.begin(), v.data.end(),
                    [](double x) { return !std::isfinite(x); })) {
      return true;
    }
  }
  return false;
}

int Oddity(const Case& c) {
  if (!c.aliases.empty()) return 2;
  return HoldsUnusualValues(c) ? 1 : 0;
}

int64_t CaseSize(const Case& c) {
  int64_t size = 0;
  for (const TensorSpec* spec : AllTensorSpecsOf(c)) size += spec->numel();
  return size;
}

std::pair<int, int64_t> EvidenceRank(const Case& c) {
  return {Oddity(c), CaseSize(c)};
}

}  // namespace dpfuzz
