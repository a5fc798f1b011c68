#include "crashes/isolation/worker_slot.h"

#include <filesystem>
#include <string>

#include "gtest/gtest.h"

namespace dpfuzz {
namespace {

std::string SlotPath(const std::string& name) {
  return (std::filesystem::path(testing::TempDir()) /
          (name + std::to_string(::getpid()) + ".slot"))
      .string();
}

// What the worker writes through its mapping, the supervisor reads through
// its own, and it stays there after the writer is gone (a dead worker).
TEST(WorkerSlotTest, TheCaseInFlightOutlivesTheWriter) {
  const std::string path = SlotPath("inflight");
  absl::StatusOr<WorkerSlot> supervisor = WorkerSlot::Create(path);
  ASSERT_TRUE(supervisor.ok()) << supervisor.status();
  EXPECT_FALSE(supervisor->Current().has_value());
  const int64_t before = WorkerSlot::NowNs();
  {
    absl::StatusOr<WorkerSlot> worker = WorkerSlot::Open(path);
    ASSERT_TRUE(worker.ok()) << worker.status();
    worker->Begin(41, "draw aten::tril.out i8 out 9");
    worker->End();
    worker->Begin(42, "draw aten::cat.out f32 out 1234567");
  }
  const std::optional<SlotState> s = supervisor->Current();
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->seq, 42u);
  EXPECT_EQ(s->ticket, "draw aten::cat.out f32 out 1234567");
  EXPECT_GE(s->started_ns, before);
  EXPECT_LE(s->started_ns, WorkerSlot::NowNs());
  std::filesystem::remove(path);
}

TEST(WorkerSlotTest, EndMarksTheSlotIdle) {
  const std::string path = SlotPath("idle");
  absl::StatusOr<WorkerSlot> slot = WorkerSlot::Create(path);
  ASSERT_TRUE(slot.ok()) << slot.status();
  slot->Begin(1, "file /tmp/case.json");
  ASSERT_TRUE(slot->Current().has_value());
  slot->End();
  EXPECT_FALSE(slot->Current().has_value());
  std::filesystem::remove(path);
}

TEST(WorkerSlotTest, AMissingSlotIsAnError) {
  EXPECT_FALSE(WorkerSlot::Open(SlotPath("missing-")).ok());
  EXPECT_FALSE(WorkerSlot::Create("/nonexistent-dir/x.slot").ok());
}

}  // namespace
}  // namespace dpfuzz
