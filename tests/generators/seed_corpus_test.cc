#include "generators/seed_corpus.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "common/files.h"
#include "generators/case_json.h"
#include "generators/op_args.h"
#include "generators/op_registry.h"
#include "generators/schema_spec.h"

namespace dpfuzz {
namespace {

// A corpus of two nll_loss_forward cases: f32 input, i64 class indices.
class SeedCorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> dir = MakeTempDirectory("dpfuzz_seeds_");
    ASSERT_TRUE(dir.ok()) << dir.status();
    dir_ = *dir;
    ValueRecipe classes;
    classes.distribution = Distribution::kExplicit;
    classes.data = {2, 0};
    for (int64_t n : {2, 3}) {
      Case c;
      c.op = "aten::nll_loss_forward";
      Rng rng(n);
      c.args = {Arg("self", Values({n, 3}, DType::kFloat32, rng)),
                Arg("target", Contiguous({n}, DType::kInt64, classes)),
                Arg("reduction", int64_t{1})};
      cases_.push_back(c);
    }
    // Lines hold one case each: the case file text without its newlines.
    std::string jsonl;
    for (const Case& c : cases_) {
      std::string text = CaseToJson(c);
      text.erase(std::remove(text.begin(), text.end(), '\n'), text.end());
      jsonl += text + "\n";
    }
    jsonl += "{\"not\": \"a case\"}\n";
    ASSERT_TRUE(
        WriteFileAtomically(dir_ + "/" + SeedFileName("aten::nll_loss_forward"),
                            jsonl, "seeds")
            .ok());
    ASSERT_TRUE(WriteFileAtomically(dir_ + "/index.json",
                                    R"({"format": "dpfuzz-seeds", "version": 1,
                        "torch": "1.13.1",
                        "ops": {"aten::nll_loss_forward":
                                  {"cases": 3, "dtypes": ["f32"]}}})",
                                    "index")
                    .ok());
  }

  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
  std::vector<Case> cases_;
};

TEST_F(SeedCorpusTest, ReadsTheIndexAndEachOverloadsCases) {
  EXPECT_EQ(SeedFileName("aten::add.Tensor"), "aten__add.Tensor.jsonl");
  absl::StatusOr<SeedCorpus> seeds = SeedCorpus::Open(dir_);
  ASSERT_TRUE(seeds.ok()) << seeds.status();
  EXPECT_EQ(seeds->torch_version(), "1.13.1");
  ASSERT_NE(seeds->Find("aten::nll_loss_forward"), nullptr);
  EXPECT_THAT(seeds->Find("aten::nll_loss_forward")->dtypes,
              ::testing::ElementsAre(DType::kFloat32));
  EXPECT_EQ(seeds->Find("aten::nll_loss"), nullptr);
  EXPECT_EQ(seeds->CasesOf("aten::nll_loss"), nullptr);
  const std::vector<Case>* cases = seeds->CasesOf("aten::nll_loss_forward");
  ASSERT_NE(cases, nullptr);
  EXPECT_EQ(*cases, cases_);  // The line that is no case is skipped.
}

TEST_F(SeedCorpusTest, DrawsMoveTheFirstTensorsDTypeAndKeepIndices) {
  absl::StatusOr<SeedCorpus> seeds = SeedCorpus::Open(dir_);
  ASSERT_TRUE(seeds.ok()) << seeds.status();
  const std::vector<Case>& cases = *seeds->CasesOf("aten::nll_loss_forward");
  Rng rng(5);
  for (int i = 0; i < 50; ++i) {
    const std::vector<Argument> args =
        DrawSeedArgs(cases, DType::kFloat64, rng);
    ASSERT_EQ(args.size(), 3u);
    const auto& self = std::get<TensorSpec>(args[0].value);
    const auto& target = std::get<TensorSpec>(args[1].value);
    EXPECT_EQ(self.dtype, DType::kFloat64);
    EXPECT_EQ(target.dtype, DType::kInt64);
    EXPECT_EQ(target.values.data, (std::vector<double>{2, 0}));
    EXPECT_EQ(self.layout.sizes[0], target.layout.sizes[0]);
    EXPECT_EQ(args[2].value, ArgValue{int64_t{1}});
  }
  // No seed of the bool kind: a draw keeps the recorded dtypes.
  const std::vector<Argument> kept = DrawSeedArgs(cases, DType::kBool, rng);
  EXPECT_EQ(std::get<TensorSpec>(kept[0].value).dtype, DType::kFloat32);
}

// A seed directory with one case per overload of `donors`: every argument
// the overload reads, as the int 1, but those in `left_out`, and `given`.
std::string WriteDonors(const std::vector<std::string>& donors,
                        const std::set<std::string>& left_out,
                        const std::vector<Argument>& given) {
  absl::StatusOr<std::string> dir = MakeTempDirectory("dpfuzz_seeds_");
  EXPECT_TRUE(dir.ok());
  nlohmann::json index{{"format", "dpfuzz-seeds"},
                       {"ops", nlohmann::json::object()}};
  for (const std::string& name : donors) {
    Case c;
    c.op = SplitOverload(name).op;
    c.overload = SplitOverload(name).overload;
    for (const ReadArgument& r : ReadArgumentsOf(SplitOverload(name))) {
      if (left_out.count(name + ":" + r.name)) continue;
      auto g =
          std::find_if(given.begin(), given.end(),
                       [&r](const Argument& a) { return a.name == r.name; });
      c.args.push_back(g != given.end() ? *g : Arg(r.name, int64_t{1}));
    }
    std::string line = CaseToJson(c);
    line.erase(std::remove(line.begin(), line.end(), '\n'), line.end());
    EXPECT_TRUE(WriteFileAtomically(*dir + "/" + SeedFileName(name),
                                    line + "\n", "seeds")
                    .ok());
    index["ops"][name] = {{"cases", 1}};
  }
  EXPECT_TRUE(
      WriteFileAtomically(*dir + "/index.json", index.dump(), "index").ok());
  return *dir;
}

