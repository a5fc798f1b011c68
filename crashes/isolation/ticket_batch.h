// TicketBatch: the tickets a supervisor hands one worker in one write, as
// text: a header line with their number, then one line per ticket with its
// sequence number.
//
// The worker runs a batch's tickets in order, records each in its slot
// (crashes/isolation/worker_slot.h) before running it, and answers with their
// reports (crashes/isolation/worker_report.h) in the same order, written
// together.
//
// Note [Batched reports]
// A write, a read and a wake-up of the supervisor for every case are a
// large share of a small case's time (a few tens of microseconds on 2
// shared cores), so a worker sends the reports of a batch in one write at
// its end. It
// writes at once, with those buffered before it, a report that holds a
// finding or an error: a finding that showed once (memory corruption
// read as values) may not show again, so it must never die with the
// worker. What a dead worker leaves behind is then exact without a round
// trip per case: its slot names the case in flight (or, between cases, the
// last case begun), so the tickets it was sent split into those it ran
// whose reports died with it (agreeing or invalid cases, cheap to run
// again), the case in flight, and those it never began. None is lost and
// none comes back twice: see Supervisor::HandleDeath.
//
//   "batch 2\n"
//   "12 draw aten::add.Tensor f32 out 7\n"
//   "13 file findings/mismatch-cat-0123456789abcdef/case.json\n"

#ifndef DPFUZZ_CRASHES_ISOLATION_TICKET_BATCH_H_
#define DPFUZZ_CRASHES_ISOLATION_TICKET_BATCH_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "crashes/isolation/ticket.h"

namespace dpfuzz {

// A ticket with the sequence number the supervisor gave it.
using SeqTicket = std::pair<uint64_t, Ticket>;

// The whole batch, each line ending in a newline. An empty batch, or a
// ticket EncodeTicket refuses, is an error.
absl::StatusOr<std::string> EncodeBatch(const std::vector<SeqTicket>& batch);

// A batch's first line: the number of ticket lines that follow.
absl::StatusOr<size_t> DecodeBatchHeader(absl::string_view line);

// A ticket line: its sequence number and the encoded ticket, left for
// DecodeTicket (a ticket the worker cannot read is its report's error, not
// the end of the batch).
struct BatchLine {
  uint64_t seq = 0;
  std::string ticket;
};
absl::StatusOr<BatchLine> DecodeBatchLine(absl::string_view line);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_TICKET_BATCH_H_
