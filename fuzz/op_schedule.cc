#include "fuzz/op_schedule.h"

#include <algorithm>

namespace dpfuzz {

std::vector<double> TurnShares(const std::vector<double>& costs) {
  std::vector<double> timed;
  for (double c : costs) {
    if (c > 0) timed.push_back(c);
  }
  std::vector<double> shares(costs.size(), 1.0);
  if (timed.empty()) return shares;
  // The lower median: of two ops, the cheaper is the typical one.
  const size_t middle = (timed.size() - 1) / 2;
  std::nth_element(timed.begin(), timed.begin() + middle, timed.end());
  const double typical = timed[middle];
  for (size_t i = 0; i < costs.size(); ++i) {
    if (costs[i] > kSlack * typical) {
      shares[i] = std::max(kMinShare, kSlack * typical / costs[i]);
    }
  }
  return shares;
}

void OpSchedule::Update(const std::vector<std::string>& ops,
                        const OpKnowledge& knowledge) {
  std::vector<double> costs;
  costs.reserve(ops.size());
  for (const std::string& op : ops) {
    const OpStats* s = knowledge.Find(op);
    costs.push_back(s != nullptr && s->timed >= kMinDrawsToTime ? s->cost()
                                                                : -1);
  }
  shares_ = TurnShares(costs);
}

size_t OpSchedule::Next(size_t n_ops) {
  // Every op takes at least kMinShare of its turns, so this ends within a
  // few rounds.
  for (;;) {
    const size_t i = static_cast<size_t>(cursor_++) % n_ops;
    if (shares_.size() != n_ops || shares_[i] >= 1 ||
        rng_.UniformDouble() < shares_[i]) {
      return i;
    }
  }
}

}  // namespace dpfuzz
