#include "fuzz/campaign.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <unordered_map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/files.h"
#include "crashes/bugs/findings_store.h"
#include "crashes/findings/layout_corpus.h"
#include "crashes/repro/python_repro_check.h"
#include "crashes/repro/repro_files.h"
#include "fuzz/campaign_journal.h"
#include "fuzz/campaign_progress.h"
#include "fuzz/corpus_draws.h"
#include "fuzz/op_knowledge.h"
#include "fuzz/op_schedule.h"
#include "fuzz/report.h"
#include "fuzz/repro_checker.h"
#include "generators/rng.h"
#include "generators/seed_corpus.h"
#include "oracles/case_builder.h"

namespace dpfuzz {
namespace {

using Clock = std::chrono::steady_clock;

// Campaigns stop drawing for an op after this many invalid draws in a row.
constexpr int kMaxInvalidInARow = 2000;
// After an interrupt or past the time budget, the cases already handed to
// workers get this long to finish; the rest are abandoned (and counted).
constexpr double kGraceSeconds = 2;
// Python repro checks still queued when the time budget is spent may run
// until a tenth of the budget (at least this much) past it; counted from
// the budget, not from when the workers stopped, so a slow triage at the
// end (a hang re-run alone) cannot push the campaign's end further.
constexpr double kMinReproWaitSeconds = 10;
// A generic op's draw is the likeliest valid of this many candidates.
constexpr int kDrawCandidates = 4;
// An op whose cases killed this many workers is quarantined: dropped from
// the campaign and reported, so that it cannot eat the campaign's time.
constexpr int kQuarantineDeaths = 3;
// An op whose draws from its spec (or its seeds) are valid less often than
// kLowValidRate, after kMinTriedToJudge of them, draws 7 in 8 cases from
// the other source.
constexpr int64_t kMinTriedToJudge = 20;
constexpr double kLowValidRate = 0.1;
// How often the turns of slow ops are re-weighed from their costs.
constexpr double kScheduleUpdateSeconds = 1;

std::vector<DType> AllowedDTypes(const OpSpec& spec,
                                 const std::vector<DType>& allowed) {
  if (allowed.empty()) return spec.dtypes;
  std::vector<DType> out;
  for (DType d : spec.dtypes) {
    if (std::find(allowed.begin(), allowed.end(), d) != allowed.end())
      out.push_back(d);
  }
  return out;
}

// The dtypes of `allowed` a seeded draw may ask for: those recorded, and
// every other of the same kind (floating, complex, integral, bool); the
// recorded ones weigh three times as much.
std::vector<DType> SeedDTypes(const SeedIndexEntry& seeds,
                              const std::vector<DType>& allowed) {
  std::vector<DType> out;
  for (DType d : allowed) {
    bool recorded = false, same_kind = false;
    for (DType s : seeds.dtypes) {
      recorded |= s == d;
      same_kind |= KindOf(s) == KindOf(d);
    }
    if (same_kind) out.push_back(d);
    if (recorded) out.insert(out.end(), 2, d);
  }
  return out;
}

class Campaign {
 public:
  Campaign(const CampaignOptions& options, std::ostream& log,
           const std::atomic<bool>* stop)
      : options_(options),
        log_(log),
        stop_(stop),
        seed_(options.seed),
        schedule_(options.seed) {}

  CampaignSummary Run();

 private:
  struct OpState {
    const OpSpec* spec;
    std::string name;
    std::vector<DType> dtypes;
    std::vector<Variant> variants;
    int invalid_in_a_row = 0;
    int deaths = 0;       // Workers its cases killed.
    bool learns = false;  // A generic op: draws follow what worked.
    // Dtypes a seeded draw may ask for (those of the op's kinds of recorded
    // seeds); empty: the op has no seeds.
    std::vector<DType> seed_dtypes = {};
  };

