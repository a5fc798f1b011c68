// Ticket: what a supervisor asks a worker to run, as one line of text.
//
// A ticket names a case without holding it: either a draw (op, dtype,
// variant, seed; BuildCase makes the same case from it in any process of
// the same build), a seeded draw (the same, its arguments drawn from the
// op's recorded seeds, generators/seed_corpus.h, rather than its schema)
// or a case file. Tickets are small enough to record before
// every case runs (crashes/isolation/worker_slot.h), which is what lets a
// supervisor name the case a dead worker was running.
//
//   "draw aten::masked_select f32 out 1234"
//   "seeded aten::nll_loss_forward f64 out 1234"
//   "file findings/mismatch-cat-0123456789abcdef/case.json"

#ifndef DPFUZZ_CRASHES_ISOLATION_TICKET_H_
#define DPFUZZ_CRASHES_ISOLATION_TICKET_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "generators/case.h"
#include "generators/dtype.h"

namespace dpfuzz {

struct Ticket {
  enum class Kind : uint8_t {
    kDraw,    // Arguments drawn by the op spec (curated or from its schema).
    kSeeded,  // Arguments drawn from the op's recorded seeds.
    kFile,    // A case file.
  };
  Kind kind = Kind::kDraw;
  std::string op;  // kDraw, kSeeded: a name FindOp knows ("aten::add.Tensor").
  DType dtype = DType::kFloat32;
  Variant variant = Variant::kFunctional;
  uint64_t seed = 0;
  std::string path;  // kFile: a case file.

  friend bool operator==(const Ticket& a, const Ticket& b) {
    return a.kind == b.kind && a.op == b.op && a.dtype == b.dtype &&
           a.variant == b.variant && a.seed == b.seed && a.path == b.path;
  }
};

Ticket DrawTicket(std::string op, DType dtype, Variant variant, uint64_t seed);
Ticket SeededTicket(std::string op, DType dtype, Variant variant,
                    uint64_t seed);
Ticket FileTicket(std::string path);

// One line, no newline. Paths with a newline cannot be encoded: an error.
absl::StatusOr<std::string> EncodeTicket(const Ticket& ticket);
absl::StatusOr<Ticket> DecodeTicket(absl::string_view line);

// For people: "aten::add.Tensor f32 out seed 12" ("... seed 12 from
// recorded seeds" for a seeded draw) or the path.
std::string TicketToString(const Ticket& ticket);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_TICKET_H_
