#include "crashes/isolation/ticket.h"

#include "gtest/gtest.h"

namespace dpfuzz {
namespace {

TEST(TicketTest, DrawAndFileTicketsRoundTrip) {
  for (const Ticket& t :
       {DrawTicket("aten::add.Tensor", DType::kBFloat16, Variant::kOut, 0),
        DrawTicket("planted::segv_neg", DType::kInt64, Variant::kInplace,
                   18446744073709551615ull),
        SeededTicket("aten::nll_loss_forward", DType::kFloat64, Variant::kOut,
                     12),
        FileTicket("findings/mismatch-cat-0123/case.json"),
        FileTicket("/tmp/a path with spaces/case.json")}) {
    absl::StatusOr<std::string> line = EncodeTicket(t);
    ASSERT_TRUE(line.ok()) << line.status();
    EXPECT_EQ(line->find('\n'), std::string::npos);
    absl::StatusOr<Ticket> back = DecodeTicket(*line);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_TRUE(*back == t) << *line;
  }
  EXPECT_EQ(*EncodeTicket(DrawTicket("aten::add.Tensor", DType::kFloat32,
                                     Variant::kOut, 7)),
            "draw aten::add.Tensor f32 out 7");
  EXPECT_EQ(*EncodeTicket(SeededTicket("aten::add.Tensor", DType::kFloat32,
                                       Variant::kOut, 7)),
            "seeded aten::add.Tensor f32 out 7");
  EXPECT_EQ(TicketToString(SeededTicket("aten::add.Tensor", DType::kFloat32,
                                        Variant::kOut, 7)),
            "aten::add.Tensor f32 out seed 7 from recorded seeds");
}

TEST(TicketTest, WhatCannotBeOneLineIsAnError) {
  EXPECT_FALSE(EncodeTicket(FileTicket("a\nb")).ok());
  EXPECT_FALSE(EncodeTicket(DrawTicket("two words", DType::kFloat32,
                                       Variant::kFunctional, 1))
                   .ok());
  EXPECT_FALSE(
      EncodeTicket(DrawTicket("", DType::kFloat32, Variant::kFunctional, 1))
          .ok());
}

TEST(TicketTest, MalformedLinesAreErrors) {
  for (const char* line :
       {"", "file ", "draw", "draw aten::add f32 out",
        "draw aten::add f32 out x", "draw aten::add f99 out 1",
        "draw aten::add f32 sideways 1", "draw aten::add f32 out 1 extra",
        "run aten::add f32 out 1"}) {
    EXPECT_FALSE(DecodeTicket(line).ok()) << '"' << line << '"';
  }
}

}  // namespace
}  // namespace dpfuzz
