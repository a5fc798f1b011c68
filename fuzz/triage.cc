#include "fuzz/triage.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/files.h"
#include "crashes/bugs/bug.h"
#include "crashes/bugs/evidence_order.h"
#include "crashes/isolation/crash_signature.h"
#include "generators/case_json.h"
#include "reducers/blame.h"
#include "reducers/generalize.h"
#include "reducers/reducer.h"

namespace dpfuzz {
namespace {

// Reduction and blame may always take this long, whatever the share.
constexpr double kTriageFloorSeconds = 20;
// Budget of one reduction.
constexpr int kReduceMaxCalls = 300;
constexpr double kReduceMaxSeconds = 60;
constexpr int kBlameMaxCalls = 24;
// Runs of a reduced bug in its op's other dtypes.
constexpr int kGeneralizeMaxCalls = 12;
// Findings of one ReductionKey checked against its known causes before
// any more are simply counted.
constexpr size_t kCausesPerKey = 4;

std::string FirstLine(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) return std::string(line);
  }
  return "";
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

}  // namespace

struct Triage::Triaged {
  Blame blame;
  std::string bug_id;
  // Stored past the budget and queued: findings of its ReductionKey attach
  // to it on the key alone until it is triaged.
  bool pending = false;
};

Triage::Triage(TriageOptions options, FindingsStore* store,
               ReproChecker* checker, std::ostream& log)
    : options_(std::move(options)),
      store_(store),
      checker_(checker),
      log_(log) {}

Triage::~Triage() { FlushHits(); }

void Triage::NewLine() {
  if (options_.progress) std::fprintf(stderr, "\n");
}

bool Triage::WithinBudget(double elapsed) const {
  return options_.budget_share > 0 &&
         spent_seconds_ < kTriageFloorSeconds + options_.budget_share * elapsed;
}

IsolatedRunner* Triage::Runner() {
  if (runner_ == nullptr && !runner_failed_) {
    absl::StatusOr<std::unique_ptr<IsolatedRunner>> r =
        IsolatedRunner::Start(options_.isolation);
    if (!r.ok()) {
      runner_failed_ = true;
      NewLine();
      log_ << "WARNING: cannot reduce or blame findings: "
           << r.status().message() << "\n";
      return nullptr;
    }
    runner_ = std::move(*r);
  }
  return runner_.get();
}

std::string Triage::Store(const Finding& finding, const Case* original,
                          bool check_repro) {
  std::string where = "(not stored)";
  if (store_ != nullptr) {
    const std::pair<int, int64_t> rank = EvidenceRank(finding.c);
    const auto stored = stored_ranks_.find(finding.signature);
    if (stored != stored_ranks_.end() && rank >= stored->second &&
        original == nullptr && !check_repro) {
      where = findings_.at(finding.signature);
      ++pending_hits_[where];
      return where;
    }
    absl::StatusOr<Recorded> recorded = store_->Record(finding, original, now_);
    if (recorded.ok()) {
      where = recorded->path;
      // Stored: this case, or a better one.
      stored_ranks_[finding.signature] =
          stored == stored_ranks_.end() ? rank : std::min(stored->second, rank);
      // An oom repro would allocate without bound outside any worker.
      // Bugs' first findings are checked, again when a better case
      // replaced theirs (its finding.json lost the earlier result).
      if (check_repro) checked_dirs_.insert(where);
      if (recorded->case_written && checked_dirs_.count(where) &&
          checker_ != nullptr && finding.outcome.verdict != Verdict::kOom) {
        checker_->Enqueue(where);
      }
    } else {
      ++counts_.errors;
      NewLine();
      log_ << "ERROR: " << recorded.status().message() << "\n";
    }
  }
  findings_.emplace(finding.signature, where);
  return where;
}

void Triage::FlushHits() {
  for (const auto& [dir, hits] : pending_hits_) {
    if (absl::Status s = store_->AddHits(dir, hits); !s.ok()) {
      ++counts_.errors;
      NewLine();
      log_ << "ERROR: " << s.message() << "\n";
    }
  }
  pending_hits_.clear();
}

TriageState Triage::State() const {
  return {bugs_, findings_, bug_of_signature_, counts_};
}

