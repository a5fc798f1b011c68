#include "fuzz/report.h"

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "crashes/bugs/findings_store.h"
#include "fuzz/op_knowledge.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

Finding Known(const std::string& name, Verdict verdict,
              const std::string& detail, const Blame& blame) {
  CaseOutcome outcome;
  outcome.verdict = verdict;
  outcome.evidence.detail = detail;
  Finding f = MakeFinding(LoadKnownCase(name), outcome);
  f.blame = blame;
  return f;
}

// The gapped tril.out bug; `rows` shrinks the case.
Finding Tril(DType dtype, int64_t rows = 4) {
  Finding f =
      Known("tril-out-gapped-writes-outside-view", Verdict::kOutsideWrite,
            "wrote storage[3] of out", Blame{"out", "gapped"});
  for (TensorSpec* spec : AllTensorSpecsOf(f.c)) {
    spec->dtype = dtype;
    spec->layout.sizes[0] = rows;
  }
  f.signature = FindingSignature(f.c, f.outcome.verdict);
  return f;
}

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  ASSERT_TRUE(WriteFileAtomically(path.string(), text, "test file").ok());
}

// A findings directory with two bugs (one in two dtypes, with an
// issue.md; one low confidence), a baseline failure, a flaky finding, an
// overlap finding, two
// internal errors (one unreadable) and a quarantined op.
class ReportTest : public testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(testing::TempDir()) /
            absl::StrCat("dpfuzz_report_", ::getpid());
    fs::remove_all(root_);
    dir_ = root_ / "findings";
    absl::StatusOr<FindingsStore> store = FindingsStore::Open(dir_.string());
    ASSERT_TRUE(store.ok()) << store.status();
    tril_ = Record(*store, Tril(DType::kFloat32, /*rows=*/1));
    Record(*store, Tril(DType::kFloat32));
    Record(*store, Tril(DType::kFloat64));
    Write(fs::path(tril_) / "issue.md", "# tril.out writes outside out\n");
    Record(*store, Known("masked_select-out-aliasing-mask-heap-corruption",
                         Verdict::kCrash,
                         "<script>alert(1)</script> | killed by SIGSEGV",
                         Blame{"mask,out", "aliasing"}));
    Finding baseline = Known("max_pool2d-padding-window-out-of-bounds-index",
                             Verdict::kCrash, "baseline died", Blame{});
    baseline.outcome.kind = FindingKind::kBaselineFailure;
    Record(*store, baseline);
    Finding flaky = Known("median-expanded-input-reads-outside-view",
                          Verdict::kMismatch, "once", Blame{"self", "offset"});
    flaky.dismissal = Dismissal::kFlaky;
    Record(*store, flaky);
    Finding overlap = Known("copy-overlapping-self-result-overlaps",
                            Verdict::kMismatch, "aliased", Blame{});
    overlap.c.aliases.push_back(Alias{"src", "self"});
    overlap.signature = FindingSignature(overlap.c, overlap.outcome.verdict);
    overlap.dismissal = Dismissal::kOverlap;
    Record(*store, overlap);
    Write(dir_ / "errors/e1/error.json",
          R"({"ticket": "aten::add f32 out seed 7", "error": "no <spec>",
              "case": "case.json"})");
    Write(dir_ / "errors/e2/error.json", "{not json");
    Write(
        dir_ / "quarantine.json",
        R"([{"op": "aten::foo", "deaths": 3, "reason": "killed 3 workers"}])");
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string Record(FindingsStore& store, const Finding& f) {
    absl::StatusOr<Recorded> r = store.Record(f);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->path : "";
  }

  std::string Render(ReportFormat format, const std::string& report_dir = "") {
    absl::StatusOr<std::string> text =
        RenderReport({dir_.string()}, format, report_dir);
    EXPECT_TRUE(text.ok()) << text.status();
    return text.ok() ? *text : "";
  }

  fs::path root_, dir_;
  // The f32 tril finding: the smallest of its bug, with an issue.md.
  std::string tril_;
};

