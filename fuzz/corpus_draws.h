// CorpusDraws: the coverage-guided draws of a campaign with --corpus.
//
// The layout corpus (crashes/findings/layout_corpus.h) holds the cases that
// reached new layout coverage, this campaign's and earlier ones'. A corpus draw
// picks one of them that belongs to one of the campaign's ops, mutates it
// structurally (generators/case_mutator.h: one tensor relayouted, made
// plain or given new values) and hands it to a worker as a case file
// written under DIR/.queue/ (removed once its result is in). The list of
// corpus cases is read again every few seconds, so that what the workers
// keep is mutated in turn.
//
//   CorpusDraws draws(dir, ops);
//   if (std::optional<Ticket> t = draws.Draw(rng, ticket_number)) ...
//   draws.Done(result.ticket);

#ifndef DPFUZZ_FUZZ_CORPUS_DRAWS_H_
#define DPFUZZ_FUZZ_CORPUS_DRAWS_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "crashes/isolation/ticket.h"
#include "generators/case.h"
#include "generators/op_spec.h"
#include "generators/rng.h"

namespace dpfuzz {

class CorpusDraws {
 public:
  CorpusDraws(std::string dir, std::set<const OpSpec*> ops);

  // A file ticket for a mutated corpus case; nullopt when the corpus has
  // none of the campaign's ops (or the draw fell on another op's case).
  std::optional<Ticket> Draw(Rng& rng, uint64_t ticket_number);

  // Forgets the queue file of `ticket`, once its result is in.
  void Done(const Ticket& ticket);

 private:
  std::string dir_;
  std::string queue_;
  std::set<const OpSpec*> ops_;
  std::vector<std::string> files_;
  std::chrono::steady_clock::time_point listed_;
  // Cases read so far: nullopt for files of other ops or unreadable ones.
  std::map<std::string, std::optional<Case>> cases_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_FUZZ_CORPUS_DRAWS_H_
