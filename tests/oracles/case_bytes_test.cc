// The libFuzzer target's pieces, in process: the byte form of a case
// (oracles/case_bytes.h), its structural mutations (generators/case_mutator.h)
// and the layout-coverage cells that guide them (oracles/layout_coverage.h).

#include "oracles/case_bytes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "generators/case_mutator.h"
#include "generators/geometry.h"
#include "generators/layout_features.h"
#include "generators/op_registry.h"
#include "generators/rng.h"
#include "oracles/layout_coverage.h"

namespace dpfuzz {
namespace {

using ::testing::Contains;
using ::testing::Not;

std::vector<const OpSpec*> Ops() {
  return {FindCuratedOp("add"), FindCuratedOp("masked_select"),
          FindCuratedOp("sum")};
}

// Decodes `size` bytes of a fixed pseudo-random stream until a valid case.
Case SomeCase(uint64_t seed) {
  Rng rng(seed);
  for (int attempt = 0; attempt < 50; ++attempt) {
    std::vector<uint8_t> bytes(48);
    for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng.Next());
    bytes[0] = '0';  // Never '{': a choice form.
    absl::StatusOr<std::optional<Case>> c =
        DecodeCase(bytes.data(), bytes.size(), Ops(), {});
    if (c.ok() && c->has_value()) return **c;
  }
  ADD_FAILURE() << "no valid case in 50 choice streams";
  return Case();
}

TEST(RngTest, ChoicesSteerOneDrawEachThenASeededStream) {
  const uint8_t bytes[16] = {3, 0, 0, 0, 0, 0, 0, 0, 200};
  Rng rng = Rng::FromChoices(bytes, sizeof(bytes));
  EXPECT_EQ(rng.Uniform(0, 9), 3);
  EXPECT_EQ(rng.choices_left(), 8u);
  EXPECT_EQ(rng.Uniform(0, 255), 200);
  EXPECT_EQ(rng.choices_left(), 0u);
  Rng again = Rng::FromChoices(bytes, sizeof(bytes));
  again.Next();
  again.Next();
  EXPECT_EQ(rng.Next(), again.Next());  // Past the bytes: deterministic.
  const uint8_t zeros[8] = {};
  EXPECT_EQ(Rng::FromChoices(zeros, 8).Uniform(5, 9), 5);  // The smallest.
}

// The first 8 bytes pick the op ('a' = 97, 97 % 3 == 1: masked_select;
// 'b' = 98: sum); the bytes after them steer the later draws, some of
// which give no valid case.
TEST(CaseBytesTest, ChoiceFormsDecodeDeterministicallyAndByteByByte) {
  int decoded = 0, decoded_other = 0;
  for (uint8_t tail = 0; tail < 32; ++tail) {
    SCOPED_TRACE(static_cast<int>(tail));
    std::vector<uint8_t> bytes = {'a', 0, 0, 0, 0, 0, 0, 0, tail, 2, 3, 4, 5};
    absl::StatusOr<std::optional<Case>> a =
        DecodeCase(bytes.data(), bytes.size(), Ops(), {});
    absl::StatusOr<std::optional<Case>> b =
        DecodeCase(bytes.data(), bytes.size(), Ops(), {});
    ASSERT_TRUE(a.ok()) << a.status();
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(*a, *b);
    if (a->has_value()) {
      ++decoded;
      EXPECT_EQ((*a)->op, "aten::masked_select");
    }
    bytes[0] = 'b';  // One byte: another op, the same later choices.
    absl::StatusOr<std::optional<Case>> other =
        DecodeCase(bytes.data(), bytes.size(), Ops(), {});
    ASSERT_TRUE(other.ok()) << other.status();
    if (other->has_value()) {
      ++decoded_other;
      EXPECT_EQ((*other)->op, "aten::sum");
    }
  }
  EXPECT_GT(decoded, 0) << "no valid masked_select case in 32 streams";
  EXPECT_GT(decoded_other, 0) << "no valid sum case in 32 streams";
  const uint8_t bytes[8] = {'a'};
  EXPECT_FALSE(DecodeCase(bytes, sizeof(bytes), {}, {}).ok());  // No ops.
}

TEST(CaseBytesTest, EveryCaseRoundTripsThroughItsCaseForm) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const Case c = SomeCase(seed);
    const std::string bytes = EncodeCase(c);
    const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
    ASSERT_TRUE(IsCaseForm(data, bytes.size()));
    absl::StatusOr<std::optional<Case>> back =
        DecodeCase(data, bytes.size(), /*ops=*/{}, {});
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_TRUE(back->has_value());
    EXPECT_EQ(**back, c);
  }
}

