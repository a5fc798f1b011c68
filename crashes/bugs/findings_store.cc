#include "crashes/bugs/findings_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/findings/finding_json.h"
#include "crashes/repro/repro_files.h"
#include "generators/case_json.h"

namespace dpfuzz {
namespace {

using Json = nlohmann::json;

Json FindingJson(const Finding& f, int64_t hits) {
  Json j = FindingToJson(f, /*with_case=*/false);
  j["hits"] = hits;
  return j;
}

// finding.json in `path` as an object; `fallback` when it is missing or
// unreadable.
Json ReadFindingJson(const std::string& path, const Json& fallback) {
  absl::StatusOr<std::string> text =
      ReadFile(path + "/finding.json", "finding");
  Json j = text.ok() ? Json::parse(*text, nullptr, false) : Json();
  return j.is_object() ? j : fallback;
}

// Holds an exclusive flock on <dir>/.lock: one writer at a time, across
// workers' supervisors and dpfuzz processes sharing the directory.
class DirLock {
 public:
  explicit DirLock(const std::string& dir)
      : fd_(::open((dir + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC,
                   0644)) {
    if (fd_ >= 0) {
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
    }
  }
  ~DirLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }

 private:
  int fd_;
};

absl::Status LockError(const std::string& dir) {
  return absl::InternalError(absl::StrCat(
      "findings directory ", dir, ": cannot lock: ", std::strerror(errno)));
}

// The hits, first time seen and case recorded so far in `path`, if any.
struct Stored {
  int64_t hits = 0;
  std::optional<double> first_seen;
  bool untriaged = false;
  bool reduced = false;  // Its case is a reduction's (original.json).
  std::optional<Case> c;
};

Stored ReadStored(const std::string& path) {
  Stored stored;
  absl::StatusOr<std::string> text =
      ReadFile(path + "/finding.json", "finding");
  if (text.ok()) {
    const Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.contains("hits") && j["hits"].is_number_integer()) {
      stored.hits = j["hits"].get<int64_t>();
    }
    if (j.is_object() && j.contains(kFirstSeenKey) &&
        j[kFirstSeenKey].is_number()) {
      stored.first_seen = j[kFirstSeenKey].get<double>();
    }
    stored.untriaged = j.is_object() && j.value(kUntriagedKey, false);
  }
  absl::StatusOr<Case> c = LoadCaseFile(path + "/case.json");
  if (c.ok()) stored.c = *c;
  stored.reduced = HoldsReducedCase(path);
  return stored;
}

}  // namespace

bool HoldsReducedCase(const std::string& path) {
  return std::filesystem::exists(path + "/original.json");
}

absl::StatusOr<FindingsStore> FindingsStore::Open(const std::string& dir) {
  DPFUZZ_RETURN_IF_ERROR(MakeDirectories(dir, "findings directory"));
  return FindingsStore(dir);
}

std::string FindingsStore::PathFor(const Finding& finding) const {
  std::string op = finding.c.op.substr(finding.c.op.rfind(':') + 1);
  return absl::StrFormat("%s/%s-%s-%016x", dir_,
                         VerdictName(finding.outcome.verdict), op,
                         SignatureHash(finding.signature));
}

absl::StatusOr<Recorded> FindingsStore::Record(const Finding& finding,
                                               const Case* original,
                                               std::optional<double> seen_at) {
  const DirLock lock(dir_);
  if (!lock.ok()) return LockError(dir_);
  Recorded r;
  r.path = PathFor(finding);
  const Stored stored = ReadStored(r.path);
  r.is_new = !stored.c.has_value();
  r.hits = stored.hits + 1;
  DPFUZZ_RETURN_IF_ERROR(MakeDirectories(r.path, "finding directory"));
  // A case as found never replaces a reduced one, however small: the
  // reducer's fixed point is simpler by its whole order (natural strides,
  // no offsets, plain values), of which EvidenceRank sees two keys.
  if (r.is_new || ((original != nullptr || !stored.reduced) &&
                   EvidenceRank(finding.c) < EvidenceRank(*stored.c))) {
    r.case_written = true;
    DPFUZZ_RETURN_IF_ERROR(SaveCaseFile(finding.c, r.path + "/case.json"));
    if (original != nullptr) {
      DPFUZZ_RETURN_IF_ERROR(
          SaveCaseFile(*original, r.path + "/original.json"));
    }
    Json j = FindingJson(finding, r.hits);
    if (const std::optional<double> first =
            r.is_new ? seen_at : stored.first_seen;
        first.has_value()) {
      j[kFirstSeenKey] = *first;
    }
    if (stored.untriaged) j[kUntriagedKey] = true;
    if (absl::Status s =
            WriteReproFiles(finding.c, finding.outcome.verdict, r.path);
        !s.ok()) {
      j["repro_error"] = std::string(s.message());
    }
    DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(r.path + "/finding.json",
                                               j.dump(2) + "\n", "finding"));
    return r;
  }
  // Keep the stored (better) case and its evidence; count the hit.
  Json j = ReadFindingJson(r.path, FindingJson(finding, r.hits));
  j["hits"] = r.hits;
  DPFUZZ_RETURN_IF_ERROR(WriteFileAtomically(r.path + "/finding.json",
                                             j.dump(2) + "\n", "finding"));
  return r;
}

absl::Status FindingsStore::Update(const std::string& path,
                                   const std::function<void(Json&)>& change) {
  const DirLock lock(dir_);
  if (!lock.ok()) return LockError(dir_);
  Json j = ReadFindingJson(path, Json());
  if (j.is_null()) {
    return absl::NotFoundError(
        absl::StrCat(path, "/finding.json: missing or not a JSON object"));
  }
  change(j);
  return WriteFileAtomically(path + "/finding.json", j.dump(2) + "\n",
                             "finding");
}

absl::Status FindingsStore::AddHits(const std::string& path, int64_t hits) {
  return Update(path, [hits](Json& j) {
    const int64_t before = j.contains("hits") && j["hits"].is_number_integer()
                               ? j["hits"].get<int64_t>()
                               : 0;
    j["hits"] = before + hits;
  });
}

absl::Status FindingsStore::Annotate(const std::string& path,
                                     const std::string& key,
                                     const nlohmann::json& value) {
  return Update(path, [&](Json& j) { j[key] = value; });
}

}  // namespace dpfuzz
