// WorkerSlot: what one worker is running right now, in a small file that
// the worker and its supervisor both map.
//
// Before each case the worker writes the case's ticket, its sequence number
// and the start time (CLOCK_MONOTONIC) into the slot; while the case runs,
// where it stands (the word of oracles/call_phase.h: which side's op call,
// or dpfuzz's own code); after it, it marks the slot idle. Plain stores into
// shared memory cost nothing next to a case, and they outlive the worker: when
// it dies, the supervisor reads which case it was running and for how long. The
// slot is a file, so the record is on disk before the case runs. End keeps
// the sequence number, so an idle slot still says which case ended last.
//
//   absl::StatusOr<WorkerSlot> slot = WorkerSlot::Create(path);  // supervisor
//   absl::StatusOr<WorkerSlot> slot = WorkerSlot::Open(path);    // worker
//   slot->Begin(seq, "draw aten::add.Tensor f32 out 7");
//   ... run ...
//   slot->End();
//   std::optional<SlotState> s = slot->Current();                // supervisor

#ifndef DPFUZZ_CRASHES_ISOLATION_WORKER_SLOT_H_
#define DPFUZZ_CRASHES_ISOLATION_WORKER_SLOT_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dpfuzz {

struct SlotState {
  uint64_t seq = 0;        // The ticket's sequence number.
  int64_t started_ns = 0;  // CLOCK_MONOTONIC when it began.
  std::string ticket;      // Its encoded ticket.
  uint32_t phase = 0;      // EncodeCallPhase's word (oracles/call_phase.h).
};

class WorkerSlot {
 public:
  // Creates (or truncates) the file, idle.
  static absl::StatusOr<WorkerSlot> Create(const std::string& path);
  static absl::StatusOr<WorkerSlot> Open(const std::string& path);

  WorkerSlot(WorkerSlot&& other) noexcept;
  WorkerSlot& operator=(WorkerSlot&& other) noexcept;
  WorkerSlot(const WorkerSlot&) = delete;
  WorkerSlot& operator=(const WorkerSlot&) = delete;
  ~WorkerSlot();

  // Begin also resets the phase word.
  void Begin(uint64_t seq, absl::string_view ticket);
  void End();

  // The case in flight; nullopt when idle.
  std::optional<SlotState> Current() const;
  // The sequence number of the last case begun, in flight or ended; 0
  // before the first. What a worker that died between two cases of a batch
  // had run (Note [Batched reports], crashes/isolation/ticket_batch.h).
  uint64_t LastSeq() const;

  // The word a worker hands to SetCallPhaseSink; lives as long as the slot.
  std::atomic<uint32_t>* phase_word();

  static int64_t NowNs();

 private:
  struct Data;
  explicit WorkerSlot(Data* data) : data_(data) {}

  Data* data_ = nullptr;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_WORKER_SLOT_H_