TEST(CaseBytesTest, MalformedCaseFormsAreErrorsNotCrashes) {
  const std::string bad = "{\"op\": 3";
  EXPECT_FALSE(DecodeCase(reinterpret_cast<const uint8_t*>(bad.data()),
                          bad.size(), Ops(), {})
                   .ok());
}

std::vector<const TensorSpec*> Tensors(const Case& c) {
  return AllTensorSpecsOf(c);
}

TEST(CaseMutatorTest, OneTensorChangesAndNothingElse) {
  int changed_layouts = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const Case c = SomeCase(seed);
    Rng rng(seed);
    const Case m = MutateCase(c, rng);
    EXPECT_EQ(m.op, c.op);
    EXPECT_EQ(m.variant, c.variant);
    EXPECT_EQ(m.aliases, c.aliases);
    const auto before = Tensors(c);
    const auto after = Tensors(m);
    ASSERT_EQ(before.size(), after.size());
    int differ = 0;
    for (size_t i = 0; i < before.size(); ++i) {
      EXPECT_EQ(after[i]->layout.sizes, before[i]->layout.sizes);
      EXPECT_EQ(after[i]->dtype, before[i]->dtype);
      EXPECT_EQ(after[i]->values.distribution, before[i]->values.distribution);
      if (*after[i] == *before[i]) continue;
      ++differ;
      if (after[i]->layout != before[i]->layout) {
        ++changed_layouts;
        EXPECT_EQ(ComputeLayoutFeatures(after[i]->layout) &
                      (kFeatureOverlapping | kFeatureZeroStride),
                  0u)
            << "a mutated layout overlaps: " << *after[i];
      }
    }
    EXPECT_LE(differ, 1) << c << "\n->\n" << m;
  }
  EXPECT_GT(changed_layouts, 10);  // Mostly relayouts.
}

TEST(CaseMutatorTest, AliasedTensorsAreLeftAlone) {
  Case c = SomeCase(3);
  std::vector<std::string> names;
  for (const Argument& a : c.args) {
    if (std::holds_alternative<TensorSpec>(a.value)) names.push_back(a.name);
  }
  ASSERT_FALSE(names.empty());
  c.grad_outputs.clear();
  for (const std::string& n : names) c.aliases.push_back({n, names[0]});
  for (uint64_t seed = 0; seed < 10; ++seed) {
    Rng rng(seed);
    EXPECT_EQ(MutateCase(c, rng), c);
  }
}

TEST(CaseMutatorTest, CrossOverTakesLayoutsOnlyFromTheSameShapes) {
  const Case a = SomeCase(1);
  Case b = a;
  for (TensorSpec* t : AllTensorSpecsOf(b)) {
    t->layout.storage_offset += 3;  // Fits: same sizes, no overlap.
  }
  bool took = false;
  for (uint64_t seed = 0; seed < 8 && !took; ++seed) {
    Rng rng(seed);
    took = CrossOver(a, b, rng) != a;
  }
  EXPECT_TRUE(took);
  Case other = a;
  other.op = "aten::sub";
  Rng rng(1);
  EXPECT_EQ(CrossOver(a, other, rng), a);
}

TEST(LayoutCoverageTest, CellsNameEachFeatureOfEachTensorAndTheVerdict) {
  Case c;
  c.op = "aten::add";
  c.overload = "Tensor";
  TensorSpec t;
  t.layout = {{2, 3}, {1, 2}, 1};  // Transposed, offset.
  c.args = {{"self", t}};
  std::set<std::string> names;
  for (const LayoutCell& cell : LayoutCellsOf(c, Verdict::kMismatch)) {
    names.insert(cell.ToString());
  }
  EXPECT_THAT(names, Contains("aten::add.Tensor functional f32 self permuted"));
  EXPECT_THAT(names, Contains("aten::add.Tensor functional f32 self offset"));
  EXPECT_THAT(
      names,
      Contains("aten::add.Tensor functional f32 self set=permuted+offset"));
  EXPECT_THAT(names,
              Contains("aten::add.Tensor functional f32 verdict=mismatch"));
  EXPECT_THAT(names,
              Not(Contains("aten::add.Tensor functional f32 self gapped")));
  const LayoutCells cells = LayoutCellsOf(c, Verdict::kAgree);
  const std::vector<uint64_t> hashes = CellHashes(cells);
  EXPECT_EQ(std::set<uint64_t>(hashes.begin(), hashes.end()).size(),
            cells.size());
}

}  // namespace
}  // namespace dpfuzz
