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
// A new root cause met with nothing queued is reduced and blamed at once.
// Otherwise (Note [Cheapest steps first] in triage_backlog.cc) it is only
// blamed, or past the budget not even that, stored as found, marked
// untriaged (findings_store.h's kUntriagedKey) and queued: the campaign
// calls WorkOnBacklog between results, which takes the next step (blame,
// then reduction) of the queued cause most worth it whenever the budget
// has grown again. What is left when the campaign ends stays marked;
// `dpfuzz triage FINDINGS` finishes it (Retriage on each,
// fuzz/triage_command.h).
//
//   Triage triage(options, store, checker, log);
//   triage.HandleFinding(finding, elapsed, remaining);
//   triage.WorkOnBacklog(elapsed, remaining);
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
#include <tuple>
#include <vector>

#include "crashes/bugs/bug.h"
#include "crashes/bugs/findings_store.h"
#include "crashes/isolation/supervisor.h"
#include "fuzz/repro_checker.h"
#include "reducers/isolated_runner.h"

namespace dpfuzz {

struct TriageOptions {
  bool reduce = true;
  SupervisorOptions isolation;  // For reduction and blame runs.
  // Reduction and blame may take this share of the campaign's time so far,
  // beyond a floor of kTriageFloorSeconds; 0: none (no floor either).
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
  // Its lead finding's Oddity (crashes/bugs/evidence_order.h): a later finding
  // of the bug that is less odd takes the lead (Note [The most ordinary lead]).
  int lead_oddity = 0;
};

struct TriageCounts {
  int64_t baseline_failures = 0;  // Hits.
  int64_t flaky = 0;              // Findings that did not show again.
  int64_t overlap = 0;            // Hits of findings that need shared memory.
  int64_t errors = 0;             // Internal errors and store errors.
  int64_t unreduced = 0;          // Stored past the budget.
  int64_t untriaged = 0;          // Of those, still untriaged.
};

// What a triage has decided, to save and restore
// (fuzz/campaign_journal.h).
struct TriageState {
  std::map<std::string, BugRecord> bugs;
  std::map<std::string, std::string> findings;  // Signature -> directory.
  std::map<std::string, std::string> bug_of_signature;
  TriageCounts counts;
};

// The order untriaged root causes are taken in, least first: high
// confidence, then verdicts whose runs need no fresh process (a death's
// reduction forks one per run), then the earliest seen.
std::tuple<bool, bool, double> TriageOrder(const Finding& f, double seen_at);

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

  // Triages the queued root cause most worth it (high confidence, then
  // verdicts whose reduction needs no fresh process per run) when the
  // budget allows and the campaign has more than a second left.
  void WorkOnBacklog(double elapsed, double remaining);

  // Triages the root cause stored untriaged as `stored`: its bug is a
  // cause triaged before (one isolated run decides, as for a new finding),
  // or it is reduced and blamed. The reduced finding is recorded (its
  // repro and issue.md checked), the blame written into `stored.dir` and
  // its mark cleared; a finding that does not show again is marked flaky.
  void Retriage(const StoredFinding& stored, double elapsed, double remaining);

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
  struct Queued {  // A root cause stored untriaged.
    std::string dir;
    Finding finding;
    double seen_at;
    bool blamed;  // Its first step, blame, is done; reduction is next.
  };

  bool WithinBudget(double elapsed) const;
  // Stores `f`, a finding of the existing bug `bug_id`, making it the bug's
  // lead (checked, with its issue.md) when it is more ordinary than the
  // lead (Note [The most ordinary lead]); returns where it is stored.
  std::string StoreForBug(const Finding& f, const Case* original,
                          const std::string& bug_id);
  // The triaged root cause `found` belongs to, found by one isolated run
  // per candidate of its ReductionKey (within the budget; past it, the
  // key's first). `reduced_only`: only causes reduced already, each
  // checked whatever the budget, none when none shows the same.
  const Triaged* SameCause(const Finding& found, double elapsed,
                           bool reduced_only = false);
  void NewCause(const Finding& found, double elapsed, double remaining);
  struct Reduced {
    Finding finding;
    // The campaign's time ended the reduction before the reducer's own
    // budget did: the case may shrink further, so its root cause stays
    // untriaged and queued (`dpfuzz triage` goes on from it).
    bool cut_short = false;
  };
  // `found` reduced and blamed (other bugs met on the way are added to
  // `others`); nullopt when it did not show again.
  std::optional<Reduced> ReduceAndBlame(const Finding& found,
                                        IsolatedRunner& runner,
                                        double remaining,
                                        std::vector<Finding>& others);
  // The blame of `f` (reducers/blame.h), its time counted.
  Blame BlameOf(const Finding& f, IsolatedRunner& runner);
  // Where the reduced `f`, stored in `dir`, shows (reducers/generalize.h),
  // written into its finding.json; its time counted.
  void Generalize(const std::string& dir, const Finding& f,
                  IsolatedRunner& runner);
  // Tells a bug that is new: "BUG: <id> <summary> -> <where>" and its
  // evidence.
  void TellBug(const std::string& id, const Finding& finding,
               const std::string& where, bool reduced, bool blamed);
  // The stored untriaged root cause `q` blamed: its directory and its bug
  // learn the blame; queued again for its reduction.
  void BlameQueued(Queued q);
  // What was said of the bug `old_id` of ReductionKey `key` now holds for
  // `id` with `blame`: its causes (pending while not reduced), signatures
  // and record.
  void Rekey(const std::string& key, const std::string& old_id,
             const std::string& id, const Blame& blame, bool pending);
  // Queues the Python check of the finding `f` stored in `dir` (its
  // repro.py, its issue.md), unless it is an oom finding: its repro would
  // allocate without bound outside any worker.
  void CheckRepro(const std::string& dir, const Finding& f);
  // Sets `key` in the finding.json in `dir`; an error is counted and told.
  void Annotate(const std::string& dir, const std::string& key,
                const nlohmann::json& value);
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
  std::vector<Queued> backlog_;
  std::map<std::string, std::string> errors_;  // Kind of error -> dir.
  std::set<std::string> checked_dirs_;         // Whose repro.py is checked.
  // Bug ids of findings stored for another bug (StoreForBug) whose own id
  // differs: their first finding was checked.
  std::set<std::string> apart_ids_;
  // Signature -> the EvidenceRank of the case stored for it, or better
  // (crashes/bugs/evidence_order.h).
  std::map<std::string, std::pair<int, int64_t>> stored_ranks_;
  std::map<std::string, int64_t> pending_hits_;  // Directory -> hits.
  TriageCounts counts_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_TRIAGE_H_
