#include "crashes/isolation/ticket.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/status_macros.h"

namespace dpfuzz {

Ticket DrawTicket(std::string op, DType dtype, Variant variant, uint64_t seed) {
  Ticket t;
  t.kind = Ticket::Kind::kDraw;
  t.op = std::move(op);
  t.dtype = dtype;
  t.variant = variant;
  t.seed = seed;
  return t;
}

Ticket SeededTicket(std::string op, DType dtype, Variant variant,
                    uint64_t seed) {
  Ticket t = DrawTicket(std::move(op), dtype, variant, seed);
  t.kind = Ticket::Kind::kSeeded;
  return t;
}

Ticket FileTicket(std::string path) {
  Ticket t;
  t.kind = Ticket::Kind::kFile;
  t.path = std::move(path);
  return t;
}

absl::StatusOr<std::string> EncodeTicket(const Ticket& t) {
  if (t.kind == Ticket::Kind::kFile) {
    if (absl::StrContains(t.path, '\n')) {
      return absl::InvalidArgumentError(
          absl::StrCat("a case file path with a newline: ", t.path));
    }
    return absl::StrCat("file ", t.path);
  }
  if (t.op.empty() || absl::StrContains(t.op, ' ') ||
      absl::StrContains(t.op, '\n')) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad op name \"", t.op, "\" in a ticket"));
  }
  return absl::StrCat(t.kind == Ticket::Kind::kSeeded ? "seeded " : "draw ",
                      t.op, " ", DTypeName(t.dtype), " ",
                      VariantName(t.variant), " ", t.seed);
}

absl::StatusOr<Ticket> DecodeTicket(absl::string_view line) {
  if (absl::ConsumePrefix(&line, "file ")) {
    if (line.empty()) return absl::InvalidArgumentError("ticket: no path");
    return FileTicket(std::string(line));
  }
  const std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
  uint64_t seed = 0;
  if (parts.size() != 5 || (parts[0] != "draw" && parts[0] != "seeded") ||
      !absl::SimpleAtoi(parts[4], &seed)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ticket: expected \"draw|seeded OP DTYPE VARIANT SEED\" or \"file "
        "PATH\", got \"",
        line, "\""));
  }
  DPFUZZ_ASSIGN_OR_RETURN(DType dtype, ParseDType(parts[2]));
  DPFUZZ_ASSIGN_OR_RETURN(Variant variant, ParseVariant(parts[3]));
  return parts[0] == "seeded"
             ? SeededTicket(std::string(parts[1]), dtype, variant, seed)
             : DrawTicket(std::string(parts[1]), dtype, variant, seed);
}

std::string TicketToString(const Ticket& t) {
  if (t.kind == Ticket::Kind::kFile) return t.path;
  return absl::StrCat(
      t.op, " ", DTypeName(t.dtype), " ", VariantName(t.variant), " seed ",
      t.seed, t.kind == Ticket::Kind::kSeeded ? " from recorded seeds" : "");
}

}  // namespace dpfuzz