void Triage::Resume(const TriageState& state) {
  bugs_ = state.bugs;
  findings_ = state.findings;
  bug_of_signature_ = state.bug_of_signature;
  counts_ = state.counts;
  for (const auto& [signature, bug] : bug_of_signature_) {
    const auto dir = findings_.find(signature);
    if (dir == findings_.end()) continue;
    absl::StatusOr<StoredFinding> stored = ReadStoredFinding(dir->second);
    if (stored.ok()) blame_of_signature_[signature] = stored->finding.blame;
  }
  // Root causes the earlier run left untriaged are queued again.
  for (const auto& [id, bug] : bugs_) {
    if (!options_.reduce) break;
    absl::StatusOr<StoredFinding> stored = ReadStoredFinding(bug.dir);
    if (!stored.ok() || !stored->untriaged ||
        stored->finding.dismissal != Dismissal::kNone) {
      continue;
    }
    causes_[ReductionKey(stored->finding)].push_back(
        Triaged{stored->finding.blame, id, /*pending=*/true});
    backlog_.push_back(Queued{bug.dir, stored->finding,
                              stored->first_seen_seconds.value_or(0),
                              !stored->finding.blame.culprit.empty()});
  }
  counts_.untriaged = static_cast<int64_t>(backlog_.size());
}

void Triage::Attach(const Finding& finding, const std::string& bug_id) {
  bug_of_signature_[finding.signature] = bug_id;
  blame_of_signature_[finding.signature] = finding.blame;
  ++bugs_[bug_id].hits;
}

// Note [Overlap findings]
// ~~~~~~~~~~~~~~~~~~~~~~~~
// A case may make a written tensor share memory with an input
// (Case::aliases: out= over self's storage, in place with other inside
// self). PyTorch supports few such calls: it rejects some partial
// overlaps, says that others give undefined results, and names no op that
// promises one. A finding that shows only while the memory is shared is
// therefore not a bug to file: one run of the same case unshared decides.
// When that twin agrees (or both sides reject it), the finding is
// dismissed as an overlap finding: stored, counted, listed apart in the
// report. Deaths and internal asserts are never dismissed: undefined
// values are no licence to corrupt the heap (masked_select.out and
// tril.out with an aliased out, known_findings/). When it shows the same bug
// (ReductionKey), the bug needs no sharing and the twin is triaged in its
// place. Otherwise (another bug, or no isolated runner) the finding is triaged
// as found, and ConfidenceOf marks it low confidence.
std::optional<Finding> Triage::Unshared(const Finding& found) {
  // A judgement, not a reduction: it runs with --reduce=false too.
  const Verdict verdict = found.outcome.verdict;
  IsolatedRunner* runner = found.c.aliases.empty() || IsDeath(verdict) ||
                                   verdict == Verdict::kInternalAssert
                               ? nullptr
                               : Runner();
  if (runner == nullptr) return found;
  Case unshared = found.c;
  unshared.aliases.clear();
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::optional<Finding>> twin = runner->Run(unshared);
  spent_seconds_ += Seconds(start);
  if (!twin.ok()) return found;
  if (!twin->has_value()) return std::nullopt;
  if (ReductionKey(**twin) == ReductionKey(found)) return **twin;
  return found;
}

void Triage::HandleFinding(const Finding& found, double elapsed,
                           double remaining) {
  now_ = elapsed;
  if (overlapping_.count(found.signature)) {
    Finding f = found;
    f.dismissal = Dismissal::kOverlap;
    ++counts_.overlap;
    Store(f, nullptr, /*check_repro=*/false);
    return;
  }
  if (found.outcome.kind == FindingKind::kBaselineFailure) {
    ++counts_.baseline_failures;
    const bool is_new = !findings_.count(found.signature);
    const std::string where = Store(found, nullptr, /*check_repro=*/false);
    if (is_new) {
      NewLine();
      log_ << "BASELINE: " << found.signature << " -> " << where << "\n  "
           << found.outcome.evidence.where << ": "
           << found.outcome.evidence.detail << std::endl;
    }
    return;
  }
  // A timeout whose case, re-run alone, finished in time ran long only
  // beside other workers (a first CUDA call compiling a jiterator kernel
  // under load, say): not a hang. Heap corruptions are nondeterministic, so
  // a crash that did not recur still counts.
  if (found.outcome.verdict == Verdict::kTimeout && !found.recurred_alone) {
    Finding f = found;
    f.dismissal = Dismissal::kFlaky;
    ++counts_.flaky;
    const std::string where = Store(f, nullptr, /*check_repro=*/false);
    NewLine();
    log_ << "FLAKY: " << found.signature << " -> " << where
         << " (ran past the timeout beside other workers, not when re-run "
            "alone; not a bug)"
         << std::endl;
    return;
  }
  if (const auto bug = bug_of_signature_.find(found.signature);
      bug != bug_of_signature_.end()) {
    Finding f = found;
    f.blame = blame_of_signature_[found.signature];
    Store(f, nullptr, /*check_repro=*/false);
    ++bugs_[bug->second].hits;
    return;
  }
  if (const Triaged* same = SameCause(found, elapsed)) {
    Finding f = found;
    f.blame = same->blame;
    StoreForBug(f, nullptr, same->bug_id);
    Attach(f, same->bug_id);
    return;
  }
  NewCause(found, elapsed, remaining);
}

