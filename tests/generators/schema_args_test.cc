// Arguments drawn from schemas, and the generic specs made from them.

#include "generators/schema_args.h"

#include <ATen/core/dispatch/Dispatcher.h>

#include <cmath>

#include "absl/strings/match.h"
#include "generators/schema_spec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace dpfuzz {
namespace {

using ::testing::HasSubstr;

c10::FunctionSchema Schema(const char* op, const char* overload) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(op, overload).schema();
}

const TensorSpec* TensorArg(const std::vector<Argument>& args,
                            const std::string& name) {
  for (const Argument& a : args) {
    if (a.name == name) return std::get_if<TensorSpec>(&a.value);
  }
  return nullptr;
}

TEST(SchemaArgsTest, PlanIsTheFirstDrawAndShapesFollowIt) {
  const c10::FunctionSchema add = Schema("aten::add", "Tensor");
  int same = 0, square = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    const SchemaPlan plan = PlanOfSeed(seed);
    Rng rng(seed);
    absl::StatusOr<std::vector<Argument>> args =
        DrawSchemaArgs(add, DType::kFloat32, rng);
    ASSERT_TRUE(args.ok()) << args.status();
    const TensorSpec* self = TensorArg(*args, "self");
    const TensorSpec* other = TensorArg(*args, "other");
    ASSERT_NE(self, nullptr);
    ASSERT_NE(other, nullptr);
    EXPECT_EQ(self->layout.sizes.size(), static_cast<size_t>(plan.rank));
    EXPECT_EQ(self->dtype, DType::kFloat32);
    if (plan.relation == ShapeRelation::kSame) {
      EXPECT_EQ(other->layout.sizes, self->layout.sizes);
      ++same;
    }
    if (plan.relation == ShapeRelation::kScalars) {
      EXPECT_TRUE(other->layout.sizes.empty());
    }
    if (plan.relation == ShapeRelation::kSquare && plan.rank > 0) {
      ++square;
      const int64_t n = self->layout.sizes[0];
      for (const Dims* sizes : {&self->layout.sizes, &other->layout.sizes}) {
        for (int64_t size : *sizes) EXPECT_EQ(size, n);
      }
      EXPECT_LE(
          std::abs(static_cast<int>(other->layout.sizes.size()) - plan.rank),
          1);
    }
  }
  EXPECT_GT(same, 20);  // Every relation is drawn.
  EXPECT_GT(square, 15);
}

TEST(SchemaArgsTest, DimsAreValidAndIndicesInRange) {
  const c10::FunctionSchema softmax = Schema("aten::softmax", "int");
  const c10::FunctionSchema gather = Schema("aten::gather", "");
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    Rng rng(seed);
    std::vector<Argument> args = *DrawSchemaArgs(softmax, DType::kFloat64, rng);
    const int64_t rank = TensorArg(args, "self")->layout.sizes.size();
    for (const Argument& a : args) {
      if (a.name != "dim") continue;
      const int64_t dim = std::get<int64_t>(a.value);
      EXPECT_GE(dim, -std::max<int64_t>(rank, 1));
      EXPECT_LT(dim, std::max<int64_t>(rank, 1));
    }
    Rng rng2(seed);
    args = *DrawSchemaArgs(gather, DType::kFloat32, rng2);
    const TensorSpec* index = TensorArg(args, "index");
    ASSERT_NE(index, nullptr);
    EXPECT_EQ(index->dtype, DType::kInt64);
  }
}

TEST(SchemaArgsTest, BoolListsAreFlagsOfTheSchemaLength) {
  const c10::FunctionSchema backward =
      Schema("aten::native_layer_norm_backward", "");
  int drawn = 0, unset = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    Rng rng(seed);
    const std::vector<Argument> args =
        *DrawSchemaArgs(backward, DType::kFloat32, rng);
    for (const Argument& a : args) {
      if (a.name != "output_mask") continue;
      const Dims& flags = std::get<Dims>(a.value);
      ASSERT_EQ(flags.size(), 3u);
      for (int64_t f : flags) {
        EXPECT_TRUE(f == 0 || f == 1) << f;
        unset += f == 0;
      }
      ++drawn;
    }
  }
  EXPECT_EQ(drawn, 100);  // bool[3] has no default: always drawn.
  EXPECT_GT(unset, 10);
}

