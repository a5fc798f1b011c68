#include "fuzz/campaign_progress.h"

#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace dpfuzz {

std::vector<std::string> OpNames(const std::vector<const OpSpec*>& ops) {
  std::vector<std::string> names;
  for (const OpSpec* spec : ops) names.push_back(SpecName(*spec));
  return names;
}

CampaignProgress::CampaignProgress(std::string findings_dir,
                                   std::vector<std::string> ops, Shard shard)
    : findings_dir_(std::move(findings_dir)),
      ops_(std::move(ops)),
      shard_(shard) {}

std::optional<CampaignJournal> CampaignProgress::Load(std::ostream& log) const {
  absl::StatusOr<std::optional<CampaignJournal>> journal =
      LoadJournal(findings_dir_);
  if (!journal.ok()) {
    log << "WARNING: " << journal.status().message() << "\n";
    return std::nullopt;
  }
  if (!journal->has_value() || (*journal)->finished) return std::nullopt;
  if ((*journal)->ops != ops_ || !((*journal)->shard == shard_)) {
    log << "INFO: " << findings_dir_ << "/" << kJournalFile
        << " is an unfinished campaign of other ops or another shard; "
           "starting a new one in its place\n";
    return std::nullopt;
  }
  return std::move(**journal);
}

void CampaignProgress::Submitted(const Ticket& ticket) {
  in_flight_.emplace(ticket.seed, ticket);
}

void CampaignProgress::Done(const Ticket& ticket) {
  const auto [first, last] = in_flight_.equal_range(ticket.seed);
  for (auto it = first; it != last; ++it) {
    if (it->second == ticket) {
      in_flight_.erase(it);
      return;
    }
  }
}

bool CampaignProgress::Due(size_t findings) const {
  return findings != saved_findings_ ||
         std::chrono::duration<double>(Clock::now() - saved_at_).count() >=
             kSaveSeconds;
}

absl::Status CampaignProgress::Save(CampaignJournal journal, size_t findings) {
  journal.ops = ops_;
  journal.shard = shard_;
  journal.in_flight.clear();
  for (const auto& [seed, ticket] : in_flight_) {
    // A case file whose path has a newline is not resumed; it is rare
    // enough (a corpus of odd file names) to lose to a kill.
    absl::StatusOr<std::string> line = EncodeTicket(ticket);
    if (line.ok()) journal.in_flight.push_back(*std::move(line));
  }
  saved_findings_ = findings;
  saved_at_ = Clock::now();
  return SaveJournal(journal, findings_dir_);
}

}  // namespace dpfuzz