// Note [The most ordinary lead]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// A bug's lead finding is the one its issue.md and the report show first,
// what a maintainer judges the bug by. Arguments that share memory are
// calls PyTorch leaves undefined (Note [Overlap findings]), and NaN,
// infinities or values across a dtype's range read as contrived even where
// the bug does not need them (the reducer keeps them when this finding's
// own verdict needs them; another finding of the same bug may not). A bug
// first seen so, when a less odd finding of it comes (Oddity in
// crashes/bugs/bug.h), is led by that one, checked with Python and given
// its issue.md, so the report does not ask a maintainer to dismiss a real
// bug as an aliasing case or a NaN artefact. GroupBugs ranks a bug's
// findings the same way, and a reduced one before one as found.
std::string Triage::StoreForBug(const Finding& f, const Case* original,
                                const std::string& bug_id) {
  BugRecord& bug = bugs_[bug_id];
  const int oddity = Oddity(f.c);
  const bool lead = oddity < bug.lead_oddity;
  // A finding of the bug whose own key differs (its mechanism was not
  // simulated in this dtype, say) is a bug of its own in the report
  // (GroupBugs): its first finding gets its repro and issue.md checked.
  const std::string own_id = BugId(f);
  const bool apart = own_id != bug_id && !bugs_.count(own_id) &&
                     apart_ids_.insert(own_id).second;
  const std::string where = Store(f, original, /*check_repro=*/lead || apart);
  if (lead && store_ != nullptr) {
    bug.dir = where;
    bug.lead_oddity = oddity;
  }
  return where;
}

const Triage::Triaged* Triage::SameCause(const Finding& found, double elapsed,
                                         bool reduced_only) {
  const auto it = causes_.find(ReductionKey(found));
  if (it == causes_.end()) return nullptr;
  for (const Triaged& cause : it->second) {
    if (reduced_only && cause.pending) continue;
    // Causes that need no layout, or were not blamed, match on the key.
    const Case without = WithoutBlamed(found.c, cause.blame);
    if (without == found.c) return &cause;
    IsolatedRunner* runner =
        reduced_only || WithinBudget(elapsed) ? Runner() : nullptr;
    if (runner == nullptr) return &it->second.front();
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<std::optional<Finding>> r = runner->Run(without);
    spent_seconds_ += Seconds(start);
    const bool still =
        r.ok() && r->has_value() && ReductionKey(**r) == it->first;
    if (!still) return &cause;
  }
  // A cause of its own, unless the key has had enough.
  return !reduced_only && it->second.size() >= kCausesPerKey
             ? &it->second.front()
             : nullptr;
}

std::optional<Triage::Reduced> Triage::ReduceAndBlame(
    const Finding& found, IsolatedRunner& runner, double remaining,
    std::vector<Finding>& others) {
  const auto start = std::chrono::steady_clock::now();
  ReduceOptions options;
  options.max_calls = kReduceMaxCalls;
  options.max_seconds = std::clamp(remaining, 1.0, kReduceMaxSeconds);
  options.verify = [&runner](const Case& c) { return runner.RunFresh(c); };
  options.on_other_finding = [&others](const Finding& f) {
    others.push_back(f);
  };
  const CaseRunner run = [&runner](const Case& c) { return runner.Run(c); };
  const ReduceResult r = Reduce(found, run, options);
  NewLine();
  log_ << "INFO: reduced " << found.signature << " "
       << ReductionSummary(found.c, r) << std::endl;
  spent_seconds_ += Seconds(start);
  if (r.flaky) return std::nullopt;
  const auto blame_start = std::chrono::steady_clock::now();
  // Note [Reductions that keep the layout] (reducers/blame.h).
  Reduced reduced{
      BlamedReduction(found, r.finding, run, kBlameMaxCalls),
      r.budget_exhausted && options.max_seconds < kReduceMaxSeconds};
  spent_seconds_ += Seconds(blame_start);
  return reduced;
}