TEST_F(ReportTest, JsonRanksBugsWithPathsRelativeToTheReport) {
  const Json r = Json::parse(Render(ReportFormat::kJson));
  ASSERT_EQ(r["bugs"].size(), 2u) << r.dump(2);
  const Json& tril = r["bugs"][0];
  EXPECT_EQ(tril["op"], "aten::tril");
  EXPECT_EQ(tril["variant"], "out");
  EXPECT_EQ(tril["verdict"], "outside_write");
  EXPECT_EQ(tril["culprit"], "out");
  EXPECT_EQ(tril["feature"], "gapped");
  EXPECT_EQ(tril["severity"], "memory");
  EXPECT_EQ(tril["confidence"], "high");
  EXPECT_EQ(tril["hits"], 3);
  EXPECT_THAT(tril["dtypes"], ElementsAre("f32", "f64"));
  const std::string tril_name = fs::path(tril_).filename().string();
  EXPECT_EQ(tril["issue"], tril_name + "/issue.md");
  ASSERT_EQ(tril["findings"].size(), 2u);
  for (const Json& f : tril["findings"]) {
    EXPECT_TRUE(fs::is_directory(dir_ / f.get<std::string>())) << f;
    EXPECT_EQ(fs::path(f.get<std::string>()).parent_path(), "") << f;
  }
  const Json& masked = r["bugs"][1];
  EXPECT_EQ(masked["verdict"], "crash");
  EXPECT_EQ(masked["confidence"], "low");
  EXPECT_THAT(masked["confidence_reason"].get<std::string>(),
              HasSubstr("out shares memory with mask"));
  EXPECT_EQ(masked["issue"], "");

  ASSERT_EQ(r["baseline_failures"].size(), 1u);
  EXPECT_EQ(r["baseline_failures"][0]["op"], "aten::max_pool2d");
  ASSERT_EQ(r["flaky"].size(), 1u);
  EXPECT_EQ(r["flaky"][0]["op"], "aten::median.dim");
  ASSERT_EQ(r["overlap"].size(), 1u);
  EXPECT_EQ(r["summary"]["overlap"], 1);
  ASSERT_EQ(r["errors"].size(), 2u);
  EXPECT_EQ(r["errors"][0]["what"], "aten::add f32 out seed 7");
  EXPECT_EQ(r["errors"][0]["case"], "errors/e1/case.json");
  EXPECT_EQ(r["errors"][1]["name"], "e2");
  EXPECT_EQ(r["errors"][1]["error"], "error.json is not a JSON object");
  ASSERT_EQ(r["quarantined"].size(), 1u);
  EXPECT_EQ(r["quarantined"][0]["deaths"], 3);
  // Every finding is counted, whatever its kind.
  int64_t findings = 0;
  for (const Json& c : r["counts"]) findings += c["findings"].get<int64_t>();
  EXPECT_EQ(findings, 6);
  EXPECT_EQ(r["summary"]["bugs"], 2);
  EXPECT_EQ(r["summary"]["layout_findings"], 3);
}

