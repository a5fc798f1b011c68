// What campaigns have learned about each op's valid arguments, kept in the
// findings directory (op_stats.json) from one campaign to the next.
//
// For every op: the cases drawn and the valid ones (the op accepted the
// contiguous baseline's arguments), and the worker seconds they took, in all,
// those drawn from recorded seeds (generators/seed_corpus.h), and the others
// per dtype and schema plan (generators/schema_args.h: rank and shape
// relation). A campaign prefers, for a generic op, the draws whose dtype and
// plan have worked before (Estimate), and draws slow ops less often
// (fuzz/op_schedule.h); `dpfuzz list-ops` shows the counts.
//
//   OpKnowledge k = *OpKnowledge::Load(dir + "/op_stats.json");
//   k.Record("aten::add.Tensor", DType::kFloat32, seed, /*valid=*/true,
//            /*seeded=*/false, /*seconds=*/2e-5);
//   k.Save(path);

#ifndef DPFUZZ_FUZZ_OP_KNOWLEDGE_H_
#define DPFUZZ_FUZZ_OP_KNOWLEDGE_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "generators/dtype.h"

namespace dpfuzz {

inline constexpr char kOpStatsFile[] = "op_stats.json";

struct Tally {
  int64_t tried = 0;
  int64_t valid = 0;
};

// valid / tried; 0 when nothing was tried.
double ValidRate(const Tally& t);

struct OpStats {
  Tally all;     // Every draw, seeded ones included.
  Tally seeded;  // The draws from recorded seeds.
  // The draws from the op spec (curated or schema): all - seeded.
  Tally drawn() const {
    return Tally{all.tried - seeded.tried, all.valid - seeded.valid};
  }
  std::map<std::string, Tally> by_draw;  // "f32 r2/same" -> tally.
  // Worker seconds of the draws `all` counts; the timed ones of them (the
  // counts of op stats files written before draws were timed have none).
  double seconds = 0;
  int64_t timed = 0;
  // Seconds per timed draw; negative when none was timed.
  double cost() const { return timed > 0 ? seconds / timed : -1; }
};

class OpKnowledge {
 public:
  // An empty store when `path` does not exist; an error when it is not a
  // stats file.
  static absl::StatusOr<OpKnowledge> Load(const std::string& path);
  absl::Status Save(const std::string& path) const;

  // `seconds`: the worker's time on the draw; 0 when none was measured (a
  // case that killed its worker).
  void Record(const std::string& op, DType dtype, uint64_t seed, bool valid,
              bool seeded, double seconds);

  // The chance that this draw is valid: (valid + 1) / (tried + 2) of its
  // dtype and plan, so untried draws count as even odds.
  double Estimate(const std::string& op, DType dtype, uint64_t seed) const;

  // nullptr when the op has no cases yet.
  const OpStats* Find(const std::string& op) const;
  const std::map<std::string, OpStats>& ops() const { return ops_; }

 private:
  std::map<std::string, OpStats> ops_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_OP_KNOWLEDGE_H_