void Triage::Generalize(const std::string& dir, const Finding& f,
                        IsolatedRunner& runner) {
  if (store_ == nullptr) return;
  const auto start = std::chrono::steady_clock::now();
  const CaseRunner run = [&runner](const Case& c) { return runner.Run(c); };
  const Generality g = dpfuzz::Generalize(f, run, kGeneralizeMaxCalls);
  spent_seconds_ += Seconds(start);
  if (g.shown.size() + g.quiet.size() <= 1) return;
  Annotate(dir, kGeneralityKey,
           {{"shown", DTypeNames(g.shown)},
            {"quiet", DTypeNames(g.quiet)},
            {"summary", GeneralitySummary(g)}});
}

Blame Triage::BlameOf(const Finding& f, IsolatedRunner& runner) {
  const auto start = std::chrono::steady_clock::now();
  const CaseRunner run = [&runner](const Case& c) { return runner.Run(c); };
  const Blame blame = FindBlame(f, run, kBlameMaxCalls).blame;
  spent_seconds_ += Seconds(start);
  return blame;
}

void Triage::NewCause(const Finding& found, double elapsed, double remaining) {
  const std::optional<Finding> unshared = Unshared(found);
  if (!unshared.has_value()) {
    Finding f = found;
    f.dismissal = Dismissal::kOverlap;
    overlapping_.insert(f.signature);
    ++counts_.overlap;
    const std::string where = Store(f, nullptr, /*check_repro=*/false);
    if (counts_.overlap == 1) {
      NewLine();
      log_ << "OVERLAP: " << found.signature << " -> " << where
           << " (shows only while a written tensor shares memory with an "
              "input, which PyTorch leaves undefined: not a bug; such "
              "findings are counted as overlap in --summary_json and "
              "listed in the report)"
           << std::endl;
    }
    return;
  }
  Finding finding = *unshared;
  const Case* original = nullptr;
  IsolatedRunner* runner =
      options_.reduce && WithinBudget(elapsed) ? Runner() : nullptr;
  // Note [Cheapest steps first]: with root causes queued, a new one is
  // only blamed now and queued for its reduction.
  const bool reduce = runner != nullptr && backlog_.empty();
  bool reduced_fully = false;
  if (reduce) {
    std::vector<Finding> others;
    const std::optional<Reduced> reduced =
        ReduceAndBlame(*unshared, *runner, remaining, others);
    if (!reduced.has_value()) {
      ++counts_.flaky;
      finding.dismissal = Dismissal::kFlaky;
      const std::string where = Store(finding, nullptr, false);
      log_ << "FLAKY: " << found.signature << " -> " << where
           << " (did not show again in a fresh run; not a bug)" << std::endl;
      return;
    }
    finding = reduced->finding;
    reduced_fully = !reduced->cut_short;
    if (!reduced_fully) ++counts_.unreduced;
    // Other bugs met on the way are findings of their own, triaged later.
    for (const Finding& other : others) {
      if (!findings_.count(other.signature)) {
        HandleFinding(other, elapsed, remaining);
      }
    }
  } else {
    ++counts_.unreduced;
    if (runner != nullptr) finding.blame = BlameOf(finding, *runner);
  }
  if (!(finding.c == found.c)) original = &found.c;
  const std::string id = BugId(finding);
  const bool new_bug = !bugs_.count(id);
  const std::string where = new_bug
                                ? Store(finding, original, /*check_repro=*/true)
                                : StoreForBug(finding, original, id);
  if (reduced_fully && where != "(not stored)") {
    Generalize(where, finding, *runner);
  }
  causes_[ReductionKey(found)].push_back(
      Triaged{finding.blame, id, /*pending=*/!reduced_fully});
  Attach(finding, id);
  if (!(finding.signature == found.signature)) {
    Attach(Finding{found.c, found.outcome, found.signature, finding.blame}, id);
    --bugs_[id].hits;  // One hit, two signatures.
  }
  if (!reduced_fully && store_ != nullptr && where != "(not stored)") {
    Annotate(where, kUntriagedKey, true);
    if (options_.reduce) {
      backlog_.push_back(Queued{where, finding, now_, runner != nullptr});
    }
  }
  if (!new_bug) return;
  BugRecord& bug = bugs_[id];
  bug.dir = where;
  bug.first_seen_seconds = now_;
  bug.lead_oddity = Oddity(finding.c);
  TellBug(id, finding, where, reduced_fully, runner != nullptr);
}

