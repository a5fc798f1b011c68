#include "reducers/generalize.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "crashes/bugs/bug.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

// The dtype the op's spec draws (its dtypes list): the first tensor
// argument's, whichever argument is the culprit (an index culprit keeps
// its integer dtype while the data's varies).
std::optional<DType> LeadDType(const Finding& f) {
  const std::vector<const TensorSpec*> tensors = AllTensorSpecsOf(f.c);
  if (tensors.empty()) return std::nullopt;
  return tensors.front()->dtype;
}

}  // namespace

std::vector<std::string> DTypeNames(const std::set<DType>& dtypes) {
  std::vector<std::string> names;
  for (DType d : dtypes) names.emplace_back(DTypeName(d));
  return names;
}

Generality Generalize(const Finding& finding, const CaseRunner& run,
                      int max_calls) {
  Generality g;
  const OpSpec* spec = FindOpFor(finding.c);
  const std::optional<DType> lead = LeadDType(finding);
  if (spec == nullptr || !lead.has_value()) return g;
  g.shown.insert(*lead);
  const std::string family = VerdictFamily(finding.outcome.verdict);
  int calls = 0;
  for (DType to : spec->dtypes) {
    if (to == *lead) continue;
    if (calls++ >= max_calls) break;
    Case c = finding.c;
    for (TensorSpec* t : AllTensorSpecsOf(c)) {
      if (t->dtype == *lead) t->dtype = to;
    }
    absl::StatusOr<std::optional<Finding>> r = run(c);
    if (!r.ok()) continue;  // Not run: neither shown nor quiet.
    const bool shows = r->has_value() &&
                       (*r)->outcome.kind == FindingKind::kLayoutBug &&
                       VerdictFamily((*r)->outcome.verdict) == family;
    (shows ? g.shown : g.quiet).insert(to);
  }
  return g;
}

std::string GeneralitySummary(const Generality& g) {
  if (g.shown.size() + g.quiet.size() <= 1) return "";
  const size_t tried = g.shown.size() + g.quiet.size();
  if (g.quiet.empty()) return absl::StrCat("all ", tried, " dtypes tried");
  if (g.quiet.size() < g.shown.size()) {
    return absl::StrCat("all ", tried, " dtypes tried but ",
                        absl::StrJoin(DTypeNames(g.quiet), ", "));
  }
  return g.shown.size() == 1
             ? absl::StrCat("only ", absl::StrJoin(DTypeNames(g.shown), ", "))
             : absl::StrJoin(DTypeNames(g.shown), ", ");
}

}  // namespace dpfuzz
