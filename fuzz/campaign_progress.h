// CampaignProgress: what a campaign writes to its journal
// (fuzz/campaign_journal.h) to be resumed after a kill, and when.
//
// It keeps the tickets handed to workers that have no result yet, and
// decides when the journal is due. Writing it after every batch of results
// would rewrite the whole triage state hundreds of times a second on cheap
// ops; so it is written when the triage's findings changed (a finding on
// disk that the journal does not know would be stored twice, and its bug
// told twice, after a resume) and otherwise at most every kSaveSeconds.
// A kill then loses at most that much work, all of it consistently: the
// cases done since the last save are in flight in the journal and run
// again, and their hits of known findings were not written either
// (Triage::FlushHits runs just before each save).
//
//   CampaignProgress progress(dir, OpNames(ops), shard);
//   std::optional<CampaignJournal> j = progress.Load(log);  // To resume.
//   progress.Submitted(ticket); ... progress.Done(ticket);
//   if (progress.Due(findings)) progress.Save(journal, findings);

#ifndef DPFUZZ_FUZZ_CAMPAIGN_PROGRESS_H_
#define DPFUZZ_FUZZ_CAMPAIGN_PROGRESS_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "crashes/isolation/ticket.h"
#include "fuzz/campaign_journal.h"
#include "fuzz/shard.h"
#include "generators/op_spec.h"

namespace dpfuzz {

// SpecName of each op: how a journal names the ops of its campaign.
std::vector<std::string> OpNames(const std::vector<const OpSpec*>& ops);

class CampaignProgress {
 public:
  // At most this long between saves while results come in.
  static constexpr double kSaveSeconds = 1.0;

  CampaignProgress(std::string findings_dir, std::vector<std::string> ops,
                   Shard shard);

  // The findings directory's unfinished journal of the same ops and shard,
  // if there is one; what cannot be resumed is told on `log`.
  std::optional<CampaignJournal> Load(std::ostream& log) const;

  void Submitted(const Ticket& ticket);
  // A ticket that had its result; unknown tickets are ignored.
  void Done(const Ticket& ticket);

  // Whether a save is due, given the number of unique findings now.
  bool Due(size_t findings) const;
  // Saves `journal` with this campaign's ops, shard and tickets in flight.
  absl::Status Save(CampaignJournal journal, size_t findings);

 private:
  using Clock = std::chrono::steady_clock;

  std::string findings_dir_;
  std::vector<std::string> ops_;
  Shard shard_;
  std::multimap<uint64_t, Ticket> in_flight_;  // By seed.
  size_t saved_findings_ = 0;
  Clock::time_point saved_at_ = Clock::now();
};

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_CAMPAIGN_PROGRESS_H_