void Triage::TellBug(const std::string& id, const Finding& finding,
                     const std::string& where, bool reduced, bool blamed) {
  BugRecord& bug = bugs_[id];
  const Evidence& e = finding.outcome.evidence;
  bug.summary = absl::StrCat(
      QualifiedOpName(finding.c), " ", VariantName(finding.c.variant), " ",
      VerdictFamily(finding.outcome.verdict),
      finding.blame.culprit.empty() ? ""
                                    : absl::StrCat(": `", finding.blame.culprit,
                                                   "` ", finding.blame.feature),
      reduced  ? ""
      : blamed ? " (not reduced yet)"
               : " (not reduced or blamed yet)");
  const ConfidenceJudgement confidence = ConfidenceOf(finding);
  bug.low_confidence = confidence.confidence == Confidence::kLow;
  NewLine();
  // A crash's evidence is its last words, a stack: its key (signal and
  // fatal message or top frames, the signature's last field) says more.
  const std::string error =
      finding.outcome.verdict == Verdict::kCrash
          ? absl::StrCat("crash key ", finding.signature.substr(
                                           finding.signature.rfind('|') + 1))
          : FirstLine(e.error);
  log_ << "BUG: " << id << " " << bug.summary << " -> " << where << "\n  "
       << e.where << ": " << e.detail << (error.empty() ? "" : "\n  error: ")
       << error
       << (confidence.confidence == Confidence::kLow
               ? absl::StrCat("\n  low confidence: ", confidence.reason)
               : "")
       << std::endl;
}

void Triage::CheckRepro(const std::string& dir, const Finding& f) {
  checked_dirs_.insert(dir);
  if (checker_ != nullptr && f.outcome.verdict != Verdict::kOom) {
    checker_->Enqueue(dir);
  }
}

void Triage::Annotate(const std::string& dir, const std::string& key,
                      const nlohmann::json& value) {
  if (absl::Status s = store_->Annotate(dir, key, value); !s.ok()) {
    ++counts_.errors;
    NewLine();
    log_ << "ERROR: " << s.message() << "\n";
  }
}

void Triage::HandleError(const std::string& op, const std::string& context,
                         const std::string& error,
                         const std::optional<Finding>& with_case) {
  ++counts_.errors;
  const std::string kind =
      absl::StrCat(op, "|", NormalizeCrashText(FirstLine(error)));
  const std::string message =
      context.empty() ? error : absl::StrCat(context, ": ", error);
  const bool is_new = !errors_.count(kind);
  std::string where = "(not stored)";
  if (store_ != nullptr && with_case.has_value() && is_new) {
    where =
        absl::StrFormat("%s/errors/%s-%016x", store_->dir(),
                        with_case->c.op.substr(with_case->c.op.rfind(':') + 1),
                        SignatureHash(kind));
    nlohmann::json j{{"op", op},
                     {"error", message},
                     {"case", "case.json"},
                     {"evidence", with_case->outcome.evidence.error}};
    absl::Status s = MakeDirectories(where, "internal error directory");
    if (s.ok()) s = SaveCaseFile(with_case->c, where + "/case.json");
    if (s.ok()) {
      s = WriteFileAtomically(where + "/error.json", j.dump(2) + "\n",
                              "internal error");
    }
    if (!s.ok()) where = absl::StrCat("(not stored: ", s.message(), ")");
  }
  if (!is_new) return;  // Counted; said once.
  errors_[kind] = where;
  NewLine();
  log_ << "ERROR: " << message
       << (with_case.has_value() ? absl::StrCat(" -> ", where) : "")
       << std::endl;
}

}  // namespace dpfuzz
