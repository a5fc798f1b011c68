#include "crashes/isolation/worker_slot.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <new>

#include "absl/strings/str_cat.h"

namespace dpfuzz {

namespace {
constexpr size_t kSlotBytes = 4096;
}  // namespace

struct WorkerSlot::Data {
  std::atomic<int64_t> started_ns;  // 0: idle.
  std::atomic<uint64_t> seq;
  uint32_t ticket_size;
  std::atomic<uint32_t> phase;  // See Note [Call phases].
  char ticket[kSlotBytes - 2 * sizeof(int64_t) - 2 * sizeof(uint32_t)];
};

namespace {

absl::StatusOr<void*> MapFile(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("worker slot ", path, ": ", std::strerror(errno)));
  }
  if ((flags & O_CREAT) != 0 && ::ftruncate(fd, kSlotBytes) != 0) {
    ::close(fd);
    return absl::InternalError(
        absl::StrCat("worker slot ", path, ": ", std::strerror(errno)));
  }
  void* p =
      ::mmap(nullptr, kSlotBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) {
    return absl::InternalError(
        absl::StrCat("worker slot ", path, ": mmap: ", std::strerror(errno)));
  }
  return p;
}

}  // namespace

absl::StatusOr<WorkerSlot> WorkerSlot::Create(const std::string& path) {
  absl::StatusOr<void*> p = MapFile(path, O_RDWR | O_CREAT | O_TRUNC);
  if (!p.ok()) return p.status();
  static_assert(sizeof(Data) == kSlotBytes);
  return WorkerSlot(new (*p) Data{});
}

absl::StatusOr<WorkerSlot> WorkerSlot::Open(const std::string& path) {
  absl::StatusOr<void*> p = MapFile(path, O_RDWR);
  if (!p.ok()) return p.status();
  return WorkerSlot(static_cast<Data*>(*p));
}

WorkerSlot::WorkerSlot(WorkerSlot&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)) {}

WorkerSlot& WorkerSlot::operator=(WorkerSlot&& other) noexcept {
  std::swap(data_, other.data_);
  return *this;
}

WorkerSlot::~WorkerSlot() {
  if (data_ != nullptr) ::munmap(data_, kSlotBytes);
}

std::atomic<uint32_t>* WorkerSlot::phase_word() { return &data_->phase; }

int64_t WorkerSlot::NowNs() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void WorkerSlot::Begin(uint64_t seq, absl::string_view ticket) {
  const size_t size = std::min(ticket.size(), sizeof(data_->ticket));
  std::memcpy(data_->ticket, ticket.data(), size);
  data_->ticket_size = static_cast<uint32_t>(size);
  data_->phase.store(0, std::memory_order_relaxed);
  data_->seq.store(seq, std::memory_order_relaxed);
  data_->started_ns.store(NowNs(), std::memory_order_release);
}

void WorkerSlot::End() {
  data_->started_ns.store(0, std::memory_order_release);
}

uint64_t WorkerSlot::LastSeq() const {
  return data_->seq.load(std::memory_order_acquire);
}

std::optional<SlotState> WorkerSlot::Current() const {
  const int64_t started = data_->started_ns.load(std::memory_order_acquire);
  if (started == 0) return std::nullopt;
  SlotState s;
  s.started_ns = started;
  s.seq = data_->seq.load(std::memory_order_relaxed);
  s.phase = data_->phase.load(std::memory_order_relaxed);
  s.ticket.assign(data_->ticket,
                  std::min<size_t>(data_->ticket_size, sizeof(data_->ticket)));
  return s;
}

}  // namespace dpfuzz
