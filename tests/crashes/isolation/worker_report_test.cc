#include "crashes/isolation/worker_report.h"

#include "crashes/findings/finding.h"
#include "gtest/gtest.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

std::vector<WorkerReport> SampleReports() {
  WorkerReport ran;
  ran.seq = 1;
  ran.verdict = Verdict::kBothRejected;
  ran.seconds = 0.25;
  WorkerReport invalid;
  invalid.seq = 2;
  invalid.kind = WorkerReport::Kind::kInvalid;
  invalid.seconds = 12.000001;
  WorkerReport error;
  error.seq = 3;
  error.kind = WorkerReport::Kind::kError;
  error.error = "two\nlines and a 7 in them";
  WorkerReport finding;
  finding.seq = 18446744073709551615ull;
  CaseOutcome outcome;
  outcome.verdict = Verdict::kOutsideWrite;
  outcome.evidence.where = "storage of out";
  outcome.evidence.detail = "element 3 of the storage changed";
  outcome.evidence.measured = {{"peak_bytes", 81920}, {"ratio", 2048.5}};
  finding.verdict = outcome.verdict;
  finding.finding = MakeFinding(
      LoadKnownCase("tril-out-gapped-writes-outside-view"), outcome);
  return {ran, invalid, error, finding};
}

void ExpectSame(const WorkerReport& got, const WorkerReport& want) {
  EXPECT_EQ(got.seq, want.seq);
  EXPECT_EQ(got.kind, want.kind);
  EXPECT_EQ(got.verdict, want.verdict);
  EXPECT_EQ(got.error, want.error);
  EXPECT_DOUBLE_EQ(got.seconds, want.seconds);  // Whole microseconds.
  ASSERT_EQ(got.finding.has_value(), want.finding.has_value());
  if (!want.finding.has_value()) return;
  EXPECT_TRUE(got.finding->c == want.finding->c);
  EXPECT_EQ(got.finding->signature, want.finding->signature);
  EXPECT_EQ(got.finding->outcome.evidence.detail,
            want.finding->outcome.evidence.detail);
  EXPECT_EQ(got.finding->outcome.evidence.measured,
            want.finding->outcome.evidence.measured);
}

// Reports survive any chunking a pipe gives them: here one byte at a time.
TEST(WorkerReportTest, ReportsReassembleFromSingleBytes) {
  const std::vector<WorkerReport> sent = SampleReports();
  std::string bytes;
  for (const WorkerReport& r : sent) bytes += EncodeReport(r);
  ReportReader reader;
  std::vector<WorkerReport> got;
  for (char ch : bytes) {
    reader.Append(&ch, 1);
    while (std::optional<absl::StatusOr<WorkerReport>> r = reader.Next()) {
      ASSERT_TRUE(r->ok()) << r->status();
      got.push_back(std::move(**r));
    }
  }
  EXPECT_EQ(reader.pending(), 0u);
  ASSERT_EQ(got.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) ExpectSame(got[i], sent[i]);
}

TEST(WorkerReportTest, AnIncompleteReportWaits) {
  const std::string bytes = EncodeReport(SampleReports()[2]);
  ReportReader reader;
  reader.Append(bytes.data(), bytes.size() - 1);
  EXPECT_FALSE(reader.Next().has_value());
  reader.Append(bytes.data() + bytes.size() - 1, 1);
  EXPECT_TRUE(reader.Next().has_value());
}

// A header that does not frame a report leaves the stream unreadable: an
// error. A framed report whose payload does not parse (a worker whose
// memory an op corrupted) is an internal error of its case alone.
TEST(WorkerReportTest, MalformedReportsAreErrors) {
  for (const std::string bytes :
       {"garbage\n", "1 ran\n", "1 ran 3\nnan", "x ran 3 0\nnan",
        "1 ran 3 -5\nnan", "1 ran 99999999999999999 0\n"}) {
    ReportReader reader;
    reader.Append(bytes.data(), bytes.size());
    std::optional<absl::StatusOr<WorkerReport>> r = reader.Next();
    ASSERT_TRUE(r.has_value()) << bytes;
    EXPECT_FALSE(r->ok()) << bytes;
  }
  for (const std::string bytes :
       {"7 ran 5 0\nnoway", "7 sang 0 0\n", "7 finding 2 0\n{}"}) {
    ReportReader reader;
    reader.Append(bytes.data(), bytes.size());
    std::optional<absl::StatusOr<WorkerReport>> r = reader.Next();
    ASSERT_TRUE(r.has_value() && r->ok()) << bytes;
    EXPECT_EQ((*r)->seq, 7u);
    EXPECT_EQ((*r)->kind, WorkerReport::Kind::kError) << bytes;
    EXPECT_NE((*r)->error.find("does not parse"), std::string::npos);
  }
}

}  // namespace
}  // namespace dpfuzz
