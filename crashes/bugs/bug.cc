#include "crashes/bugs/bug.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>
#include <tuple>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/files.h"
#include "common/status_macros.h"
#include "crashes/bugs/bug_mechanism.h"
#include "crashes/bugs/evidence_order.h"
#include "crashes/bugs/findings_store.h"
#include "crashes/findings/finding_json.h"
#include "generators/case_json.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;

std::set<std::string> DTypesOf(const Case& c) {
  std::set<std::string> dtypes;
  for (const TensorSpec* spec : TensorSpecsOf(c)) {
    dtypes.emplace(DTypeName(spec->dtype));
  }
  return dtypes;
}

// How plain a dtype is to a reader of a bug report, plainest first:
// float32, what most code uses, then float64, the integers, bool, the
// reduced floats and complex.
int DTypePlainness(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
      return 0;
    case DType::kFloat64:
      return 1;
    case DType::kInt64:
      return 2;
    case DType::kInt32:
    case DType::kInt16:
    case DType::kInt8:
    case DType::kUInt8:
      return 3;
    case DType::kBool:
      return 4;
    case DType::kFloat16:
    case DType::kBFloat16:
      return 5;
    case DType::kComplex64:
    case DType::kComplex128:
      return 6;
  }
  return 7;
}

// The least plain dtype among a case's tensors.
int CasePlainness(const Case& c) {
  int plainness = 0;
  for (const TensorSpec* spec : TensorSpecsOf(c)) {
    plainness = std::max(plainness, DTypePlainness(spec->dtype));
  }
  return plainness;
}

// A finding with what ranks it within its bug: the most ordinary first
// (Note [The most ordinary lead] in fuzz/triage.cc): the least odd
// (Oddity), then a reduced one, then the most severe, the plainest dtypes,
// the smallest case.
struct Member {
  const StoredFinding* stored;
  Severity severity;
  ConfidenceJudgement confidence;
  int64_t size;
  int oddity;
  int plainness;  // CasePlainness.
  // An unexplained sibling that joined an explained bug (Note [Explained
  // siblings]): ranked after the bug's own findings, so it never leads.
  bool joined = false;

  // A high-confidence bug is led by a finding that makes it one (a stated
  // precondition beside a rejection no rule explains is led by the
  // latter); a case as found after a reduced one: a smaller one is still no
  // simpler by the reducer's whole order (natural strides, plain values).
  auto Rank() const {
    return std::make_tuple(joined, confidence.confidence, oddity,
                           !stored->reduced, stored->untriaged, severity,
                           plainness, size, std::cref(stored->dir));
  }
};

Bug BugOf(std::vector<Member>& members) {
  std::sort(
      members.begin(), members.end(),
      [](const Member& a, const Member& b) { return a.Rank() < b.Rank(); });
  const Member& first = members.front();
  const Finding& f = first.stored->finding;
  Bug bug;
  bug.id = BugId(f);
  bug.key = BugKey(f);
  bug.op = QualifiedOpName(f.c);
  bug.variant = std::string(VariantName(f.c.variant));
  bug.family = VerdictFamily(f.outcome.verdict);
  bug.culprit = f.blame.culprit;
  bug.feature = f.blame.feature;
  bug.mechanism = MechanismOf(f);
  bug.picture = PictureOf(f, bug.mechanism);
  bug.severity = first.severity;
  bug.verdict = f.outcome.verdict;
  bug.detail = EvidenceLine(f.outcome.evidence);
  bug.confidence = Confidence::kLow;
  bug.untriaged = true;
  for (const Member& m : members) {
    bug.untriaged = bug.untriaged && m.stored->untriaged;
    if (bug.generality.empty()) bug.generality = m.stored->generality;
    if (m.confidence.confidence == Confidence::kHigh) {
      bug.confidence = Confidence::kHigh;
    } else if (bug.confidence_reason.empty()) {
      bug.confidence_reason = m.confidence.reason;
    }
    const std::set<std::string> dtypes = DTypesOf(m.stored->finding.c);
    bug.dtypes.insert(dtypes.begin(), dtypes.end());
    bug.hits += m.stored->hits;
    bug.findings.push_back(m.stored->dir);
    if (const std::optional<double>& seen = m.stored->first_seen_seconds;
        seen.has_value() && (!bug.first_seen_seconds.has_value() ||
                             *seen < *bug.first_seen_seconds)) {
      bug.first_seen_seconds = seen;
    }
  }
  if (bug.confidence == Confidence::kHigh) bug.confidence_reason.clear();
  // The campaign writes issue.md for the finding it checked first, which
  // need not rank first here.
  for (const Member& m : members) {
    std::error_code ec;
    const fs::path issue = fs::path(m.stored->dir) / "issue.md";
    if (fs::is_regular_file(issue, ec)) {
      bug.issue = issue.string();
      break;
    }
  }
  return bug;
}

}  // namespace

