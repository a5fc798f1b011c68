// WorkerReport: what a worker tells its supervisor about one ticket, and
// the framing that carries it over a pipe.
//
// A report is a header line "<seq> <kind> <payload bytes> <microseconds>\n"
// (the last: how long the worker spent on the ticket) and a payload:
// the verdict name (kind "ran"), the finding as JSON with its case (kind
// "finding"), an error message ("error"), an internal error of dpfuzz's
// with the case it happened on ("error_case": a finding JSON whose
// evidence.error is the message) or nothing ("invalid": the op rejected
// the drawn arguments on the baseline, so there is no case).
// ReportReader reassembles reports from whatever chunks read() returns.
//
//   std::string bytes = EncodeReport(report);        // worker
//   reader.Append(buf, n);                            // supervisor
//   while (auto r = reader.Next()) { if (r->ok()) ... }

#ifndef DPFUZZ_CRASHES_ISOLATION_WORKER_REPORT_H_
#define DPFUZZ_CRASHES_ISOLATION_WORKER_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "crashes/findings/finding.h"
#include "oracles/verdict.h"

namespace dpfuzz {

struct WorkerReport {
  enum class Kind : uint8_t { kRan, kInvalid, kError };
  uint64_t seq = 0;
  Kind kind = Kind::kRan;
  Verdict verdict = Verdict::kAgree;  // kRan.
  std::string error;                  // kError.
  // kRan, when the verdict is a finding; kError, the case dpfuzz failed on
  // when it had one (its verdict is no finding's).
  std::optional<Finding> finding;
  // Wall time the worker spent on the ticket, building and running it.
  double seconds = 0;
};

std::string EncodeReport(const WorkerReport& report);

class ReportReader {
 public:
  void Append(const char* data, size_t size) { buffer_.append(data, size); }

  // The next whole report; nullopt until one has arrived. A malformed
  // report is an error (and ends what this reader can make sense of).
  std::optional<absl::StatusOr<WorkerReport>> Next();

  // Bytes received that do not make a whole report yet.
  size_t pending() const { return buffer_.size() - offset_; }

 private:
  std::string buffer_;
  size_t offset_ = 0;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_ISOLATION_WORKER_REPORT_H_
