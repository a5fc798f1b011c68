#include "crashes/isolation/worker_report.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "crashes/findings/finding_json.h"

namespace dpfuzz {
namespace {

constexpr size_t kMaxPayload = size_t{64} << 20;

absl::string_view KindName(const WorkerReport& r) {
  switch (r.kind) {
    case WorkerReport::Kind::kRan:
      return r.finding.has_value() ? "finding" : "ran";
    case WorkerReport::Kind::kInvalid:
      return "invalid";
    case WorkerReport::Kind::kError:
      return r.finding.has_value() ? "error_case" : "error";
  }
  return "error";
}

absl::StatusOr<WorkerReport> Decode(uint64_t seq, absl::string_view kind,
                                    absl::string_view payload) {
  WorkerReport r;
  r.seq = seq;
  if (kind == "invalid") {
    r.kind = WorkerReport::Kind::kInvalid;
  } else if (kind == "error") {
    r.kind = WorkerReport::Kind::kError;
    r.error = std::string(payload);
  } else if (kind == "ran") {
    absl::StatusOr<Verdict> verdict = ParseVerdict(payload);
    if (!verdict.ok()) return verdict.status();
    r.verdict = *verdict;
  } else if (kind == "error_case") {
    absl::StatusOr<Finding> f =
        FindingFromJson(payload, absl::StrCat("report of case ", seq));
    if (!f.ok()) return f.status();
    r.kind = WorkerReport::Kind::kError;
    r.error = f->outcome.evidence.error;
    r.finding = std::move(*f);
  } else if (kind == "finding") {
    absl::StatusOr<Finding> f =
        FindingFromJson(payload, absl::StrCat("report of case ", seq));
    if (!f.ok()) return f.status();
    r.verdict = f->outcome.verdict;
    r.finding = std::move(*f);
  } else {
    return absl::InternalError(absl::StrCat("report kind \"", kind, "\""));
  }
  return r;
}

}  // namespace

std::string EncodeReport(const WorkerReport& r) {
  std::string payload;
  if (r.finding.has_value()) {
    payload = FindingToJson(*r.finding, /*with_case=*/true).dump();
  } else if (r.kind == WorkerReport::Kind::kRan) {
    payload = std::string(VerdictName(r.verdict));
  } else if (r.kind == WorkerReport::Kind::kError) {
    payload = r.error;
  }
  return absl::StrCat(r.seq, " ", KindName(r), " ", payload.size(), " ",
                      static_cast<int64_t>(r.seconds * 1e6), "\n", payload);
}

std::optional<absl::StatusOr<WorkerReport>> ReportReader::Next() {
  const size_t newline = buffer_.find('\n', offset_);
  if (newline == std::string::npos) return std::nullopt;
  const absl::string_view header(buffer_.data() + offset_, newline - offset_);
  const std::vector<absl::string_view> parts = absl::StrSplit(header, ' ');
  uint64_t seq = 0;
  size_t size = 0;
  int64_t micros = 0;
  if (parts.size() != 4 || !absl::SimpleAtoi(parts[0], &seq) ||
      !absl::SimpleAtoi(parts[2], &size) || size > kMaxPayload ||
      !absl::SimpleAtoi(parts[3], &micros) || micros < 0) {
    offset_ = buffer_.size();
    return absl::StatusOr<WorkerReport>(absl::InternalError(
        absl::StrCat("malformed worker report header \"", header, "\"")));
  }
  if (buffer_.size() - newline - 1 < size) return std::nullopt;
  absl::StatusOr<WorkerReport> report = Decode(
      seq, parts[1], absl::string_view(buffer_).substr(newline + 1, size));
  if (!report.ok()) {
    // A well-framed report whose payload does not parse (a case whose
    // strides are a double's bits) comes from a worker whose memory the op
    // corrupted: an internal error of that case, not of the campaign.
    WorkerReport error;
    error.seq = seq;
    error.kind = WorkerReport::Kind::kError;
    error.error =
        absl::StrCat("the worker's report of the case does not parse (",
                     report.status().message(),
                     "): an op likely corrupted the worker's memory");
    report = std::move(error);
  }
  report->seconds = static_cast<double>(micros) * 1e-6;
  offset_ = newline + 1 + size;
  if (offset_ > (1 << 16)) {
    buffer_.erase(0, offset_);
    offset_ = 0;
  }
  return report;
}

}  // namespace dpfuzz
