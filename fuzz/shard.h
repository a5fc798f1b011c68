// Shard: one runner's part of a campaign split over several (--shard=I/N).
//
// N runners started with the same ops and --seed split the work without
// talking to each other: with at least N ops, runner I fuzzes the ops whose
// index is I modulo N; with fewer, every runner fuzzes every op. Either way
// ticket k of runner I draws its case from the seed of global ticket
// I + N * k, so no two runners ever draw the same case. Their findings
// directories merge with `dpfuzz report DIR...`.
//
//   absl::StatusOr<Shard> s = ParseShard("2/8");  // {2, 8}

#ifndef DPFUZZ_FUZZ_SHARD_H_
#define DPFUZZ_FUZZ_SHARD_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dpfuzz {

struct Shard {
  int index = 0;  // 0 <= index < count.
  int count = 1;

  // The global number of this shard's ticket `k`.
  uint64_t GlobalTicket(int64_t k) const {
    return static_cast<uint64_t>(index) +
           static_cast<uint64_t>(count) * static_cast<uint64_t>(k);
  }
  // Whether op number `i` of `n` is this shard's.
  bool HasOp(size_t i, size_t n) const {
    return n < static_cast<size_t>(count) ||
           i % static_cast<size_t>(count) == static_cast<size_t>(index);
  }
  friend bool operator==(const Shard& a, const Shard& b) {
    return a.index == b.index && a.count == b.count;
  }
};

// "I/N" with 0 <= I < N; the error says what is wrong.
absl::StatusOr<Shard> ParseShard(absl::string_view text);

// "I/N".
std::string ShardToString(const Shard& shard);

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_SHARD_H_
