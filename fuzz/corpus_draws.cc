#include "fuzz/corpus_draws.h"

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "crashes/findings/layout_corpus.h"
#include "generators/case_json.h"
#include "generators/case_mutator.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

constexpr double kRelistSeconds = 2;

}  // namespace

CorpusDraws::CorpusDraws(std::string dir, std::set<const OpSpec*> ops)
    : dir_(std::move(dir)),
      queue_(absl::StrCat(dir_, "/.queue")),
      ops_(std::move(ops)) {}

std::optional<Ticket> CorpusDraws::Draw(Rng& rng, uint64_t ticket_number) {
  const auto now = std::chrono::steady_clock::now();
  if (files_.empty() ||
      std::chrono::duration<double>(now - listed_).count() > kRelistSeconds) {
    files_ = CorpusCaseFiles(dir_);
    listed_ = now;
  }
  if (files_.empty()) return std::nullopt;
  const std::string& file = rng.Pick(files_);
  auto [it, is_new] = cases_.try_emplace(file);
  if (is_new) {
    absl::StatusOr<Case> c = LoadCaseFile(file);
    if (c.ok() && ops_.count(FindOpFor(*c)) > 0) it->second = std::move(*c);
  }
  if (!it->second.has_value()) return std::nullopt;
  const Case mutated = MutateCase(*it->second, rng);
  if (!MakeDirectories(queue_, "corpus queue").ok()) return std::nullopt;
  const std::string path = absl::StrCat(queue_, "/", ticket_number, ".json");
  if (!SaveCaseFile(mutated, path).ok()) return std::nullopt;
  return FileTicket(path);
}

void CorpusDraws::Done(const Ticket& ticket) {
  if (ticket.kind != Ticket::Kind::kFile ||
      !absl::StartsWith(ticket.path, queue_ + "/")) {
    return;
  }
  std::error_code ec;
  std::filesystem::remove(ticket.path, ec);
}

}  // namespace dpfuzz