  // Seconds of the campaign so far, the runs it resumes included.
  double Elapsed() const {
    return resumed_seconds_ +
           std::chrono::duration<double>(Clock::now() - start_).count();
  }
  // Seconds the time budget leaves (a large number without one).
  double Remaining() const;
  bool Setup();
  // The op of that name still in the campaign; nullptr when none.
  OpState* FindOpState(const std::string& name);
  // Drops an op from the campaign (quarantined, or never valid).
  void DropOp(const OpState* op);
  // Goes on from the findings directory's unfinished journal of the same
  // ops and shard, if there is one (fuzz/campaign_journal.h).
  void MaybeResume();
  // Saves the journal (fuzz/campaign_progress.h says when it is due),
  // with the hits it counts written to the store first.
  void SaveProgress(bool finished);
  void Submit(Supervisor& sup, const Ticket& ticket);
  bool WantMore() const;
  // Re-weighs the ops' turns by what their draws cost, now and then.
  void MaybeUpdateSchedule();
  Ticket Draw();
  // Whether the next draw for `op` takes its arguments from the seeds.
  bool DrawSeeded(const OpState& op, Rng& rng);
  void Handle(TicketResult& result);
  void HandleFinding(const Finding& found);
  // Counts a known finding; true when it is one.
  bool Muted(const Finding& finding);
  // Counts a worker death on `op`; quarantines it after kQuarantineDeaths.
  void CountDeath(const std::string& op);
  // Logs the Python repro checks that are done.
  void ReportReproChecks();
  void PrintProgress();
  // quarantine.json and the reports (fuzz/report.h) in the findings dir.
  void WriteReportFiles();

