// A campaign: cases drawn for a set of ops and run in isolated workers
// until a case or time budget runs out, findings stored as they come.
//
// Ops are visited round-robin; for each case a dtype (among those the op
// accepts and the user allows), a variant (functional, out=, in-place) and
// a seed are drawn into a ticket from the Rng of that ticket's number and
// the campaign's seed, so a campaign is reproducible from its seed
// whatever the number of workers, splits into shards (fuzz/shard.h) and
// resumes after it was killed (fuzz/campaign_journal.h). The tickets
// run in worker processes under a supervisor (crashes/isolation/supervisor.h):
// a crash, hang or runaway allocation costs one finding, never the campaign.
// Progress and findings are reported on `log` with stable prefixes (INFO:,
// FINDING:, KNOWN:, WARNING:, ERROR:) and, on a terminal, a live progress
// line on stderr.
//
//   CampaignOptions options;
//   options.ops = {FindOp("masked_select")};
//   options.max_time_seconds = 60;
//   CampaignSummary s = RunCampaign(options, std::cout, &stop_requested);

#ifndef DPFUZZ_FUZZ_CAMPAIGN_H_
#define DPFUZZ_FUZZ_CAMPAIGN_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "crashes/findings/known_issues.h"
#include "crashes/isolation/supervisor.h"
#include "fuzz/shard.h"
#include "fuzz/triage.h"
#include "generators/op_spec.h"
#include "oracles/verdict.h"

namespace dpfuzz {

struct CampaignOptions {
  std::vector<const OpSpec*> ops;
  std::vector<DType> dtypes;  // Allowed dtypes; empty: each op's own.
  // Budgets count the runs a resumed campaign goes on from (see
  // fuzz/campaign_journal.h).
  int64_t runs = 0;             // Cases to run; 0: no limit.
  double max_time_seconds = 0;  // 0: no limit.
  uint64_t seed = 1;
  Shard shard;               // This runner's part (fuzz/shard.h).
  std::string findings_dir;  // Where findings go; "": not stored.
  // The layout corpus (crashes/findings/layout_corpus.h): workers add to it
  // (set isolation.worker.corpus_dir too) and one draw in four mutates one of
  // its cases; "": none.
  std::string corpus_dir;
  // Run each stored finding's repro.py with the system's Python torch when
  // it matches (crashes/repro/python_repro_check.h); the result goes in its
  // finding.json under "python_repro".
  bool python_check = true;
  // Reduce each new finding (reducers/reducer.h) before storing it; the
  // reduced case drives its signature and repros.
  bool reduce = true;
  // Share of the campaign's time triage may take (fuzz/triage.h).
  double triage_share = 0.25;
  std::string command;  // The command line, for each bug's issue.md.
  // The exit status counts baseline failures too (RunCampaign ignores it).
  bool fail_on_baseline_failures = false;
  bool progress = false;  // Live progress line on stderr.
  SupervisorOptions isolation;
  KnownIssues known;  // Findings to count but not report.
  // Directories of known cases (fuzz/known_cases.h), for the caller to
  // learn into `known` before the campaign (LearnKnownCases).
  std::vector<std::string> known_case_dirs;
};

struct KnownHits {
  std::string note;
  int64_t hits = 0;
};

// Ops quarantined by a campaign, in its findings directory: [{op, deaths,
// reason}].
inline constexpr char kQuarantineFile[] = "quarantine.json";

struct Quarantined {
  std::string op;
  int deaths = 0;
  std::string reason;
};

struct CampaignSummary {
  int64_t planned = 0;  // Tickets drawn and handed to workers.
  int64_t cases = 0;    // Cases run through the oracles (culprits too).
  int64_t invalid = 0;  // Drawn arguments the op itself rejects: no case.
  // Op overloads in the campaign (this shard's), and those of them with a
  // case this run (a valid draw): the campaign's coverage of the library.
  int64_t ops = 0;
  int64_t ops_with_cases = 0;
  // dpfuzz's own failures: cases it could not run or failed on (internal
  // errors, kept under <findings>/errors/), never findings.
  int64_t errors = 0;
  int64_t culprits = 0;   // Cases that killed their worker.
  int64_t abandoned = 0;  // Tickets dropped unrun: interrupt or time up.
  int64_t worker_deaths = 0;
  int64_t hits = 0;  // Cases with a (not known) finding.
  std::map<std::string, std::string> findings;  // Unique: signature -> dir.
  // Layout bugs (fuzz/triage.h), by bug id: the unit people read.
  std::map<std::string, BugRecord> bugs;
  int64_t baseline_failures = 0;  // Hits of baseline failures (not bugs).
  int64_t flaky = 0;              // Findings that did not show again.
  int64_t overlap = 0;            // Hits of findings that need shared memory.
  // Root causes stored past the triage budget and still untriaged at the
  // end (fuzz/triage.h): `dpfuzz triage` finishes them.
  int64_t untriaged = 0;
  std::vector<Quarantined> quarantined;
  std::map<std::string, KnownHits> known;  // Muted, by signature.
  std::map<Verdict, int64_t> verdicts;     // Cases per verdict.
  double seconds = 0;
  // This run's start: the seconds until the first result of a worker
  // (processes started, LibTorch loaded twice, the first batch run).
  double start_seconds = 0;
  // Cases per second from that first result to the last: the rate once
  // started, which an in-process bench of the engine compares with.
  double steady_cases_per_second = 0;
  bool interrupted = false;
};

CampaignSummary RunCampaign(const CampaignOptions& options, std::ostream& log,
                            const std::atomic<bool>* stop);

// The campaign's last line, what a person acts on: "SUMMARY: bugs=2
// low_confidence=0 findings=5 known=1 baseline_failures=0 flaky=0
// cases=693150 seconds=60.0", then " untriaged=N" when root causes were
// left untriaged and " interrupted" when it was stopped.
// Every other count (hits, invalid draws, errors, worker deaths, verdicts,
// rates) is in SummaryJson.
std::string SummaryLine(const CampaignSummary& summary);

// planned, cases, ops, ops_with_cases, bugs (a count), bug_list (id, summary,
// dir, hits, low_confidence, first_seen_seconds), findings (unique), hits,
// baseline_failures, flaky, overlap, untriaged, invalid, errors, culprits,
// abandoned, worker_deaths, seconds, start_seconds, steady_cases_per_second,
// verdicts (a count per verdict), finding_dirs, known (signature, note, hits),
// quarantined (op, deaths, reason), interrupted.
std::string SummaryJson(const CampaignSummary& summary);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_CAMPAIGN_H_
