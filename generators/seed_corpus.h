// SeedCorpus: valid arguments recorded from PyTorch's own samples.
//
// scripts/harvest_seeds.py runs the sample inputs of PyTorch's OpInfo and
// ModuleInfo databases (torch.testing._internal, of the track's torch)
// forward and backward under a dispatch-recording mode and writes every
// aten call as a case: DIR/<op>.<overload>.jsonl ("::" spelled "__"), one
// case file object per line, and DIR/index.json with how many cases each
// overload has and the dtypes of their first tensors. Backward and private
// ops get arguments a real forward produced (pooling indices, saved
// outputs), constrained ops arguments that hold their constraints (class
// indices below C, offsets that start at 0); the values that carry them
// are kept exactly (Distribution::kExplicit).
//
// A seeded draw (DrawSeedArgs) takes one recorded case's logical arguments
// and may move its dtype; the engine then varies every layout, adds out=,
// in-place, aliasing and gradients, as for any drawn arguments
// (oracles/case_builder.h).
//
//   absl::StatusOr<SeedCorpus> seeds = SeedCorpus::Open("build/default/seeds");
//   const std::vector<Case> cases = seeds->CasesFor("aten::nll_loss");
//   std::vector<Argument> args = DrawSeedArgs(cases, DType::kFloat64, rng);

#ifndef DPFUZZ_GENERATORS_SEED_CORPUS_H_
#define DPFUZZ_GENERATORS_SEED_CORPUS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "generators/case.h"
#include "generators/dtype.h"
#include "generators/rng.h"
#include "generators/schema_spec.h"

namespace dpfuzz {

inline constexpr char kSeedIndexFile[] = "index.json";

struct SeedIndexEntry {
  int64_t cases = 0;
  std::vector<DType> dtypes;  // Of the cases' first tensors.
};

class SeedCorpus {
 public:
  // Reads DIR/index.json; NotFound when there is none, InvalidArgument
  // when it is not a seed index.
  static absl::StatusOr<SeedCorpus> Open(const std::string& dir);

  const std::string& dir() const { return dir_; }
  // The torch version the seeds were recorded with.
  const std::string& torch_version() const { return torch_version_; }
  // Every overload with seeds: "aten::add.Tensor", "aten::abs".
  const std::map<std::string, SeedIndexEntry>& index() const { return index_; }
  // nullptr when `overload` has no seeds.
  const SeedIndexEntry* Find(const std::string& overload) const;

  // The overload whose seeds `overload` draws from: itself when it has
  // seeds, else one with seeds that gives every argument `overload` reads
  // (same names and types, or a tensor for an int[]; extra ones are
  // dropped), or, of the same op, every argument it must be given, in at
  // least one of its cases (CasesFor). Ops are the same
  // when their names are without leading "_" and a "_forward" or "_copy"
  // suffix (embedding_bag, embedding_bag.padding_idx, _embedding_bag). Of
  // those, first one of the same op, then one that reads exactly the same
  // arguments (a composite op and the op it forwards to, which a dispatch
  // mode records instead: nll_loss and nll_loss_nd), then the one giving
  // the most optional arguments and the fewest others. "" when none.
  std::string SourceFor(const std::string& overload);

  // The cases `overload` draws: those of SourceFor(overload) that give
  // every argument it must be given, cut to the arguments it reads, a 1-d
  // integer tensor given for an int[] turned into its values
  // (ctc_loss.Tensor's lengths for ctc_loss.IntList). Empty when none.
  std::vector<Case> CasesFor(const std::string& overload);

  // The recorded cases of `overload`, read on first use; nullptr when it
  // has none. A line that does not parse (a seed file of another dpfuzz
  // version) is skipped.
  const std::vector<Case>* CasesOf(const std::string& overload);

 private:
  std::string dir_;
  std::string torch_version_;
  std::map<std::string, SeedIndexEntry> index_;
  std::map<std::string, std::vector<Case>> loaded_;
  // What each overload with seeds reads; made by the first SourceFor.
  std::map<std::string, std::vector<ReadArgument>> seeded_reads_;
  std::map<std::string, std::string> sources_;  // SourceFor's answers.
};

// "aten::add.Tensor" -> "aten__add.Tensor.jsonl".
std::string SeedFileName(absl::string_view overload);

// The logical arguments of one seeded draw: a recorded case chosen by
// `rng`, preferably one whose first tensor is of `dtype`'s kind (floating,
// complex, integral, bool). The tensors that share the first tensor's dtype
// move to `dtype` when it is of the same kind; the others (indices, masks)
// keep theirs. A quarter of the draws give floating tensors fresh exact
// values (the recorded ones are kept otherwise: a saved output or a
// probability is only valid with them). `seeds` must not be empty.
std::vector<Argument> DrawSeedArgs(const std::vector<Case>& seeds, DType dtype,
                                   Rng& rng);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_SEED_CORPUS_H_