  const CampaignOptions& options_;
  std::ostream& log_;
  const std::atomic<bool>* stop_;
  uint64_t seed_;
  // This shard's next ticket; each draws from its own Rng (TicketRng), so
  // that a resumed campaign goes on where it was.
  int64_t next_ticket_ = 0;
  std::optional<CampaignProgress> progress_;  // With a store.
  std::vector<Ticket> resubmit_;  // In flight when the resumed run stopped.
  double resumed_seconds_ = 0;
  // When this run's first and last worker results came (Elapsed), and its
  // cases before the first: the summary's start and steady rate.
  double first_result_at_ = -1;
  double last_result_at_ = -1;
  int64_t cases_before_first_result_ = 0;
  int64_t resumed_worker_deaths_ = 0;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_progress_ = start_;
  CampaignSummary summary_;
  std::optional<FindingsStore> store_;
  std::optional<ReproChecker> checker_;  // With a store and python_check.
  // The last repro check result logged per finding directory: a finding
  // whose case a smaller one replaced is checked again, and said again only
  // when the result changed.
  std::unordered_map<std::string, std::string> logged_checks_;
  std::optional<Triage> triage_;
  std::vector<OpState> ops_;
  std::unordered_map<std::string, size_t> op_index_;  // Name -> in ops_.
  std::optional<CorpusDraws> corpus_;                 // With --corpus.
  OpKnowledge knowledge_;  // Loaded from and saved to the findings dir.
  OpSchedule schedule_;  // Whose turn a draw is (Note [Speed-weighted turns]).
  double schedule_updated_at_ = -kScheduleUpdateSeconds;
  std::set<std::string> ops_with_cases_;  // This run's, for the summary.
};

bool Campaign::Setup() {
  if (!options_.findings_dir.empty()) {
    absl::StatusOr<FindingsStore> opened =
        FindingsStore::Open(options_.findings_dir);
    if (!opened.ok()) {
      log_ << "ERROR: " << opened.status().message() << "\n";
      ++summary_.errors;
      return false;
    }
    store_ = *opened;
    if (options_.python_check) checker_.emplace(*opened, options_.command);
    absl::StatusOr<OpKnowledge> k = OpKnowledge::Load(
        absl::StrCat(options_.findings_dir, "/", kOpStatsFile));
    if (k.ok()) {
      knowledge_ = std::move(*k);
    } else {
      log_ << "WARNING: " << k.status().message() << "; starting afresh\n";
    }
  }
  TriageOptions triage;
  triage.reduce = options_.reduce;
  triage.budget_share = options_.triage_share;
  triage.isolation = options_.isolation;
  triage.isolation.worker.corpus_dir.clear();  // Reductions add nothing.
  triage.progress = options_.progress;
  triage_.emplace(triage, store_.has_value() ? &*store_ : nullptr,
                  checker_.has_value() ? &*checker_ : nullptr, log_);
  std::optional<SeedCorpus> seeds;
  if (!options_.isolation.worker.seeds_dir.empty()) {
    absl::StatusOr<SeedCorpus> opened =
        SeedCorpus::Open(options_.isolation.worker.seeds_dir);
    if (opened.ok()) {
      seeds = std::move(*opened);
      log_ << "INFO: seeds: " << seeds->index().size()
           << " overloads with recorded arguments (torch "
           << seeds->torch_version() << ") in " << seeds->dir() << "\n";
    } else {
      log_ << "INFO: " << opened.status().message()
           << "; arguments are drawn from schemas only\n";
    }
  }
  int unseeded = 0;  // Ops that only seeds could give arguments to.
  for (size_t i = 0; i < options_.ops.size(); ++i) {
    if (!options_.shard.HasOp(i, options_.ops.size())) continue;
    const OpSpec* spec = options_.ops[i];
    OpState state{spec, SpecName(*spec), AllowedDTypes(*spec, options_.dtypes),
                  VariantsOf(*spec)};
    state.learns = (spec->rules & kRuleCheckDeterminism) != 0;
    // Seeds are dense arguments: a nested spec draws its own. A source
    // none of whose cases fits (generators/seed_corpus.h) gives none.
    if (const SeedIndexEntry* e =
            seeds && !spec->nested ? seeds->Find(seeds->SourceFor(state.name))
                                   : nullptr;
        e != nullptr && !seeds->CasesFor(state.name).empty()) {
      state.seed_dtypes = SeedDTypes(*e, state.dtypes);
    }
    if (!spec->seeds_only.empty() && state.seed_dtypes.empty()) {
      ++unseeded;  // Its seeds give none of the requested dtypes, or none.
      continue;
    }
    if (state.dtypes.empty()) {
      log_ << "WARNING: " << spec->op
           << " accepts none of the requested dtypes; skipped\n";
      continue;
    }
    op_index_.emplace(state.name, ops_.size());
    ops_.push_back(state);
  }
  if (unseeded > 0) {
    log_ << "INFO: " << unseeded
         << " op(s) take an argument that only recorded seeds give (a str) "
            "and have no seeds of the requested dtypes: not fuzzed (dpfuzz "
            "list-ops lists them)\n";
  }
  if (store_.has_value()) {
    progress_.emplace(options_.findings_dir, OpNames(options_.ops),
                      options_.shard);
  }
  MaybeResume();
  summary_.ops = static_cast<int64_t>(ops_.size());
  if (!options_.corpus_dir.empty()) {
    std::set<const OpSpec*> specs;
    for (const OpState& op : ops_) specs.insert(op.spec);
    corpus_.emplace(options_.corpus_dir, std::move(specs));
  }
  return true;
}

void Campaign::MaybeResume() {
  if (!progress_.has_value()) return;
  std::optional<CampaignJournal> j = progress_->Load(log_);
  if (!j.has_value()) return;
  seed_ = j->seed;
  next_ticket_ = j->next_ticket;
  schedule_.SeekTo(next_ticket_);
  summary_ = j->summary;
  resumed_seconds_ = j->summary.seconds;
  resumed_worker_deaths_ = j->summary.worker_deaths;
  triage_->Resume(j->triage);
  for (const std::string& line : j->in_flight) {
    absl::StatusOr<Ticket> t = DecodeTicket(line);
    if (t.ok()) resubmit_.push_back(*t);
  }
  log_ << "INFO: resuming the campaign in " << options_.findings_dir << ": "
       << summary_.cases << " cases, " << j->triage.bugs.size() << " bug(s), "
       << absl::StrFormat("%.0f", resumed_seconds_) << " s so far; "
       << resubmit_.size() << " case(s) in flight run again" << std::endl;
}

void Campaign::SaveProgress(bool finished) {
  if (!progress_.has_value()) return;
  triage_->FlushHits();
  CampaignJournal j;
  j.seed = seed_;
  j.command = options_.command;
  j.finished = finished;
  j.next_ticket = next_ticket_;
  j.summary = summary_;
  j.summary.seconds = Elapsed();
  j.triage = triage_->State();
  if (absl::Status s =
          progress_->Save(std::move(j), triage_->findings().size());
      !s.ok()) {
    ++summary_.errors;
    log_ << "ERROR: " << s.message() << "\n";
  }
}

void Campaign::Submit(Supervisor& sup, const Ticket& ticket) {
  if (progress_.has_value()) progress_->Submitted(ticket);
  sup.Submit(ticket);
}

bool Campaign::WantMore() const {
  if (ops_.empty() || summary_.interrupted) return false;
  if (options_.max_time_seconds > 0 && Elapsed() >= options_.max_time_seconds)
    return false;
  return true;
}

bool Campaign::DrawSeeded(const OpState& op, Rng& rng) {
  if (op.seed_dtypes.empty()) return false;
  if (!op.spec->seeds_only.empty()) return true;
  // Mostly the other source for an op whose draws from one are rarely
  // valid (seeds borrowed from an op of the same signature may not fit).
  const OpStats* stats = knowledge_.Find(op.name);
  auto rarely_valid = [](const Tally& t) {
    return t.tried >= kMinTriedToJudge && ValidRate(t) < kLowValidRate;
  };
  if (stats != nullptr && rarely_valid(stats->seeded)) return rng.OneIn(8);
  if (stats != nullptr && rarely_valid(stats->drawn())) return !rng.OneIn(8);
  return rng.OneIn(2);
}

// Ticket k of shard I draws from the stream of global ticket I + N * k.
Rng TicketRng(uint64_t seed, uint64_t global_ticket) {
  Rng mix(seed ^ (global_ticket * 0xD1B54A32D192ED03ull));
  return Rng(mix.Next());
}

void Campaign::MaybeUpdateSchedule() {
  const double now = Elapsed();
  if (now - schedule_updated_at_ < kScheduleUpdateSeconds) return;
  schedule_updated_at_ = now;
  std::vector<std::string> names;
  names.reserve(ops_.size());
  for (const OpState& op : ops_) names.push_back(op.name);
  schedule_.Update(names, knowledge_);
}

Ticket Campaign::Draw() {
  const int64_t k = next_ticket_++;
  OpState& op = ops_[schedule_.Next(ops_.size())];
  Rng rng = TicketRng(seed_, options_.shard.GlobalTicket(k));
  if (corpus_.has_value() && rng.OneIn(4)) {
    std::optional<Ticket> t =
        corpus_->Draw(rng, options_.shard.GlobalTicket(k));
    if (t.has_value()) return *t;
  }
  if (DrawSeeded(op, rng)) {
    const DType dtype = rng.Pick(op.seed_dtypes);
    const Variant variant = rng.Pick(op.variants);
    return SeededTicket(op.name, dtype, variant, rng.Next());
  }
  DType dtype = rng.Pick(op.dtypes);
  const Variant variant = rng.Pick(op.variants);
  uint64_t seed = rng.Next();
  // A generic op: the candidate whose dtype and plan worked best so far.
  for (int i = 1; op.learns && i < kDrawCandidates; ++i) {
    const DType d = rng.Pick(op.dtypes);
    const uint64_t s = rng.Next();
    if (knowledge_.Estimate(op.name, d, s) >
        knowledge_.Estimate(op.name, dtype, seed)) {
      dtype = d;
      seed = s;
    }
  }
  return DrawTicket(op.name, dtype, variant, seed);
}

bool Campaign::Muted(const Finding& finding) {
  const std::optional<KnownIssues::Entry> known =
      options_.known.Match(finding.signature);
  if (!known.has_value()) return false;
  KnownHits& k = summary_.known[finding.signature];
  k.note = known->note;
  if (++k.hits == 1) {
    if (options_.progress) std::fprintf(stderr, "\n");
    log_ << "KNOWN: " << finding.signature << "  " << known->note << std::endl;
  }
  return true;
}

double Campaign::Remaining() const {
  return options_.max_time_seconds > 0 ? options_.max_time_seconds - Elapsed()
                                       : 1e9;
}

void Campaign::HandleFinding(const Finding& found) {
  if (Muted(found)) return;
  ++summary_.hits;
  triage_->HandleFinding(found, Elapsed(), Remaining());
}

Campaign::OpState* Campaign::FindOpState(const std::string& name) {
  const auto it = op_index_.find(name);
  return it == op_index_.end() ? nullptr : &ops_[it->second];
}

void Campaign::DropOp(const OpState* op) {
  ops_.erase(ops_.begin() + (op - ops_.data()));
  op_index_.clear();
  for (size_t i = 0; i < ops_.size(); ++i) op_index_.emplace(ops_[i].name, i);
}

void Campaign::CountDeath(const std::string& name) {
  OpState* op = FindOpState(name);
  if (op == nullptr || ++op->deaths < kQuarantineDeaths) return;
  const std::string reason = absl::StrCat(
      op->deaths, " of its cases killed their worker (crash, hang or memory)");
  if (options_.progress) std::fprintf(stderr, "\n");
  log_ << "WARNING: quarantined " << op->name << ": " << reason
       << "; dropped from the campaign" << std::endl;
  summary_.quarantined.push_back({op->name, op->deaths, reason});
  DropOp(op);
}

void Campaign::ReportReproChecks() {
  if (!checker_.has_value()) return;
  for (const ReproCheckDone& d : checker_->TakeDone()) {
    std::string& logged = logged_checks_[d.dir];
    if (logged != d.result) {
      logged = d.result;
      if (options_.progress) std::fprintf(stderr, "\n");
      log_ << "INFO: " << d.dir << "/" << kPythonReproFile << ": " << d.result
           << std::endl;
    }
    if (!d.error.empty()) {
      ++summary_.errors;
      log_ << "ERROR: " << d.error << "\n";
    }
  }
}

void Campaign::Handle(TicketResult& r) {
  last_result_at_ = Elapsed();
  if (first_result_at_ < 0) {
    first_result_at_ = last_result_at_;
    cases_before_first_result_ = summary_.cases;
  }
  if (r.kind != TicketResult::Kind::kLateCulprit) {
    if (corpus_.has_value()) corpus_->Done(r.ticket);
    if (progress_.has_value()) progress_->Done(r.ticket);
  }
  switch (r.kind) {
    case TicketResult::Kind::kInvalid: {
      ++summary_.invalid;
      knowledge_.Record(r.ticket.op, r.ticket.dtype, r.ticket.seed, false,
                        r.ticket.kind == Ticket::Kind::kSeeded, r.seconds);
      OpState* op = FindOpState(r.ticket.op);
      if (op != nullptr && ++op->invalid_in_a_row == kMaxInvalidInARow) {
        log_ << "WARNING: " << op->name << ": " << kMaxInvalidInARow
             << " drawn argument sets in a row were rejected by the op; "
                "dropping it from the campaign\n";
        DropOp(op);
      }
      return;
    }
    case TicketResult::Kind::kError:
      if (r.finding.has_value()) {
        // dpfuzz's own failure on a case it built; a dead worker's counts
        // toward the op's quarantine too.
        if (IsDeath(r.verdict)) CountDeath(r.ticket.op);
        triage_->HandleError(r.ticket.op, "", r.error, r.finding);
      } else {
        triage_->HandleError(r.ticket.op, TicketToString(r.ticket), r.error,
                             std::nullopt);
      }
      return;
    case TicketResult::Kind::kCulprit:
      ++summary_.culprits;
      ++summary_.cases;
      CountDeath(r.ticket.op);
      break;
    case TicketResult::Kind::kLateCulprit:
      ++summary_.culprits;
      CountDeath(r.ticket.op);
      break;
    case TicketResult::Kind::kRan:
      ++summary_.cases;
      break;
  }
  if (OpState* op = FindOpState(r.ticket.op)) op->invalid_in_a_row = 0;
  if (r.kind != TicketResult::Kind::kLateCulprit &&
      r.ticket.kind != Ticket::Kind::kFile) {  // Corpus draws are no draws.
    knowledge_.Record(r.ticket.op, r.ticket.dtype, r.ticket.seed, true,
                      r.ticket.kind == Ticket::Kind::kSeeded, r.seconds);
  }
  if (r.kind != TicketResult::Kind::kLateCulprit) {
    ops_with_cases_.insert(r.ticket.op);
  }
  ++summary_.verdicts[r.verdict];
  if (r.finding.has_value()) HandleFinding(*r.finding);
}

void Campaign::WriteReportFiles() {
  nlohmann::json quarantined = nlohmann::json::array();
  for (const Quarantined& q : summary_.quarantined) {
    quarantined.push_back(
        {{"op", q.op}, {"deaths", q.deaths}, {"reason", q.reason}});
  }
  absl::Status s = WriteFileAtomically(
      absl::StrCat(options_.findings_dir, "/", kQuarantineFile),
      quarantined.dump(2) + "\n", "quarantine list");
  if (s.ok()) s = WriteReports(options_.findings_dir);
  if (!s.ok()) {
    ++summary_.errors;
    log_ << "ERROR: " << s.message() << "\n";
    return;
  }
  log_ << "INFO: report: " << options_.findings_dir << "/report.md (.html, "
       << ".json)" << std::endl;
}

void Campaign::PrintProgress() {
  const double elapsed = Elapsed();
  std::fprintf(stderr,
               "\r[%5.0fs] cases %lld (%.0f/s)  bugs %zu  hits %lld  "
               "crashes %lld  invalid %lld ",
               elapsed, static_cast<long long>(summary_.cases),
               elapsed > 0 ? summary_.cases / elapsed : 0.0,
               triage_->bugs().size(), static_cast<long long>(summary_.hits),
               static_cast<long long>(summary_.culprits),
               static_cast<long long>(summary_.invalid));
  std::fflush(stderr);
}

CampaignSummary Campaign::Run() {
  if (!Setup()) return summary_;
  absl::StatusOr<std::unique_ptr<Supervisor>> supervisor =
      Supervisor::Start(options_.isolation);
  if (!supervisor.ok()) {
    log_ << "ERROR: " << supervisor.status().message() << "\n";
    ++summary_.errors;
    return summary_;
  }
  Supervisor& sup = **supervisor;
  std::optional<double> interrupted_at;
  std::vector<TicketResult> results;
  for (;;) {
    if (stop_ != nullptr && stop_->load() && !interrupted_at.has_value()) {
      summary_.interrupted = true;
      interrupted_at = Elapsed();
    }
    MaybeUpdateSchedule();
    while (WantMore() && sup.HasRoom() &&
           (options_.runs == 0 ||
            summary_.cases + static_cast<int64_t>(sup.Outstanding()) <
                options_.runs)) {
      if (!resubmit_.empty()) {  // Planned by the run resumed.
        Submit(sup, resubmit_.back());
        resubmit_.pop_back();
        continue;
      }
      Submit(sup, Draw());
      ++summary_.planned;
    }
    if (sup.Outstanding() == 0 &&
        (!WantMore() ||
         (options_.runs > 0 && summary_.cases >= options_.runs))) {
      break;
    }
    const double now = Elapsed();
    const bool past_grace =
        (interrupted_at.has_value() && now - *interrupted_at > kGraceSeconds) ||
        (options_.max_time_seconds > 0 &&
         now - options_.max_time_seconds > kGraceSeconds);
    if (past_grace) {
      summary_.abandoned += static_cast<int64_t>(sup.Abandon().size());
      break;
    }
    if (absl::Status s = sup.Poll(0.05, results); !s.ok()) {
      log_ << "ERROR: " << s.message() << "\n";
      ++summary_.errors;
      summary_.abandoned += static_cast<int64_t>(sup.Abandon().size());
      break;
    }
    for (TicketResult& r : results) Handle(r);
    triage_->WorkOnBacklog(Elapsed(), Remaining());
    if (!results.empty() && progress_.has_value() &&
        progress_->Due(triage_->findings().size())) {
      SaveProgress(/*finished=*/false);
    }
    results.clear();
    ReportReproChecks();
    if (options_.progress &&
        std::chrono::duration<double>(Clock::now() - last_progress_).count() >
            0.25) {
      last_progress_ = Clock::now();
      PrintProgress();
    }
  }
  if (checker_.has_value()) {
    // Python repro checks left over get a bounded wait: none after an
    // interrupt, until a tenth of the time budget (at least 10 s) past
    // the budget otherwise. Bug leads the report will show without an
    // issue.md of their own are queued first.
    const double wait =
        summary_.interrupted ? 0
        : options_.max_time_seconds > 0
            ? std::max(0.0, options_.max_time_seconds +
                                std::max(kMinReproWaitSeconds,
                                         options_.max_time_seconds / 10) -
                                Elapsed())
            : 1e9;
    if (wait > 0) {
      triage_->FlushHits();
      absl::StatusOr<size_t> unchecked =
          CheckBugLeads(options_.findings_dir, *checker_);
      if (!unchecked.ok()) {
        ++summary_.errors;
        log_ << "ERROR: " << unchecked.status().message() << "\n";
      }
    }
    const size_t dropped = checker_->Finish(wait);
    ReportReproChecks();
    if (dropped > 0) {
      log_ << "INFO: " << dropped
           << " finding(s) left without a Python repro check; run their "
              "repro.py with "
           << kReproPython << std::endl;
    }
  }
  summary_.worker_deaths = resumed_worker_deaths_ + sup.worker_deaths();
  // Killed before this, the campaign resumes; interrupted, it resumes too.
  SaveProgress(/*finished=*/!summary_.interrupted);
  summary_.ops_with_cases = static_cast<int64_t>(ops_with_cases_.size());
  summary_.findings = triage_->findings();
  summary_.bugs = triage_->bugs();
  summary_.baseline_failures = triage_->counts().baseline_failures;
  summary_.flaky = triage_->counts().flaky;
  summary_.overlap = triage_->counts().overlap;
  summary_.errors += triage_->counts().errors;
  summary_.untriaged = triage_->counts().untriaged;
  if (summary_.untriaged > 0 && store_.has_value()) {
    log_ << "INFO: " << summary_.untriaged
         << " root cause(s) stored untriaged (not reduced or not reduced "
            "to the end, some not blamed): the triage budget "
            "(--triage_share of the campaign's time) or the campaign's "
            "time ran out; `dpfuzz triage "
         << options_.findings_dir << "` finishes them" << std::endl;
  }
  if (store_.has_value()) {
    const absl::Status saved =
        knowledge_.Save(absl::StrCat(options_.findings_dir, "/", kOpStatsFile));
    if (!saved.ok()) {
      ++summary_.errors;
      log_ << "ERROR: " << saved.message() << "\n";
    }
  }
  if (!options_.corpus_dir.empty()) {
    if (absl::Status m = MergeCells(options_.corpus_dir); !m.ok()) {
      ++summary_.errors;
      log_ << "ERROR: " << m.message() << "\n";
    }
    const std::set<std::string> cells = ReadCorpusCells(options_.corpus_dir);
    if (store_.has_value()) {  // The report's coverage map.
      const absl::Status copied = WriteFileAtomically(
          absl::StrCat(options_.findings_dir, "/", kCoverageCellsFile),
          absl::StrCat(absl::StrJoin(cells, "\n"), "\n"), "coverage cells");
      if (!copied.ok()) log_ << "WARNING: " << copied.message() << "\n";
    }
    log_ << "INFO: corpus: " << CorpusCaseFiles(options_.corpus_dir).size()
         << " case(s), " << cells.size() << " layout-coverage cell(s) in "
         << options_.corpus_dir << std::endl;
  }
  if (store_.has_value()) WriteReportFiles();
  summary_.seconds = Elapsed();
  if (first_result_at_ >= 0) {
    summary_.start_seconds = first_result_at_ - resumed_seconds_;
    const double steady = last_result_at_ - first_result_at_;
    summary_.steady_cases_per_second =
        steady > 0 ? (summary_.cases - cases_before_first_result_) / steady : 0;
  }
  if (options_.progress) {
    PrintProgress();
    std::fprintf(stderr, "\n");
  }
  return summary_;
}

}  // namespace

CampaignSummary RunCampaign(const CampaignOptions& options, std::ostream& log,
                            const std::atomic<bool>* stop) {
  return Campaign(options, log, stop).Run();
}

}  // namespace dpfuzz