// The overloads are real schemas; each donor has one case.
TEST(SeedCorpusSourceTest, BorrowsTheSeedsOfTheSameOpOrOfTheSameArguments) {
  ValueRecipe lengths;
  lengths.distribution = Distribution::kExplicit;
  lengths.data = {3, 2};
  const std::string dir = WriteDonors(
      {"aten::embedding_bag.padding_idx", "aten::nll_loss_nd",
       "aten::convolution", "aten::softmax.int", "aten::clamp",
       "aten::div_.Scalar", "aten::ctc_loss.Tensor"},
      {"aten::clamp:max"},
      {Arg("input_lengths", Contiguous({2}, DType::kInt64, lengths)),
       Arg("target_lengths", Contiguous({2}, DType::kInt64, lengths))});
  absl::StatusOr<SeedCorpus> seeds = SeedCorpus::Open(dir);
  ASSERT_TRUE(seeds.ok()) << seeds.status();
  EXPECT_EQ(seeds->SourceFor("aten::softmax.int"), "aten::softmax.int");
  // Another overload of the op, with one argument more (padding_idx).
  EXPECT_EQ(seeds->SourceFor("aten::embedding_bag"),
            "aten::embedding_bag.padding_idx");
  // The op it forwards to, which reads the same arguments.
  EXPECT_EQ(seeds->SourceFor("aten::nll_loss"), "aten::nll_loss_nd");
  // Another op that reads each of its arguments (and `transposed`).
  EXPECT_EQ(seeds->SourceFor("aten::conv_transpose3d.input"),
            "aten::convolution");
  // Another op gives self but not dim; softmax.int's dim is of another
  // type (int, not int[]).
  EXPECT_EQ(seeds->SourceFor("aten::sum.dim_IntList"), "");
  EXPECT_EQ(seeds->SourceFor("aten::no_such_op"), "");
  // clamp may give clamp_max's `max`, but its case leaves it out.
  EXPECT_EQ(seeds->SourceFor("aten::clamp_max"), "");
  EXPECT_TRUE(seeds->CasesFor("aten::clamp_max").empty());
  // An op that exists only in place reads the self it writes.
  EXPECT_EQ(seeds->SourceFor("aten::__ilshift__.Scalar"), "aten::div_.Scalar");
  const std::vector<Case> shifted = seeds->CasesFor("aten::__ilshift__.Scalar");
  ASSERT_EQ(shifted.size(), 1u);
  EXPECT_NE(FindArgument(shifted[0], "self"), nullptr);
  // Extra arguments are dropped.
  const std::vector<Case> bags = seeds->CasesFor("aten::embedding_bag");
  ASSERT_EQ(bags.size(), 1u);
  EXPECT_EQ(FindArgument(bags[0], "padding_idx"), nullptr);
  EXPECT_NE(FindArgument(bags[0], "weight"), nullptr);
  // Lengths given as tensors become the int[] of the other overload.
  EXPECT_EQ(seeds->SourceFor("aten::ctc_loss.IntList"),
            "aten::ctc_loss.Tensor");
  const std::vector<Case> ctc = seeds->CasesFor("aten::ctc_loss.IntList");
  ASSERT_EQ(ctc.size(), 1u);
  const Argument* input_lengths = FindArgument(ctc[0], "input_lengths");
  ASSERT_NE(input_lengths, nullptr);
  EXPECT_EQ(std::get<Dims>(input_lengths->value), (Dims{3, 2}));
  std::filesystem::remove_all(dir);
}

// A case whose None stands for an argument that is not optional gives
// nothing (a seed borrowed from an overload whose running_mean is a
// Tensor? for one whose is a Tensor, or a foreign file); a None for an
// optional one is a value.
TEST(SeedCorpusSourceTest, NoneIsNoValueForAnArgumentThatIsNotOptional) {
  // softmax.int(Tensor self, int dim, ScalarType? dtype=None)
  for (const auto& [name, fits] :
       {std::pair{"dim", false}, std::pair{"dtype", true}}) {
    const std::string dir =
        WriteDonors({"aten::softmax.int"}, {}, {Arg(name, std::monostate{})});
    absl::StatusOr<SeedCorpus> seeds = SeedCorpus::Open(dir);
    ASSERT_TRUE(seeds.ok()) << seeds.status();
    EXPECT_EQ(seeds->CasesFor("aten::softmax.int").size(), fits ? 1u : 0u)
        << name << " None";
    std::filesystem::remove_all(dir);
  }
}

TEST(SeedCorpusOpenTest, MissingOrForeignIndexIsAnError) {
  EXPECT_EQ(SeedCorpus::Open("/nonexistent/dpfuzz/seeds").status().code(),
            absl::StatusCode::kNotFound);
  absl::StatusOr<std::string> dir = MakeTempDirectory("dpfuzz_seeds_");
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE(
      WriteFileAtomically(*dir + "/index.json", "{\"ops\": 3}", "index").ok());
  EXPECT_EQ(SeedCorpus::Open(*dir).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::filesystem::remove_all(*dir);
}

}  // namespace
}  // namespace dpfuzz
