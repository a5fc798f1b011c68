// NestArguments: a schema's dense draw becomes a nested op's arguments;
// the schema-driven nested specs exist exactly where the dispatcher has a
// nested kernel, and their exclusions say why.

#include "generators/nested_args.h"

#include <gtest/gtest.h>

#include "generators/op_args.h"
#include "generators/op_catalog.h"
#include "generators/op_registry.h"
#include "generators/schema_spec.h"

namespace dpfuzz {
namespace {

const TensorSpec& TensorArg(const std::vector<Argument>& args,
                            const std::string& name) {
  for (const Argument& arg : args) {
    if (arg.name == name) return std::get<TensorSpec>(arg.value);
  }
  ADD_FAILURE() << "no tensor argument " << name;
  static const TensorSpec none;
  return none;
}

TEST(NestArgumentsTest, OperandsOfTheFirstShapeShareItsComponents) {
  Rng values(3);
  for (uint64_t seed = 0; seed < 50; ++seed) {
    std::vector<Argument> args = {
        Arg("self", Values({2, 3}, DType::kFloat32, values)),
        Arg("other", Values({2, 3}, DType::kFloat32, values)),
        Arg("weight", Values({4}, DType::kFloat32, values)),
        Arg("dim", int64_t{1}), Arg("dims", Dims{0, -1})};
    const ValueRecipe recipe = TensorArg(args, "self").values;
    Rng rng(seed);
    ASSERT_TRUE(NestArguments(args, rng));
    const TensorSpec& self = TensorArg(args, "self");
    ASSERT_TRUE(self.is_nested());
    EXPECT_EQ(self.values, recipe);  // Values kept.
    EXPECT_TRUE(TilesBuffer(self.components));
    EXPECT_EQ(TensorArg(args, "other").components, self.components);
    EXPECT_FALSE(TensorArg(args, "weight").is_nested());
    // Every component is [2, 3] but in at most one ragged dim.
    int ragged = 0;
    for (int d = 0; d < 2; ++d) {
      bool differs = false;
      for (const Dims& s : ComponentSizes(self.components)) {
        differs |= s[d] != (d == 0 ? 2 : 3);
      }
      ragged += differs;
    }
    EXPECT_LE(ragged, 1);
    EXPECT_EQ(std::get<int64_t>(args[3].value), 2);  // Counts the batch dim.
    EXPECT_EQ(std::get<Dims>(args[4].value), (Dims{1, -1}));
  }
}

TEST(NestArgumentsTest, NothingToNestWithoutATensor) {
  std::vector<Argument> args = {Arg("dim", int64_t{1})};
  Rng rng(1);
  EXPECT_FALSE(NestArguments(args, rng));
  EXPECT_EQ(std::get<int64_t>(args[0].value), 1);
}

TEST(GenericNestedSpecTest, ExclusionsSayWhy) {
  EXPECT_EQ(*GenericNestedExclusion(SplitOverload("aten::sum.dim_IntList")),
            "");
  EXPECT_EQ(*GenericNestedExclusion(SplitOverload("aten::relu_")),
            kNestedWritesArguments);
  EXPECT_EQ(
      *GenericNestedExclusion(SplitOverload("aten::_nested_tensor_strides")),
      kResultIsLayout);
  EXPECT_EQ(*GenericNestedExclusion(SplitOverload("aten::cumsum")),
            kNoNestedKernel);
  EXPECT_FALSE(GenericNestedExclusion(SplitOverload("aten::no_such_op")).ok());
}

TEST(GenericNestedSpecTest, SpecsDrawNestedArguments) {
  const OpSpec* spec = FindOp("nested:aten::sum.dim_IntList");
  ASSERT_NE(spec, nullptr);
  EXPECT_TRUE(spec->nested);
  EXPECT_EQ(SpecName(*spec), "nested:aten::sum.dim_IntList");
  Rng rng(5);
  const std::vector<Argument> args = spec->make_args(rng, DType::kFloat32);
  EXPECT_TRUE(TensorArg(args, "self").is_nested());
}

// The catalog lists a nested entry for each overload with a nested kernel,
// once: a curated nested spec of that name wins over the generic one.
TEST(GenericNestedSpecTest, CatalogListsEachNestedKernelOnce) {
  int relu = 0, sum = 0;
  for (const CatalogEntry& e : Catalog("nested:*", Device::kCpu)) {
    ASSERT_EQ(e.name.rfind(kNestedPrefix, 0), 0u) << e.name;
    if (e.name == "nested:aten::relu") {
      ++relu;
      EXPECT_EQ(e.status, "curated");
    }
    if (e.name == "nested:aten::sum.dim_IntList") {
      ++sum;
      EXPECT_EQ(e.status, "generic");
      ASSERT_NE(e.spec, nullptr);
      EXPECT_TRUE(e.spec->nested);
    }
    if (e.name == "nested:aten::relu_") {
      EXPECT_EQ(e.status, "excluded");
      EXPECT_EQ(e.reason, kNestedWritesArguments);
    }
  }
  EXPECT_EQ(relu, 1);
  EXPECT_EQ(sum, 1);
}

// A dense case of an op that also has a curated nested spec is judged by
// its dense spec, out= and in-place variants included; a constructor of
// nested tensors from padded dense ones by its nested spec.
TEST(FindOpForTest, DenseCasesKeepTheirDenseSpec) {
  TensorSpec dense;
  dense.dtype = DType::kFloat32;
  dense.layout.sizes = {2, 3};
  dense.layout.strides = {3, 1};
  for (const char* op : {"aten::gelu", "aten::relu", "aten::tanh"}) {
    SCOPED_TRACE(op);
    ASSERT_NE(FindOp(std::string(kNestedPrefix) + op), nullptr);
    Case c;
    c.op = op;
    c.variant = Variant::kOut;
    c.args = {{"self", dense}};
    const OpSpec* spec = FindOpFor(c);
    ASSERT_NE(spec, nullptr);
    EXPECT_FALSE(spec->nested);
    EXPECT_FALSE(spec->out_overload.empty());
    EXPECT_TRUE(spec->has_inplace);
  }
  Case padded;
  padded.op = "aten::_nested_from_padded";
  padded.args = {{"padded", dense}};
  const OpSpec* constructor = FindOpFor(padded);
  ASSERT_NE(constructor, nullptr);
  EXPECT_TRUE(constructor->nested);
}

}  // namespace
}  // namespace dpfuzz
