#include "crashes/findings/layout_corpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "common/files.h"
#include "generators/case_json.h"
#include "generators/geometry.h"

namespace dpfuzz {
namespace {

using ::testing::Contains;
using ::testing::SizeIs;

Case AddCase(StridedLayout self) {
  Case c;
  c.op = "aten::add";
  c.overload = "Tensor";
  TensorSpec t;
  t.layout = std::move(self);
  c.args = {{"self", t}, {"other", t}};
  return c;
}

class LayoutCorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> dir = MakeTempDirectory("dpfuzz-corpus-");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = *dir + "/corpus";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(std::filesystem::path(dir_).parent_path(), ec);
  }
  std::string dir_;
};

TEST_F(LayoutCorpusTest, KeepsACaseOnlyWhenItReachesANewCell) {
  absl::StatusOr<LayoutCorpus> corpus = LayoutCorpus::Open(dir_);
  ASSERT_TRUE(corpus.ok()) << corpus.status();
  const Case plain = AddCase({{2, 3}, {3, 1}, 0});
  absl::StatusOr<int> fresh = corpus->Add(plain, Verdict::kAgree);
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_GT(*fresh, 0);
  EXPECT_EQ(*corpus->Add(plain, Verdict::kAgree), 0);
  EXPECT_THAT(CorpusCaseFiles(dir_), SizeIs(1));
  // A transposed self reaches "permuted": kept, and loads back equal.
  const Case transposed = AddCase({{2, 3}, {1, 2}, 0});
  EXPECT_GT(*corpus->Add(transposed, Verdict::kAgree), 0);
  const std::vector<std::string> files = CorpusCaseFiles(dir_);
  ASSERT_THAT(files, SizeIs(2));
  bool found = false;
  for (const std::string& f : files) found |= *LoadCaseFile(f) == transposed;
  EXPECT_TRUE(found);
  EXPECT_THAT(ReadCorpusCells(dir_),
              Contains("aten::add.Tensor functional f32 self permuted"));
}

TEST_F(LayoutCorpusTest, CellsLastAcrossProcessesAndMerge) {
  {
    absl::StatusOr<LayoutCorpus> first = LayoutCorpus::Open(dir_);
    ASSERT_TRUE(first.ok());
    ASSERT_GT(*first->Add(AddCase({{2, 3}, {3, 1}, 0}), Verdict::kAgree), 0);
  }
  const size_t cells = ReadCorpusCells(dir_).size();
  ASSERT_TRUE(MergeCells(dir_).ok());
  EXPECT_EQ(ReadCorpusCells(dir_).size(), cells);
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/coverage.cells"));
  absl::StatusOr<LayoutCorpus> again = LayoutCorpus::Open(dir_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->cells(), cells);
  EXPECT_EQ(*again->Add(AddCase({{2, 3}, {3, 1}, 0}), Verdict::kAgree), 0);
  EXPECT_GT(*again->Add(AddCase({{2, 3}, {3, 1}, 0}), Verdict::kMismatch), 0);
}

}  // namespace
}  // namespace dpfuzz
