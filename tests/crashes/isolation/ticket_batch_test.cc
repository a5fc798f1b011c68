#include "crashes/isolation/ticket_batch.h"

#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"

namespace dpfuzz {
namespace {

// What a worker reads: the header, then one line per ticket.
std::vector<SeqTicket> Decode(const std::string& text) {
  std::vector<std::string> lines = absl::StrSplit(text, '\n');
  EXPECT_EQ(lines.back(), "") << "the batch does not end in a newline";
  lines.pop_back();
  absl::StatusOr<size_t> n = DecodeBatchHeader(lines.front());
  EXPECT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n + 1, lines.size());
  std::vector<SeqTicket> batch;
  for (size_t i = 1; i < lines.size(); ++i) {
    absl::StatusOr<BatchLine> line = DecodeBatchLine(lines[i]);
    EXPECT_TRUE(line.ok()) << line.status();
    absl::StatusOr<Ticket> ticket = DecodeTicket(line->ticket);
    EXPECT_TRUE(ticket.ok()) << ticket.status();
    batch.emplace_back(line->seq, *ticket);
  }
  return batch;
}

TEST(TicketBatchTest, BatchesRoundTripInOrder) {
  // Sequence numbers need not be consecutive nor increasing: tickets a
  // dead worker never began go to the next worker before newer ones.
  const std::vector<SeqTicket> batch = {
      {12, DrawTicket("aten::add.Tensor", DType::kFloat32, Variant::kOut, 7)},
      {3, FileTicket("/tmp/a path with spaces/case.json")},
      {13, SeededTicket("aten::nll_loss_forward", DType::kFloat64,
                        Variant::kFunctional, 18446744073709551615ull)}};
  absl::StatusOr<std::string> text = EncodeBatch(batch);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text,
            "batch 3\n"
            "12 draw aten::add.Tensor f32 out 7\n"
            "3 file /tmp/a path with spaces/case.json\n"
            "13 seeded aten::nll_loss_forward f64 functional "
            "18446744073709551615\n");
  EXPECT_EQ(Decode(*text), batch);
}

TEST(TicketBatchTest, ABatchOfOneIsABatch) {
  const std::vector<SeqTicket> batch = {{0, FileTicket("case.json")}};
  absl::StatusOr<std::string> text = EncodeBatch(batch);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, "batch 1\n0 file case.json\n");
  EXPECT_EQ(Decode(*text), batch);
}

TEST(TicketBatchTest, WhatCannotBeSentIsAnError) {
  EXPECT_FALSE(EncodeBatch({}).ok());
  EXPECT_FALSE(
      EncodeBatch({{1, FileTicket("fine.json")}, {2, FileTicket("a\nb")}})
          .ok());
}

TEST(TicketBatchTest, MalformedFramingIsAnError) {
  for (const char* header :
       {"", "batch", "batch ", "batch 0", "batch -1", "batch x", "batch 2 3",
        "12 draw aten::add f32 out 7"}) {
    EXPECT_FALSE(DecodeBatchHeader(header).ok()) << '"' << header << '"';
  }
  for (const char* line : {"", "draw aten::add f32 out 7", "x draw", "-1 x"}) {
    EXPECT_FALSE(DecodeBatchLine(line).ok()) << '"' << line << '"';
  }
  // The ticket itself is the worker's to judge, case by case.
  absl::StatusOr<BatchLine> line = DecodeBatchLine("4 run aten::add");
  ASSERT_TRUE(line.ok()) << line.status();
  EXPECT_EQ(line->seq, 4u);
  EXPECT_EQ(line->ticket, "run aten::add");
}

}  // namespace
}  // namespace dpfuzz