absl::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kMemory:
      return "memory";
    case Severity::kWrongValues:
      return "wrong_values";
    case Severity::kAssertOrHang:
      return "assert_or_hang";
    case Severity::kRejection:
      return "rejection";
    case Severity::kCost:
      return "cost";
    case Severity::kContract:
      return "layout_contract";
  }
  return "unknown";
}

std::string VerdictFamily(Verdict v) {
  switch (v) {
    case Verdict::kMismatch:
    case Verdict::kNanIntroduced:
    case Verdict::kOutsideWrite:
    case Verdict::kInputModified:
    case Verdict::kDeviceMismatch:
      return "wrong_values";
    case Verdict::kGradMismatch:
      return "gradient";
    case Verdict::kRejectionMismatch:
      return "rejection";
    case Verdict::kInternalAssert:
      return "internal_assert";
    case Verdict::kCrash:
    case Verdict::kOom:
      return "crash";
    case Verdict::kTimeout:
      return "hang";
    case Verdict::kLayoutContract:
      return "layout_contract";
    case Verdict::kLeak:
      return "leak";
    case Verdict::kMemoryAmplification:
      return "memory";
    case Verdict::kPerfCliff:
      return "perf";
    case Verdict::kAgree:
    case Verdict::kBothRejected:
      break;
  }
  return std::string(VerdictName(v));
}

Severity SeverityOf(Verdict v) {
  switch (v) {
    case Verdict::kCrash:
    case Verdict::kOom:
    case Verdict::kOutsideWrite:
    case Verdict::kInputModified:
      return Severity::kMemory;
    case Verdict::kMismatch:
    case Verdict::kNanIntroduced:
    case Verdict::kGradMismatch:
    case Verdict::kDeviceMismatch:
      return Severity::kWrongValues;
    case Verdict::kInternalAssert:
    case Verdict::kTimeout:
      return Severity::kAssertOrHang;
    case Verdict::kRejectionMismatch:
      return Severity::kRejection;
    case Verdict::kLeak:
    case Verdict::kMemoryAmplification:
    case Verdict::kPerfCliff:
      return Severity::kCost;
    case Verdict::kLayoutContract:
    case Verdict::kAgree:
    case Verdict::kBothRejected:
      break;
  }
  return Severity::kContract;
}

std::string EvidenceLine(const Evidence& e) {
  const std::string& text = e.detail.empty() ? e.error : e.detail;
  return text.substr(0, text.find('\n'));
}

// The argument a bug is keyed by: the blamed one, else the one an
// unblamed finding's simulated mechanism names (a result names none).
std::string BugCulprit(const Finding& f) {
  const Evidence& e = f.outcome.evidence;
  if (!f.blame.culprit.empty() || e.mechanism.empty() ||
      NamesAResult(e.mechanism_argument)) {
    return f.blame.culprit;
  }
  return e.mechanism_argument;
}

std::string BugKey(const Finding& f) {
  // A nested kernel that ignores where its components lie shows with any of
  // their features (order, gaps, permuted dims): one bug, not one per
  // feature (Note [Nested features] in reducers/blame.cc).
  std::string feature = absl::StartsWith(f.blame.feature, "nested_")
                            ? std::string("nested")
                            : f.blame.feature;
  // A simulated mechanism (oracles/mechanism.h) is what the kernel does
  // wrong, of which the blamed feature is one sample: a kernel writing out
  // as if it were contiguous shows with a transposed out and with one
  // sliced with steps, one bug. It names the argument of an unblamed
  // finding too (BugCulprit).
  if (!f.outcome.evidence.mechanism.empty()) {
    feature = f.outcome.evidence.mechanism;
  }
  std::string key = absl::StrJoin(
      {QualifiedOpName(f.c), std::string(VariantName(f.c.variant)),
       BugCulprit(f), feature, VerdictFamily(f.outcome.verdict)},
      "|");
  if (f.blame.feature == "dtype") {
    absl::StrAppend(&key, "|", absl::StrJoin(DTypesOf(f.c), ","));
  }
  return key;
}

std::string BugId(const Finding& f) {
  std::string op = f.c.op.substr(f.c.op.rfind(':') + 1);
  for (char& ch : op) {
    if (!absl::ascii_isalnum(ch) && ch != '_' && ch != '.') ch = '_';
  }
  return absl::StrFormat("%s-%s-%s-%08x", op, VariantName(f.c.variant),
                         VerdictFamily(f.outcome.verdict),
                         SignatureHash(BugKey(f)) & 0xffffffffu);
}

