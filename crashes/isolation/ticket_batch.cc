#include "crashes/isolation/ticket_batch.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"

namespace dpfuzz {

absl::StatusOr<std::string> EncodeBatch(const std::vector<SeqTicket>& batch) {
  if (batch.empty()) return absl::InvalidArgumentError("an empty batch");
  std::string text = absl::StrCat("batch ", batch.size(), "\n");
  for (const auto& [seq, ticket] : batch) {
    DPFUZZ_ASSIGN_OR_RETURN(std::string line, EncodeTicket(ticket));
    absl::StrAppend(&text, seq, " ", line, "\n");
  }
  return text;
}

absl::StatusOr<size_t> DecodeBatchHeader(absl::string_view line) {
  absl::string_view count = line;
  size_t n = 0;
  if (!absl::ConsumePrefix(&count, "batch ") || !absl::SimpleAtoi(count, &n) ||
      n == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "batch: expected \"batch N\" (N > 0), got \"", line, "\""));
  }
  return n;
}

absl::StatusOr<BatchLine> DecodeBatchLine(absl::string_view line) {
  const size_t space = line.find(' ');
  BatchLine b;
  if (space == absl::string_view::npos ||
      !absl::SimpleAtoi(line.substr(0, space), &b.seq)) {
    return absl::InvalidArgumentError(
        absl::StrCat("batch: expected \"SEQ TICKET\", got \"", line, "\""));
  }
  b.ticket = std::string(line.substr(space + 1));
  return b;
}

}  // namespace dpfuzz
