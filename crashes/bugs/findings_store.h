// FindingsStore: one directory per unique finding.
//
// A finding lives in <dir>/<verdict>-<op>-<hash>/ (hash: SignatureHash of
// its signature) as case.json (the replayable case), finding.json (op,
// variant, verdict, signature, evidence, hits, versions) and its repros
// (crashes/repro/repro_files.h: repro.py, repro.cc, CMakeLists.txt; when they
// cannot be made, finding.json says why under "repro_error"). A finding whose
// signature is already stored increments its hit count and replaces the
// stored case when the new one is better evidence (EvidenceRank in
// crashes/bugs/evidence_order.h: no shared memory, no NaN or infinities,
// then fewer elements in all; a case as found never replaces a reduced
// one), so the store keeps one ordinary, small case per bug, with the time its
// signature was first seen. Every file is written atomically (common/files.h):
// an interrupted run leaves each finding whole. Each Record holds an flock on
// <dir>/.lock, so several dpfuzz processes (and runs after runs) can share one
// directory without losing hits.
//
//   absl::StatusOr<FindingsStore> store = FindingsStore::Open("findings");
//   absl::StatusOr<Recorded> r = store->Record(MakeFinding(c, outcome));
//   r->is_new, r->path, r->hits

#ifndef DPFUZZ_CRASHES_BUGS_FINDINGS_STORE_H_
#define DPFUZZ_CRASHES_BUGS_FINDINGS_STORE_H_

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "crashes/bugs/evidence_order.h"
#include "crashes/findings/finding.h"

namespace dpfuzz {

// finding.json's key for when a campaign first saw the finding: its seconds,
// resumed runs included (time to bug).
inline constexpr char kFirstSeenKey[] = "first_seen_seconds";
// finding.json's key for a finding stored before triage (reduction and
// blame, fuzz/triage.h) reached it: true until a campaign's later triage
// or `dpfuzz triage` handles it, false after. A smaller case recorded over
// it keeps the mark.
inline constexpr char kUntriagedKey[] = "untriaged";
// finding.json's key for where a reduced finding generalizes
// (reducers/generalize.h): {"shown": ["f32", ...], "quiet": [...],
// "summary": "all 9 dtypes tried but f16"}.
inline constexpr char kGeneralityKey[] = "generality";

struct Recorded {
  bool is_new = false;        // First hit of this signature in this directory.
  bool case_written = false;  // New, or a smaller case replaced the old.
  std::string path;           // The finding's directory.
  int64_t hits = 0;           // Hits so far, across runs over this directory.
};

// Whether the finding stored in `path` holds a reduction's case: Record
// kept the case it was reduced from beside it (original.json).
bool HoldsReducedCase(const std::string& path);

class FindingsStore {
 public:
  // Creates `dir` if needed; an error if it exists and is not a directory.
  static absl::StatusOr<FindingsStore> Open(const std::string& dir);

  // `original`: the case the finding was reduced from, kept beside it as
  // original.json when the finding's case is written. `seen_at`: the
  // campaign's seconds now, the finding's first_seen_seconds when it is
  // new; a better case that replaces the stored one keeps the stored time.
  absl::StatusOr<Recorded> Record(const Finding& finding,
                                  const Case* original = nullptr,
                                  std::optional<double> seen_at = std::nullopt);

  // Adds `hits` to the hit count of the finding stored in `path`: hits
  // that a caller counted instead of recording each.
  absl::Status AddHits(const std::string& path, int64_t hits);

  // Sets `key` in the finding.json of the finding stored in `path`.
  absl::Status Annotate(const std::string& path, const std::string& key,
                        const nlohmann::json& value);

  // The directory a finding with this signature is stored in.
  std::string PathFor(const Finding& finding) const;

  const std::string& dir() const { return dir_; }

 private:
  explicit FindingsStore(std::string dir) : dir_(std::move(dir)) {}

  // Applies `change` to the finding.json in `path`, under the lock.
  absl::Status Update(const std::string& path,
                      const std::function<void(nlohmann::json&)>& change);

  std::string dir_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_BUGS_FINDINGS_STORE_H_