absl::StatusOr<std::vector<StoredFinding>> ReadFindingsDir(
    const std::string& dir) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    std::error_code file_ec;
    if (fs::is_regular_file(it->path() / "finding.json", file_ec)) {
      dirs.push_back(it->path().string());
    }
  }
  if (ec) {
    return absl::NotFoundError(
        absl::StrCat("findings directory ", dir, ": ", ec.message()));
  }
  std::sort(dirs.begin(), dirs.end());
  std::vector<StoredFinding> findings;
  for (const std::string& d : dirs) {
    DPFUZZ_ASSIGN_OR_RETURN(StoredFinding stored, ReadStoredFinding(d));
    findings.push_back(std::move(stored));
  }
  return findings;
}

absl::StatusOr<StoredFinding> ReadStoredFinding(const std::string& dir) {
  const std::string path = dir + "/finding.json";
  DPFUZZ_ASSIGN_OR_RETURN(const std::string text, ReadFile(path, "finding"));
  StoredFinding stored;
  stored.dir = dir;
  DPFUZZ_ASSIGN_OR_RETURN(stored.finding, FindingFromJson(text, path));
  DPFUZZ_ASSIGN_OR_RETURN(stored.finding.c, LoadCaseFile(dir + "/case.json"));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.contains("hits") && j["hits"].is_number_integer()) {
    stored.hits = j["hits"].get<int64_t>();
  }
  if (j.contains(kFirstSeenKey) && j[kFirstSeenKey].is_number()) {
    stored.first_seen_seconds = j[kFirstSeenKey].get<double>();
  }
  stored.untriaged = j.is_object() && j.value(kUntriagedKey, false);
  stored.reduced = HoldsReducedCase(dir);
  if (j.is_object() && j.contains(kGeneralityKey) &&
      j[kGeneralityKey].is_object()) {
    stored.generality = j[kGeneralityKey].value("summary", "");
  }
  return stored;
}

namespace {

// Note [Explained siblings]
// ~~~~~~~~~~~~~~~~~~~~~~~~~
// A bug's key takes a simulated mechanism in the blamed feature's place
// (BugKey), so that a kernel writing out as if contiguous is one bug with
// a transposed out and a sliced one. A finding of the same kernel mistake
// that the simulation does not reach (an aliased out, whose values the
// simulation does not model; a dtype or a layout where the simulated
// values happen to differ in a rounding) keeps its blamed feature and
// would be a bug of its own: one root cause reported twice, the second
// "unexplained". So a bug no mechanism explains joins the one explained
// bug of the same op overload, variant, blamed culprit and verdict family,
// when there is exactly one; its findings rank after the explained bug's
// own, which keeps the lead, id and mechanism. Where two explained bugs
// match (two mechanisms of one argument), or the finding is not blamed,
// nothing is guessed and it stays a bug of its own.

// "op|variant|culprit|family" as BugKey names them.
std::string SiblingKey(const Finding& f, const std::string& culprit) {
  return absl::StrJoin(
      {QualifiedOpName(f.c), std::string(VariantName(f.c.variant)), culprit,
       VerdictFamily(f.outcome.verdict)},
      "|");
}

void JoinExplainedSiblings(std::map<std::string, std::vector<Member>>& groups) {
  std::map<std::string, std::vector<std::string>> explained;
  for (const auto& [key, members] : groups) {
    const Finding& f = members.front().stored->finding;
    if (f.outcome.evidence.mechanism.empty()) continue;
    explained[SiblingKey(f, BugCulprit(f))].push_back(key);
  }
  for (auto it = groups.begin(); it != groups.end();) {
    const Finding& f = it->second.front().stored->finding;
    const auto match = explained.find(SiblingKey(f, f.blame.culprit));
    if (!f.outcome.evidence.mechanism.empty() || f.blame.culprit.empty() ||
        f.blame.feature == "dtype" || match == explained.end() ||
        match->second.size() != 1) {
      ++it;
      continue;
    }
    std::vector<Member>& into = groups[match->second.front()];
    for (Member& m : it->second) {
      m.joined = true;
      into.push_back(m);
    }
    it = groups.erase(it);
  }
}

}  // namespace

std::vector<Bug> GroupBugs(const std::vector<StoredFinding>& findings) {
  std::map<std::string, std::vector<Member>> groups;
  for (const StoredFinding& s : findings) {
    const Finding& f = s.finding;
    if (f.outcome.kind != FindingKind::kLayoutBug ||
        f.dismissal != Dismissal::kNone) {
      continue;
    }
    groups[BugKey(f)].push_back(
        Member{&s, SeverityOf(f.outcome.verdict), ConfidenceOf(f, s.reduced),
               CaseSize(f.c), Oddity(f.c), CasePlainness(f.c)});
  }
  JoinExplainedSiblings(groups);
  std::vector<Bug> bugs;
  for (auto& [key, members] : groups) bugs.push_back(BugOf(members));
  std::sort(bugs.begin(), bugs.end(), [](const Bug& a, const Bug& b) {
    return std::tie(a.confidence, a.severity, b.hits, a.id) <
           std::tie(b.confidence, b.severity, a.hits, b.id);
  });
  return bugs;
}

}  // namespace dpfuzz
