// Triage's backlog: root causes stored untriaged, finished later in the
// campaign (WorkOnBacklog) or by `dpfuzz triage` (Retriage).

#include <algorithm>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "crashes/bugs/bug.h"
#include "crashes/bugs/evidence_order.h"
#include "fuzz/triage.h"
#include "reducers/blame.h"
#include "reducers/reducer.h"

namespace dpfuzz {

// Note [Cheapest steps first]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A whole-library campaign meets a new root cause every second or so, and
// reducing one takes about as long (some 80 runs), so triage within a
// share of the campaign's time cannot reduce them all. What a reader of
// the report needs first is what each bug is: the argument and layout
// that trigger it (blame: at most 24 runs, a tenth of a reduction), its
// mechanism (simulated by the worker that found it, oracles/mechanism.h)
// and a checked issue.md (a warm Python's fork, crashes/repro/warm_python.h).
// So once root causes queue up, each new one is blamed on the case as
// found and queued; the backlog is worked through unblamed ones first,
// then reductions, high-confidence bugs and verdicts whose runs need no
// fresh process (a death's) first. A reduction replaces the stored case by
// a smaller one and re-blames it there; only then is the cause "reduced"
// and its mark cleared.
std::tuple<bool, bool, double> TriageOrder(const Finding& f, double seen_at) {
  return {ConfidenceOf(f).confidence != Confidence::kHigh,
          IsDeath(f.outcome.verdict), seen_at};
}

void Triage::WorkOnBacklog(double elapsed, double remaining) {
  // One step at a time: the campaign reads its workers' results between.
  if (options_.reduce && !backlog_.empty() && remaining > 1 &&
      WithinBudget(elapsed) && Runner() != nullptr) {
    // Blames before reductions, then TriageOrder.
    const auto rank = [](const Queued& q) {
      return std::make_pair(q.blamed, TriageOrder(q.finding, q.seen_at));
    };
    const auto next =
        std::min_element(backlog_.begin(), backlog_.end(),
                         [&rank](const Queued& a, const Queued& b) {
                           return rank(a) < rank(b);
                         });
    Queued q = std::move(*next);
    backlog_.erase(next);
    if (!q.blamed) {
      BlameQueued(std::move(q));
    } else {
      StoredFinding stored;
      stored.dir = q.dir;
      stored.finding = q.finding;
      stored.first_seen_seconds = q.seen_at;
      stored.untriaged = true;
      Retriage(stored, elapsed, remaining);
    }
  }
  counts_.untriaged = static_cast<int64_t>(backlog_.size());
}

void Triage::BlameQueued(Queued q) {
  const std::string old_id = BugId(q.finding);
  q.finding.blame = BlameOf(q.finding, *Runner());
  q.blamed = true;
  const std::string id = BugId(q.finding);
  Annotate(q.dir, "culprit", q.finding.blame.culprit);
  Annotate(q.dir, "feature", q.finding.blame.feature);
  Rekey(ReductionKey(q.finding), old_id, id, q.finding.blame,
        /*pending=*/true);
  CheckRepro(q.dir, q.finding);  // Its issue.md, blamed.
  NewLine();
  log_ << "BLAMED: " << old_id << " -> " << id
       << (q.finding.blame.culprit.empty()
               ? std::string(" (no single culprit)")
               : absl::StrCat(": `", q.finding.blame.culprit, "` ",
                              q.finding.blame.feature))
       << "; its reduction is queued" << std::endl;
  backlog_.push_back(std::move(q));
}

void Triage::Rekey(const std::string& key, const std::string& old_id,
                   const std::string& id, const Blame& blame, bool pending) {
  bool has = false;
  for (Triaged& cause : causes_[key]) {
    if (cause.bug_id == old_id && cause.pending) {
      cause = Triaged{blame, id, pending};
    }
    has = has || cause.bug_id == id;
  }
  if (!has) causes_[key].push_back(Triaged{blame, id, pending});
  for (auto& [signature, bug] : bug_of_signature_) {
    if (bug != old_id) continue;
    bug = id;
    blame_of_signature_[signature] = blame;
  }
  const auto old = bugs_.find(old_id);
  if (old == bugs_.end() || old_id == id) return;
  BugRecord moved = old->second;
  bugs_.erase(old);
  const auto [it, is_new] = bugs_.emplace(id, moved);
  if (!is_new) it->second.hits += moved.hits;
}

void Triage::Retriage(const StoredFinding& stored, double elapsed,
                      double remaining) {
  IsolatedRunner* runner = Runner();
  if (runner == nullptr) return;
  now_ = stored.first_seen_seconds.value_or(elapsed);
  const Finding& found = stored.finding;
  const std::string key = ReductionKey(found);
  const std::string old_id = BugId(found);
  std::optional<Reduced> reduced;
  std::vector<Finding> others;
  if (const Triaged* same = SameCause(found, elapsed, /*reduced_only=*/true)) {
    reduced = Reduced{found};
    reduced->finding.blame = same->blame;
  } else {
    reduced = ReduceAndBlame(found, *runner, std::max(remaining, 1.0), others);
  }
  if (!reduced.has_value()) {
    ++counts_.flaky;
    Annotate(stored.dir, "flaky", true);
    Annotate(stored.dir, "dismissal",
             std::string(DismissalName(Dismissal::kFlaky)));
    Annotate(stored.dir, kUntriagedKey, false);
    bugs_.erase(old_id);
    NewLine();
    log_ << "FLAKY: " << found.signature << " -> " << stored.dir
         << " (did not show again in a fresh run; not a bug)" << std::endl;
    return;
  }
  const Finding* finding = &reduced->finding;
  const std::string id = BugId(*finding);
  // The reduced case takes the stored one's place, or a directory of its
  // own when its signature changed; the stored one keeps its case and
  // learns the blame.
  std::string where = stored.dir;
  if (store_->PathFor(*finding) != stored.dir ||
      EvidenceRank(finding->c) < EvidenceRank(found.c)) {
    where = Store(*finding, &found.c, /*check_repro=*/true);
  } else {
    CheckRepro(where, *finding);
  }
  Annotate(stored.dir, "culprit", finding->blame.culprit);
  Annotate(stored.dir, "feature", finding->blame.feature);
  Annotate(stored.dir, kUntriagedKey, false);
  if (reduced->cut_short) {
    // Goes on from here when its turn comes again, or in `dpfuzz triage`.
    Annotate(where, kUntriagedKey, true);
    backlog_.push_back(Queued{where, *finding, now_, /*blamed=*/true});
  } else {
    Generalize(where, *finding, *runner);
  }
  Rekey(key, old_id, id, finding->blame, /*pending=*/reduced->cut_short);
  Attach(*finding, id);
  BugRecord& bug = bugs_[id];
  if (bug.dir.empty() || bug.dir == stored.dir) bug.dir = where;
  if (bug.summary.empty()) bug.first_seen_seconds = now_;
  for (const Finding& other : others) {
    if (!findings_.count(other.signature)) {
      HandleFinding(other, elapsed, remaining);
    }
  }
  NewLine();
  log_ << (reduced->cut_short ? "PARTLY TRIAGED: " : "TRIAGED: ") << old_id
       << " -> " << id
       << (finding->blame.culprit.empty()
               ? std::string(" (no single culprit)")
               : absl::StrCat(": `", finding->blame.culprit, "` ",
                              finding->blame.feature))
       << " -> " << where << std::endl;
}

}  // namespace dpfuzz
