// Triage: from the raw findings of a campaign to bugs, each told once.
//
// A campaign hands every finding a worker reports to Triage, which decides
// what it is and keeps it (crashes/bugs/findings_store.h):
//  - a baseline failure (Note [Layout bugs and baseline failures]): stored
//    as it is, "BASELINE:" once per signature, never a bug;
//  - a finding whose signature is already attached to a bug: a hit;
//  - a finding with the ReductionKey of a bug already triaged (the same op,
//    variant and verdict in another dtype, say) whose culprit it needs too
//    (one isolated run with the culprit made contiguous): evidence of that
//    bug, no reduction;
//  - a finding whose case shares memory between a written tensor and an
//    input, and whose unshared twin agrees (one isolated run): an overlap
//    finding (Note [Overlap findings] in triage.cc), stored with that
//    dismissal, never a bug; when the twin shows the same bug, triaged as
//    the twin;
//  - else a new root cause: reduced (reducers/reducer.h; flaky when it does
//    not show again: counted, stored with "flaky", never a bug), blamed
//    (reducers/blame.h), stored, and "BUG:" printed when its bug
//    (crashes/bugs/bug.h: op, variant, culprit, feature, verdict family) is
//    new; its repro.py and issue.md are checked in the background.
// Internal errors (dpfuzz's own failures, with the case they happened on)
// go to <findings>/errors/<name>/ as case.json and error.json, "ERROR:"
// once per kind of error, every one counted.
//
// Reduction and blame run in the campaign's thread while workers wait, so
// they have a budget: a share of the campaign's time so far (and a floor).
// Past it, a new finding is stored unreduced and unblamed.
//
//   Triage triage(options, log);
//   triage.HandleFinding(finding, elapsed, remaining);
//   triage.bugs()  // id -> BugRecord

#ifndef DPFUZZ_FUZZ_TRIAGE_H_
#define DPFUZZ_FUZZ_TRIAGE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "crashes/bugs/findings_store.h"
#include "crashes/isolation/supervisor.h"
#include "fuzz/repro_checker.h"
#include "reducers/isolated_runner.h"

namespace dpfuzz {

struct TriageOptions {
  bool reduce = true;
  SupervisorOptions isolation;  // For reduction and blame runs.
  // Reduction and blame may take this share of the campaign's time so far,
  // beyond a floor of kTriageFloorSeconds.
  double budget_share = 0.25;
  bool progress = false;  // A live progress line is on stderr.
};

struct BugRecord {
  std::string dir;      // Its first finding's directory.
  std::string summary;  // "aten::masked_select.out out: self permuted ..."
  int64_t hits = 0;
  bool layout = true;  // False: a baseline failure.
  // Its first finding's confidence is low (crashes/bugs/bug.h's ConfidenceOf).
  bool low_confidence = false;
  // The campaign's seconds (resumed runs included) when its first finding
  // came: time to bug.
  double first_seen_seconds = 0;
  // Its lead finding (dir) shares memory between arguments; the first clean
  // finding of the bug takes the lead (Note [The most ordinary lead]).
  bool lead_aliased = false;
};

struct TriageCounts {
  int64_t baseline_failures = 0;  // Hits.
  int64_t flaky = 0;              // Findings that did not show again.
  int64_t overlap = 0;            // Hits of findings that need shared memory.
  int64_t errors = 0;             // Internal errors and store errors.
  int64_t unreduced = 0;          // Stored past the budget.
};

// What a triage has decided, to save and restore
// (fuzz/campaign_journal.h).
struct TriageState {
  std::map<std::string, BugRecord> bugs;
  std::map<std::string, std::string> findings;  // Signature -> directory.
  std::map<std::string, std::string> bug_of_signature;
  TriageCounts counts;
};

class Triage {
 public:
  // `store`: nullptr when findings are not kept.
  Triage(TriageOptions options, FindingsStore* store, ReproChecker* checker,
         std::ostream& log);
  ~Triage();

  // `elapsed`: the campaign's seconds so far; `remaining`: what its time
  // budget leaves (a large number without one).
  void HandleFinding(const Finding& found, double elapsed, double remaining);

  // An internal error of `op` ("aten::add.Tensor"; "" when none),
  // printed as "<context>: <error>"; `with_case`: the case it happened on,
  // if any. Printed and stored once per op and error text.
  void HandleError(const std::string& op, const std::string& context,
                   const std::string& error,
                   const std::optional<Finding>& with_case);

  const std::map<std::string, BugRecord>& bugs() const { return bugs_; }
  // Unique findings: signature -> directory.
  const std::map<std::string, std::string>& findings() const {
    return findings_;
  }
  const TriageCounts& counts() const { return counts_; }

  // Writes the hits counted since the last call to the store: a later hit
  // of a stored finding whose case is no smaller than the stored one only
  // counts, in memory (one store write per hit costs more than a cheap
  // op's case). The campaign calls it before it saves its journal, and
  // the destructor calls it.
  void FlushHits();

  TriageState State() const;
  // Goes on from `state` (of an earlier run over the same store): its
  // findings' later hits attach to their bugs with the blame stored with
  // them, and its bugs are not told again.
  void Resume(const TriageState& state);

 private:
  struct Triaged;  // A reduced and blamed root cause.

  bool WithinBudget(double elapsed) const;
  // Stores `f`, a finding of the existing bug `bug_id`, making it the bug's
  // lead (checked, with its issue.md) when it is more ordinary than the
  // lead (Note [The most ordinary lead]); returns where it is stored.
  std::string StoreForBug(const Finding& f, const Case* original,
                          const std::string& bug_id);
  // The triaged root cause `found` belongs to, found by one isolated run
  // per candidate of its ReductionKey.
  const Triaged* SameCause(const Finding& found, double elapsed);
  void NewCause(const Finding& found, double elapsed, double remaining);
  // What to triage for `found`: itself, or the finding its twin without
  // shared memory shows when that is the same bug; nullopt when the twin
  // agrees (an overlap finding).
  std::optional<Finding> Unshared(const Finding& found);
  IsolatedRunner* Runner();
  // Stores and returns the directory ("(not stored)" without a store).
  std::string Store(const Finding& finding, const Case* original,
                    bool check_repro);
  void Attach(const Finding& finding, const std::string& bug_id);
  void NewLine();

  TriageOptions options_;
  FindingsStore* store_;
  ReproChecker* checker_;
  std::ostream& log_;
  std::unique_ptr<IsolatedRunner> runner_;
  bool runner_failed_ = false;
  double spent_seconds_ = 0;
  // The campaign's seconds when the finding being handled came.
  double now_ = 0;
  std::map<std::string, std::vector<Triaged>> causes_;  // By ReductionKey.
  std::map<std::string, std::string> bug_of_signature_;
  std::map<std::string, Blame> blame_of_signature_;
  std::map<std::string, BugRecord> bugs_;
  std::map<std::string, std::string> findings_;
  // Signatures of overlap findings: their later hits are dismissed alike.
  std::set<std::string> overlapping_;
  std::map<std::string, std::string> errors_;  // Kind of error -> dir.
  std::set<std::string> checked_dirs_;         // Whose repro.py is checked.
  // Signature -> at least the size (CaseSize) of the case stored for it.
  std::map<std::string, int64_t> stored_sizes_;
  std::map<std::string, int64_t> pending_hits_;  // Directory -> hits.
  TriageCounts counts_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_TRIAGE_H_
