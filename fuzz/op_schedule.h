// OpSchedule: which op a whole-library campaign draws next.
//
// Note [Speed-weighted turns]
// Ops take turns, but they do not cost alike: an SVD-based op (pinv,
// matrix_rank, lstsq) spends milliseconds in LAPACK where a pointwise op
// spends microseconds, and with equal turns a few dozen slow ops took
// about a third of a whole-library campaign's time. As AFL gives a slow
// input less energy (its speed factor), an op whose draws cost more than
// kSlack times the typical op's (the lower median, over the ops timed at
// least kMinDrawsToTime times) takes its turn only at the share
// kSlack * typical / cost, and never less than kMinShare of its turns, so
// that every op keeps being fuzzed and its time stays within a small
// multiple of a typical op's. Ops within kSlack of the typical one take
// every turn: their timings' noise decides nothing, and a campaign of ops
// that cost alike draws as plain turns do, the same from run to run (a
// resumed campaign ends as the unbroken one, tests/fuzz/resume_test.sh).
// A cost is the worker's wall time per draw, valid or not, as
// OpKnowledge counts it (kept from one campaign to the next in the
// findings directory); an op not timed yet takes every turn.
//
//   OpSchedule schedule(seed);
//   schedule.Update(names, knowledge);      // now and then
//   size_t i = schedule.Next(names.size()); // the op of the next draw

#ifndef DPFUZZ_FUZZ_OP_SCHEDULE_H_
#define DPFUZZ_FUZZ_OP_SCHEDULE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/op_knowledge.h"
#include "generators/rng.h"

namespace dpfuzz {

inline constexpr int64_t kMinDrawsToTime = 5;
inline constexpr double kMinShare = 0.1;
inline constexpr double kSlack = 2;

// The share of its turns each op takes, from its cost per draw (seconds;
// negative: not timed yet, a share of 1).
std::vector<double> TurnShares(const std::vector<double>& costs);

class OpSchedule {
 public:
  explicit OpSchedule(uint64_t seed) : rng_(seed ^ 0x5CED01E5ull) {}

  // Shares from the costs `knowledge` has for the ops named, in order.
  void Update(const std::vector<std::string>& ops,
              const OpKnowledge& knowledge);

  // The index, below `n_ops`, of the op whose turn it is and which takes
  // it; the ops are the ones of the last Update while their count is the
  // same (after an op leaves the campaign, plain turns until the next).
  size_t Next(size_t n_ops);

  // Starts the turns at `position` (a resumed campaign's next ticket).
  void SeekTo(int64_t position) { cursor_ = position; }

 private:
  Rng rng_;
  int64_t cursor_ = 0;
  std::vector<double> shares_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_OP_SCHEDULE_H_
