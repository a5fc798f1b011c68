#include "crashes/isolation/isolated_runs.h"

#include "common/status_macros.h"

namespace dpfuzz {

absl::StatusOr<std::map<std::string, TicketResult>> RunCaseFiles(
    const std::vector<std::string>& paths, SupervisorOptions isolation) {
  DPFUZZ_ASSIGN_OR_RETURN(std::unique_ptr<Supervisor> sup,
                          Supervisor::Start(std::move(isolation)));
  for (const std::string& path : paths) sup->Submit(FileTicket(path));
  std::map<std::string, TicketResult> last;
  std::vector<TicketResult> results;
  while (sup->Outstanding() > 0) {
    DPFUZZ_RETURN_IF_ERROR(sup->Poll(0.1, results));
    for (TicketResult& r : results) {
      std::string path = r.ticket.path;
      last.insert_or_assign(std::move(path), std::move(r));
    }
    results.clear();
  }
  return last;
}

}  // namespace dpfuzz
