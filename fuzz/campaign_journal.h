// CampaignJournal: a campaign's progress on disk, so that a campaign killed
// at any moment (SIGKILL included) and started again on the same findings
// directory goes on where it was.
//
// <findings>/campaign.json holds what the campaign is (its ops, seed and
// shard) and what it has done: the number of its next ticket, the tickets
// handed to workers that had no result yet, its counts (cases, hits,
// verdicts, ...), and the findings and bugs it triaged. The campaign writes
// it atomically (a temporary file, then a rename) when a finding is new and
// at least every second while results come in (fuzz/campaign_progress.h),
// so the file always tells one consistent moment, and marks it finished when
// the campaign ends by its budget or an interrupt it survived. A campaign
// started on a directory whose journal is unfinished and names the same ops
// resumes it (fuzz/campaign.cc): counts, findings and bugs continue, the
// tickets in flight run again (a ticket that was in flight never got counted),
// and ticket numbers go on from where they were, so no case is counted twice.
// What the campaign learned about ops (op_stats.json) is saved only at its end.
//
//   absl::StatusOr<std::optional<CampaignJournal>> j = LoadJournal("findings");
//   if (j.ok() && j->has_value() && !(*j)->finished) ... resume ...
//   SaveJournal(journal, "findings");

#ifndef DPFUZZ_FUZZ_CAMPAIGN_JOURNAL_H_
#define DPFUZZ_FUZZ_CAMPAIGN_JOURNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "fuzz/campaign.h"
#include "fuzz/shard.h"
#include "fuzz/triage.h"

namespace dpfuzz {

inline constexpr char kJournalFile[] = "campaign.json";

struct CampaignJournal {
  std::vector<std::string> ops;  // SpecName of each op, as fuzzed.
  // The command line that ran it ("dpfuzz --op=all ..."): what issue.md
  // says found a finding that `dpfuzz triage` checks later; "" in journals
  // that do not have it.
  std::string command;
  uint64_t seed = 0;
  Shard shard;
  bool finished = false;
  int64_t next_ticket = 0;  // Of this shard's tickets.
  std::vector<std::string>
      in_flight;  // Encoded tickets (crashes/isolation/ticket.h).
  // Counts, verdicts, known hits and seconds as the campaign keeps them
  // while it runs (bugs and findings are the triage's).
  CampaignSummary summary;
  TriageState triage;
};

// nullopt when `findings_dir` has no journal; an error for one that cannot
// be read (it names the file and the field).
absl::StatusOr<std::optional<CampaignJournal>> LoadJournal(
    const std::string& findings_dir);

absl::Status SaveJournal(const CampaignJournal& journal,
                         const std::string& findings_dir);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_CAMPAIGN_JOURNAL_H_