// Scales beside an output size come as F.interpolate passes them: all or
// none, with each output size floor(input size * scale).
TEST(SchemaArgsTest, ScalesBesideAnOutputSizeAreWhatInterpolatePasses) {
  const c10::FunctionSchema upsample = Schema("aten::upsample_nearest3d", "");
  int with_scales = 0;
  for (uint64_t seed = 1; seed <= 100; ++seed) {
    Rng rng(seed);
    const absl::StatusOr<std::vector<Argument>> args =
        DrawSchemaArgs(upsample, DType::kFloat32, rng);
    ASSERT_TRUE(args.ok()) << args.status();
    const Dims* input = nullptr;
    const Dims* output_size = nullptr;
    std::vector<double> scales;
    for (const Argument& a : *args) {
      if (a.name == "self") input = &std::get<TensorSpec>(a.value).layout.sizes;
      if (a.name == "output_size") output_size = &std::get<Dims>(a.value);
      if (absl::StartsWith(a.name, "scale")) {
        scales.push_back(std::get<FloatArg>(a.value).value);
      }
    }
    ASSERT_NE(output_size, nullptr);
    if (scales.empty()) continue;
    ++with_scales;
    ASSERT_EQ(scales.size(), 3u);
    ASSERT_NE(input, nullptr);
    ASSERT_GE(input->size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
      const int64_t in = (*input)[input->size() - 3 + i];
      EXPECT_EQ((*output_size)[i],
                static_cast<int64_t>(std::floor(in * scales[i])))
          << "dim " << i << " of seed " << seed;
    }
  }
  EXPECT_GT(with_scales, 10);
  EXPECT_LT(with_scales, 90);
}

TEST(SchemaArgsTest, UndrawableArgumentsAreNamed) {
  EXPECT_EQ(UndrawableReason(Schema("aten::add", "Tensor")), "");
  // A Device is not generated (to.device is in every release; the Dimname
  // overloads this once used are gone from 2.15).
  EXPECT_THAT(UndrawableReason(Schema("aten::to", "device")),
              HasSubstr("argument device of type Device"));
  Rng rng(1);
  EXPECT_FALSE(
      DrawSchemaArgs(Schema("aten::to", "device"), DType::kFloat32, rng).ok());
}

TEST(SchemaSpecTest, VariantsAreFoundFromTheSchemas) {
  absl::StatusOr<OpSpec> hardtanh = GenericOpSpec({"aten::hardtanh", ""});
  ASSERT_TRUE(hardtanh.ok()) << hardtanh.status();
  EXPECT_EQ(hardtanh->out_overload, "out");
  EXPECT_TRUE(hardtanh->has_inplace);
  EXPECT_EQ(hardtanh->family, "generic");
  EXPECT_TRUE(hardtanh->rules & kRuleCheckDeterminism);
  EXPECT_FALSE(hardtanh->rules & kRuleNondeterministic);
  // xlogy.Tensor's out= is xlogy.OutTensor, not the Scalar overloads'.
  absl::StatusOr<OpSpec> xlogy = GenericOpSpec({"aten::xlogy", "Tensor"});
  ASSERT_TRUE(xlogy.ok()) << xlogy.status();
  EXPECT_EQ(xlogy->out_overload, "OutTensor");
  // detach_ refuses every view; a strided self is one.
  absl::StatusOr<OpSpec> detach = GenericOpSpec({"aten::detach", ""});
  ASSERT_TRUE(detach.ok()) << detach.status();
  EXPECT_FALSE(detach->has_inplace);
}

// Which of several tied elements an index names is unspecified: ops that
// return (values, indices) of self judge indices by what they select.
TEST(SchemaSpecTest, IndicesOfValuesAreJudgedByWhatTheySelect) {
  for (const OverloadName& name : std::vector<OverloadName>{
           {"aten::median", "dim"}, {"aten::sort", ""}, {"aten::cummax", ""}}) {
    absl::StatusOr<OpSpec> spec = GenericOpSpec(name);
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_TRUE(spec->rules & kRuleTiedIndices) << name.Full();
  }
  // max_pool2d_with_indices names no returns; hardtanh returns one tensor.
  for (const OverloadName& name : std::vector<OverloadName>{
           {"aten::max_pool2d_with_indices", ""}, {"aten::hardtanh", ""}}) {
    absl::StatusOr<OpSpec> spec = GenericOpSpec(name);
    ASSERT_TRUE(spec.ok()) << spec.status();
    EXPECT_FALSE(spec->rules & kRuleTiedIndices) << name.Full();
  }
}

