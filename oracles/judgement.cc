#include "oracles/judgement.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "oracles/rules.h"

namespace dpfuzz {

CaseOutcome MakeFinding(Verdict verdict, Evidence evidence) {
  return CaseOutcome{verdict, std::move(evidence)};
}

Evidence Described(std::string where, std::string detail, std::string error) {
  Evidence e;
  e.where = std::move(where);
  e.detail = std::move(detail);
  e.error = std::move(error);
  return e;
}

CaseOutcome FromDifference(Verdict verdict, const std::string& where,
                           const Difference& d) {
  Evidence e;
  e.where = where;
  e.detail = d.detail;
  e.index = d.index;
  e.expected = d.expected;
  e.actual = d.actual;
  e.max_error = d.max_error;
  e.layout = d.layout;
  return MakeFinding(verdict, std::move(e));
}

CaseOutcome OutputCountMismatch(size_t baseline, size_t variant) {
  return MakeFinding(
      Verdict::kMismatch,
      Described("outputs", absl::StrCat("the variant returned ", variant,
                                        " tensors, the baseline ", baseline)));
}

std::optional<CaseOutcome> JudgeErrors(const CallResult& baseline,
                                       const CallResult& variant, const Case& c,
                                       const char* stage) {
  for (const auto& [call, side] :
       {std::pair{&baseline, "baseline"}, std::pair{&variant, "variant"}}) {
    if (call->outcome == CallOutcome::kInternalAssert) {
      CaseOutcome assert_hit = MakeFinding(
          Verdict::kInternalAssert,
          Described(
              absl::StrCat(side, " ", stage),
              absl::StrCat("the ", side, " ", stage, " hit an internal assert"),
              call->error));
      // See Note [Layout bugs and baseline failures].
      if (call == &baseline) assert_hit.kind = FindingKind::kBaselineFailure;
      return assert_hit;
    }
  }
  const bool b_ok = baseline.outcome == CallOutcome::kOk;
  const bool v_ok = variant.outcome == CallOutcome::kOk;
  if (b_ok && v_ok) return std::nullopt;
  if (!b_ok && !v_ok) return MakeFinding(Verdict::kBothRejected, {});
  if (!v_ok && RejectionAllowed(c)) return MakeFinding(Verdict::kAgree, {});
  const CallResult& raised = v_ok ? baseline : variant;
  return MakeFinding(
      Verdict::kRejectionMismatch,
      Described(
          absl::StrCat(v_ok ? "baseline " : "variant ", stage),
          absl::StrCat("the ", v_ok ? "contiguous baseline" : "strided variant",
                       " raised in ", stage, " and the other did not"),
          raised.error));
}

}  // namespace dpfuzz