TEST_F(ReportTest, ValidCasesPerOpLeastValidFirst) {
  OpKnowledge k;
  for (int i = 0; i < 4; ++i) {
    k.Record("aten::add.Tensor", DType::kFloat32, i, /*valid=*/true, false,
             /*seconds=*/1e-5);
    k.Record("aten::nll_loss_forward", DType::kFloat32, i, i == 0, i < 2,
             /*seconds=*/2e-5);
  }
  ASSERT_TRUE(k.Save((dir_ / kOpStatsFile).string()).ok());
  const Json r = Json::parse(Render(ReportFormat::kJson, dir_.string()));
  ASSERT_EQ(r["validity"].size(), 2u);
  EXPECT_EQ(r["validity"][0]["op"], "aten::nll_loss_forward");
  EXPECT_EQ(r["validity"][0]["valid"], 1);
  EXPECT_EQ(r["validity"][0]["seeded_tried"], 2);
  EXPECT_EQ(r["validity"][0]["seeded_valid"], 1);
  EXPECT_DOUBLE_EQ(r["validity"][0]["valid_rate"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(r["validity"][0]["ms_per_draw"].get<double>(), 0.02);
  EXPECT_EQ(r["validity"][1]["op"], "aten::add.Tensor");
  EXPECT_THAT(Render(ReportFormat::kMarkdown, dir_.string()),
              HasSubstr("| `aten::nll_loss_forward` | 1 / 4 | 1 / 2 | 25.0% "
                        "| 0.020 |"));
}

TEST_F(ReportTest, PathsFollowTheReportElsewhere) {
  const fs::path elsewhere = root_ / "reports";
  fs::create_directories(elsewhere);
  const Json r = Json::parse(Render(ReportFormat::kJson, elsewhere.string()));
  const std::string issue = r["bugs"][0]["issue"];
  EXPECT_EQ(issue.rfind("../findings/", 0), 0u) << issue;
  EXPECT_TRUE(fs::is_regular_file(elsewhere / issue)) << issue;
}

TEST_F(ReportTest, MarkdownListsBugsThenWhatIsNotABug) {
  const std::string md = Render(ReportFormat::kMarkdown);
  const Json r = Json::parse(Render(ReportFormat::kJson));
  const std::string first = r["bugs"][0]["id"], second = r["bugs"][1]["id"];
  EXPECT_THAT(md, HasSubstr(absl::StrCat("| 1 | `", first, "` | memory |")));
  EXPECT_THAT(md, HasSubstr(absl::StrCat("| 2 | `", second, "` | memory |")));
  EXPECT_THAT(md, HasSubstr("low: out shares memory with mask"));
  EXPECT_THAT(md,
              HasSubstr("[issue.md](" + fs::path(tril_).filename().string() +
                        "/issue.md)"));
  // Evidence cannot break the table or inject markup.
  EXPECT_THAT(md, HasSubstr("\\<script\\>alert(1)\\</script\\> \\| killed"));
  for (const char* section :
       {"## Bugs", "## Low-confidence bugs", "## Baseline failures",
        "## Flaky findings", "## Overlap findings", "## Internal errors",
        "## Quarantined ops", "## Findings per op and verdict"}) {
    EXPECT_THAT(md, HasSubstr(section));
  }
  // The classes lead, each naming its member bugs; the low confidence bug
  // is listed apart, after the high confidence ones.
  EXPECT_LT(md.find("## Bug classes"), md.find("## Bugs"));
  EXPECT_LT(md.find("## Bug classes"), md.find(absl::StrCat("`", first, "`")));
  const size_t first_row = md.find(absl::StrCat("| 1 | `", first, "`"));
  const size_t second_row = md.find(absl::StrCat("| 2 | `", second, "`"));
  EXPECT_LT(md.find("## Bugs"), first_row);
  EXPECT_LT(first_row, md.find("## Low-confidence bugs"));
  EXPECT_LT(md.find("## Low-confidence bugs"), second_row);
  EXPECT_LT(md.find("## Low-confidence bugs"), md.find("## Baseline failures"));
}

TEST_F(ReportTest, HtmlIsOneEscapedSelfContainedPage) {
  const std::string html = Render(ReportFormat::kHtml);
  EXPECT_THAT(html, HasSubstr("<table id=\"bugs\">"));
  EXPECT_THAT(html, HasSubstr("<style>"));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, HasSubstr("&lt;script&gt;alert(1)&lt;/script&gt;"));
  EXPECT_THAT(html, HasSubstr("no &lt;spec&gt;"));
  for (const char* external : {"src=", "<link", "http:", "https:", "@import"}) {
    EXPECT_THAT(html, Not(HasSubstr(external))) << external;
  }
  // One row per bug: the high confidence one in the bugs table, the low
  // confidence one in its own.
  for (const char* id : {"bugs", "low_confidence_bugs"}) {
    const size_t start = html.find(absl::StrCat("<table id=\"", id, "\">"));
    ASSERT_NE(start, std::string::npos) << id;
    const std::string table =
        html.substr(start, html.find("</table>", start) - start);
    int rows = 0;
    for (size_t at = table.find("<tr class="); at != std::string::npos;
         at = table.find("<tr class=", at + 1)) {
      ++rows;
    }
    EXPECT_EQ(rows, 1) << id;
  }
}

TEST_F(ReportTest, WriteReportsWritesAllThreeIntoTheFindingsDirectory) {
  ASSERT_TRUE(WriteReports(dir_.string()).ok());
  for (const char* name : {"report.md", "report.html", "report.json"}) {
    EXPECT_TRUE(fs::is_regular_file(dir_ / name)) << name;
  }
  absl::StatusOr<std::string> json =
      ReadFile((dir_ / "report.json").string(), "report");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(Json::parse(*json)["bugs"].size(), 2u);
  // The reports themselves are not findings.
  EXPECT_EQ(Json::parse(Render(ReportFormat::kJson))["bugs"].size(), 2u);
}

TEST_F(ReportTest, ReportCommand) {
  std::ostringstream out;
  ASSERT_TRUE(
      RunReportCommand({dir_.string()}, ReportFormat::kMarkdown, "", out).ok());
  EXPECT_THAT(out.str(), HasSubstr("# dpfuzz report"));
  const fs::path file = root_ / "r" / "report.json";
  fs::create_directories(file.parent_path());
  ASSERT_TRUE(
      RunReportCommand({dir_.string()}, ReportFormat::kJson, file.string(), out)
          .ok());
  absl::StatusOr<std::string> json = ReadFile(file.string(), "report");
  ASSERT_TRUE(json.ok());
  const std::string issue = Json::parse(*json)["bugs"][0]["issue"];
  EXPECT_TRUE(fs::is_regular_file(file.parent_path() / issue)) << issue;
  EXPECT_FALSE(RunReportCommand({}, ReportFormat::kMarkdown, "", out).ok());
  const absl::Status missing = RunReportCommand(
      {(root_ / "nope").string()}, ReportFormat::kMarkdown, "", out);
  EXPECT_THAT(std::string(missing.message()), HasSubstr("nope"));
}

TEST(ReportFormatTest, Names) {
  EXPECT_EQ(*ParseReportFormat("html"), ReportFormat::kHtml);
  EXPECT_EQ(ReportFormatName(ReportFormat::kMarkdown), "md");
  EXPECT_FALSE(ParseReportFormat("pdf").ok());
}

}  // namespace
}  // namespace dpfuzz
