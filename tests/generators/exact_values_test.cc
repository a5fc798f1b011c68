// The premises of exact comparisons. KeepScaledExact, and the specs that
// scale an operand by a power of two before adding it (add's alpha): that
// operand never holds a value whose product underflows or overflows, where
// fused and unfused kernels round differently; the other operand keeps
// every special. HoldsExactValues: which cases hold only exact values.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "generators/dtype.h"
#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

bool ScalesExactly(const ValueRecipe& recipe) {
  return (recipe.specials & kSpecialDenormal) == 0 &&
         recipe.distribution != Distribution::kWide;
}

TEST(KeepScaledExactTest, DropsSubnormalsAndWideValuesOfFloatingSpecs) {
  TensorSpec spec = Contiguous({3}, DType::kFloat64, ValueRecipe{});
  spec.values.distribution = Distribution::kWide;
  spec.values.specials = kAllSpecials;
  KeepScaledExact(spec);
  EXPECT_EQ(spec.values.distribution, Distribution::kDyadic);
  EXPECT_EQ(spec.values.specials, kAllSpecials & ~kSpecialDenormal);

  spec.dtype = DType::kInt32;  // Integer products wrap alike: kept.
  spec.values.distribution = Distribution::kWide;
  KeepScaledExact(spec);
  EXPECT_EQ(spec.values.distribution, Distribution::kWide);
}

// Draws add.Tensor's arguments (dense, and nested where alpha is 2) and
// tallies, per operand, how often a value that scales inexactly appears.
struct AlphaTally {
  int scaled = 0;                // Cases with alpha other than +-1.
  int other_inexact_scaled = 0;  // ... whose `other` scales inexactly.
  int self_inexact_scaled = 0;   // ... whose `self` would.
  int other_inexact_unit = 0;    // Cases with alpha +-1 or none.
};

AlphaTally DrawAdd(const OpSpec& spec, DType dtype) {
  AlphaTally tally;
  Rng rng(11);
  for (int i = 0; i < 3000; ++i) {
    const std::vector<Argument> args = spec.make_args(rng, dtype);
    bool scaled = false;
    for (const Argument& arg : args) {
      if (arg.name != "alpha") continue;
      const int64_t* integer = std::get_if<int64_t>(&arg.value);
      scaled = integer == nullptr || (*integer != 1 && *integer != -1);
    }
    const auto& self = std::get<TensorSpec>(args[0].value);
    const auto& other = std::get<TensorSpec>(args[1].value);
    EXPECT_EQ(args[1].name, "other");
    if (scaled) {
      ++tally.scaled;
      tally.other_inexact_scaled += !ScalesExactly(other.values);
      tally.self_inexact_scaled += !ScalesExactly(self.values);
    } else {
      tally.other_inexact_unit += !ScalesExactly(other.values);
    }
  }
  return tally;
}

TEST(KeepScaledExactTest, AddScalesOnlyValuesThatStayExact) {
  for (const char* name : {"aten::add.Tensor", "nested:aten::add.Tensor"}) {
    const OpSpec* spec = FindOp(name);
    ASSERT_NE(spec, nullptr) << name;
    for (DType dtype : {DType::kFloat64, DType::kBFloat16}) {
      const AlphaTally tally = DrawAdd(*spec, dtype);
      SCOPED_TRACE(absl::StrCat(name, " ", DTypeName(dtype)));
      EXPECT_GT(tally.scaled, 300);
      EXPECT_EQ(tally.other_inexact_scaled, 0);
      // What is not scaled keeps its subnormals and wide values.
      EXPECT_GT(tally.self_inexact_scaled, 0);
      EXPECT_GT(tally.other_inexact_unit, 0);
    }
  }
}

TEST(HoldsExactValuesTest, RecipesAndTheirGridAreExactSampledValuesAreNot) {
  Case c;
  c.op = "aten::add";
  c.overload = "Tensor";
  ValueRecipe wide;
  wide.distribution = Distribution::kWide;
  wide.specials = kAllSpecials;
  c.args = {Arg("self", Contiguous({3}, DType::kFloat32, wide)),
            Arg("other", Explicit({3}, {0.125, -4096, NAN}, DType::kFloat64)),
            Arg("alpha", FloatArg{-0.25})};
  EXPECT_TRUE(HoldsExactValues(c));
  c.args[2].value = FloatArg{-3.14};  // An OpInfo sample's alpha.
  EXPECT_FALSE(HoldsExactValues(c));
  c.args[2].value = int64_t{3};
  c.args[1].value = Explicit({3}, {0.1, 1, 2}, DType::kFloat64);
  EXPECT_FALSE(HoldsExactValues(c));
  // Integers hold any value exactly.
  c.args[1].value = Explicit({3}, {0.1, 1, 2}, DType::kInt64);
  EXPECT_TRUE(HoldsExactValues(c));
}

}  // namespace
}  // namespace dpfuzz