TEST(SchemaSpecTest, ExclusionsSayWhy) {
  EXPECT_EQ(*GenericExclusion({"aten::add", "out"}), kWritesArguments);
  EXPECT_EQ(*GenericExclusion({"aten::as_strided", ""}), kResultIsLayout);
  // Storage read through strides kept or given, and views' copies.
  for (const char* op :
       {"aten::resize", "aten::_reshape_alias_copy", "aten::view_copy",
        "aten::_unsafe_view", "aten::_has_same_storage_numel",
        // Layout queries and views of another tensor's storage of 2.x
        // (none of them is registered in 1.13).
        "aten::sym_stride", "aten::sym_storage_offset",
        "aten::sym_is_contiguous", "aten::slice_inverse"}) {
    for (const std::string& overload : OverloadsOf(op)) {
      absl::StatusOr<std::string> why = GenericExclusion({op, overload});
      ASSERT_TRUE(why.ok()) << op;
      if (*why != kWritesArguments) {
        EXPECT_EQ(*why, kResultIsLayout) << op;
      }
    }
  }
  EXPECT_EQ(*GenericExclusion({"aten::promote_types", ""}), kNoTensorArgument);
  // A copy of a view has a dense kernel where the view has one.
  EXPECT_EQ(*GenericExclusion({"aten::_values_copy", ""}), kNoDenseKernel);
  EXPECT_FALSE(HasKernelOn({"aten::_values_copy", ""}, Device::kCpu));
  EXPECT_EQ(*GenericExclusion({"aten::transpose_copy", "int"}), "");
  EXPECT_TRUE(HasKernelOn({"aten::transpose_copy", "int"}, Device::kCpu));
  // Dimnames are spelled str; the reason says what they are (2.x has
  // dropped the Dimname overloads).
  if (absl::StatusOr<std::string> named =
          GenericExclusion({"aten::all", "dimname"});
      named.ok()) {
    EXPECT_THAT(*named, HasSubstr(kNamesDimensions));
  }
  // A str is not drawn, but a case file holds a recorded one: an op with
  // one is fuzzed from its seeds alone. A Device cannot be recorded.
  EXPECT_EQ(*GenericExclusion({"aten::linalg_norm", "ord_str"}), "");
  absl::StatusOr<OpSpec> ord_str =
      GenericOpSpec({"aten::linalg_norm", "ord_str"});
  ASSERT_TRUE(ord_str.ok()) << ord_str.status();
  EXPECT_THAT(ord_str->seeds_only,
              HasSubstr("argument ord of type str is not generated"));
  EXPECT_FALSE(ord_str->make_args);
  EXPECT_EQ(GenericOpSpec({"aten::linalg_norm", ""})->seeds_only, "");
  EXPECT_THAT(*GenericExclusion({"aten::to", "device"}),
              HasSubstr("argument device of type Device is not generated"));
  // A factory is fuzzed through its out= form, whose out tensor gives
  // the dtype, layout and device the functional form takes as options.
  absl::StatusOr<OpSpec> ones = GenericOpSpec({"aten::ones", ""});
  ASSERT_TRUE(ones.ok()) << ones.status();
  EXPECT_TRUE(ones->out_only);
  EXPECT_EQ(ones->out_overload, "out");
  // Kernels only for sparse or quantized tensors, in every build (2.x
  // gives aten::indices a composite kernel that raises for dense tensors).
  EXPECT_EQ(*GenericExclusion({"aten::_indices", ""}), kNoDenseKernel);
  EXPECT_EQ(*GenericExclusion({"aten::q_scale", ""}), kNoDenseKernel);
  EXPECT_EQ(GenericExclusion({"aten::no_such_op", ""}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_THAT(
      std::string(GenericOpSpec({"aten::as_strided", ""}).status().message()),
      HasSubstr(kResultIsLayout));
}

TEST(SchemaSpecTest, RandomAndPrivateOps) {
  EXPECT_TRUE(IsRandomOp({"aten::bernoulli", "p"}));  // By its tag.
  EXPECT_TRUE(IsRandomOp({"aten::dropout", ""}));     // By its name.
  EXPECT_FALSE(IsRandomOp({"aten::hardtanh", ""}));
  EXPECT_TRUE(IsPrivateOp({"aten::_softmax", ""}));
  EXPECT_FALSE(IsPrivateOp({"aten::softmax", "int"}));
  EXPECT_TRUE(GenericOpSpec({"aten::bernoulli", "p"})->rules &
              kRuleNondeterministic);
}

}  // namespace
}  // namespace dpfuzz
