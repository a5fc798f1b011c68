#include "reducers/reducer.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "reducers/case_order.h"
#include "reducers/reduction_passes.h"
#include "reducers/shape_ties.h"

namespace dpfuzz {
namespace {

using Clock = std::chrono::steady_clock;

class Reduction {
 public:
  Reduction(const Finding& original, const CaseRunner& run,
            const ReduceOptions& options)
      : run_(run),
        options_(options),
        key_(ReductionKey(original)),
        current_(original.c),
        finding_(original),
        ties_(original.c) {}

  ReduceResult Run();

 private:
  double Elapsed() const {
    return std::chrono::duration<double>(Clock::now() - start_).count();
  }
  bool OutOfBudget() const {
    return result_.calls >= options_.max_calls ||
           Elapsed() >= options_.max_seconds;
  }
  // Runs `c` (or finds it in the cache); its finding when interesting.
  std::optional<Finding> Interesting(const Case& c, const CaseRunner& run);
  bool TryCandidate(const Case& candidate);

  const CaseRunner& run_;
  const ReduceOptions& options_;
  const std::string key_;
  Case current_;
  Finding finding_;
  const ShapeTies ties_;
  absl::flat_hash_map<Case, std::optional<Finding>> cache_;
  Clock::time_point start_ = Clock::now();
  ReduceResult result_;
};

std::optional<Finding> Reduction::Interesting(const Case& c,
                                              const CaseRunner& run) {
  ++result_.calls;
  absl::StatusOr<std::optional<Finding>> got = run(c);
  if (!got.ok() || !got->has_value()) return std::nullopt;
  if (ReductionKey(**got) == key_) return std::move(*got);
  if (options_.on_other_finding) options_.on_other_finding(**got);
  return std::nullopt;
}

bool Reduction::TryCandidate(const Case& candidate) {
  if (!SimplerThan(candidate, current_) || !ties_.HeldBy(candidate)) {
    return false;
  }
  const auto cached = cache_.find(candidate);
  if (cached != cache_.end()) {
    ++result_.cache_hits;
    return false;  // Only failures stay candidates: successes became current.
  }
  if (OutOfBudget()) {
    result_.budget_exhausted = true;
    return false;
  }
  std::optional<Finding> f = Interesting(candidate, run_);
  cache_.emplace(candidate, f);
  if (!f.has_value()) return false;
  // The run may have given the grad_outputs the sizes of the candidate's
  // results (FitGradOutputs): the case it ran is what the finding shows.
  if (!(f->c == candidate) &&
      (!SimplerThan(f->c, current_) || !ties_.HeldBy(f->c))) {
    return false;
  }
  current_ = f->c;
  finding_ = std::move(*f);
  return true;
}

ReduceResult Reduction::Run() {
  const Case original = current_;
  const Finding original_finding = finding_;
  std::optional<Finding> again = Interesting(original, run_);
  if (!again.has_value()) {
    result_.flaky = true;
    result_.reduced = original;
    result_.finding = original_finding;
    result_.seconds = Elapsed();
    return result_;
  }
  finding_ = std::move(*again);
  std::vector<ReductionPass> passes = DefaultReductionPasses();
  std::map<std::string, int>& kept = result_.kept_by_pass;
  const Attempt attempt = [this](const Case& c) { return TryCandidate(c); };
  bool progress = true;
  while (progress && !OutOfBudget()) {
    progress = false;
    // Passes that kept more candidates first; ties in their first order.
    std::stable_sort(passes.begin(), passes.end(),
                     [&kept](const ReductionPass& a, const ReductionPass& b) {
                       return kept[a.name] > kept[b.name];
                     });
    for (const ReductionPass& pass : passes) {
      if (pass.run(current_, attempt)) {
        ++kept[pass.name];
        progress = true;
      }
    }
  }
  // A budget spent before a pass could try a candidate (the original's
  // rerun took it all) or between passes still left the reduction unfinished.
  result_.budget_exhausted = result_.budget_exhausted || progress;
  result_.reduced = current_;
  result_.finding = finding_;
  if (options_.verify) {
    std::optional<Finding> verified = Interesting(current_, options_.verify);
    result_.verified = verified.has_value();
    if (verified.has_value()) {
      result_.finding = std::move(*verified);
    } else {
      result_.reduced = original;
      result_.finding = original_finding;
    }
  }
  result_.seconds = Elapsed();
  return result_;
}

std::string Shape(const Case& c) {
  int64_t rank = 0, elements = 0;
  for (const TensorSpec* t : TensorSpecsOf(c)) {
    rank = std::max(rank, t->dim());
    elements += t->numel();
  }
  return absl::StrFormat("%d tensor(s), rank %d, %d elements",
                         TensorSpecsOf(c).size(), rank, elements);
}

}  // namespace

std::string ReductionSummary(const Case& before, const ReduceResult& r) {
  if (r.flaky) return "not reduced: the case did not reproduce (flaky)";
  return absl::StrCat("from ", Shape(before), " to ", Shape(r.reduced), " in ",
                      r.calls, " calls, ", absl::StrFormat("%.1f", r.seconds),
                      " s", r.budget_exhausted ? " (budget exhausted)" : "",
                      r.verified ? "" : " (not verified: original kept)");
}

std::string ReductionKey(const Finding& finding) {
  std::vector<std::string> parts = absl::StrSplit(finding.signature, '|');
  if (IsDeath(finding.outcome.verdict) && parts.size() > 3) parts.resize(3);
  if (parts.size() > 4) parts[3] = parts[4] = "*";
  // A case whose contiguous baseline fails shows another thing than a
  // layout bug of the same op and verdict (Note [Layout bugs and baseline
  // failures]): a dtype that the op's internal assert refuses is not the
  // layout it refuses.
  if (finding.outcome.kind == FindingKind::kBaselineFailure) {
    parts.emplace_back(FindingKindName(finding.outcome.kind));
  }
  return absl::StrJoin(parts, "|");
}

ReduceResult Reduce(const Finding& original, const CaseRunner& run,
                    const ReduceOptions& options) {
  return Reduction(original, run, options).Run();
}

}  // namespace dpfuzz
