#include "fuzz/shard.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace dpfuzz {

absl::StatusOr<Shard> ParseShard(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, '/');
  Shard shard;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &shard.index) ||
      !absl::SimpleAtoi(parts[1], &shard.count) || shard.count < 1 ||
      shard.index < 0 || shard.index >= shard.count) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", text, "\" is not a shard I/N with 0 <= I < N ",
                     "(--shard=0/4 ... --shard=3/4 split a campaign in 4)"));
  }
  return shard;
}

std::string ShardToString(const Shard& shard) {
  return absl::StrCat(shard.index, "/", shard.count);
}

}  // namespace dpfuzz
