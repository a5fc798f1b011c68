// FitGradOutputs gives a case's grad_outputs the sizes of its results
// again after its inputs were resized, as a reducer's candidates are.

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "generators/case_json.h"
#include "generators/op_registry.h"
#include "oracles/case_builder.h"

namespace dpfuzz {
namespace {

// masked_select of a transposed self [rows, 4] by a broadcast mask
// [F, T, F, T]: a result of 2 * rows elements, which no input's size is.
Case MaskedSelect(int64_t rows, int64_t grad_size) {
  absl::StatusOr<Case> c =
      CaseFromJson(absl::StrCat(R"({
    "format": "dpfuzz-case", "version": 1, "op": "aten::masked_select",
    "overload": "", "variant": "functional", "seed": 1,
    "args": [
      {"name": "self", "tensor": {"device": "cpu", "dtype": "f32",
        "requires_grad": true, "sizes": [)",
                                rows, R"(, 4],
        "strides": [1, )",
                                rows, R"(], "storage_offset": 0,
        "values": {"distribution": "arange", "seed": 0, "specials": []}}},
      {"name": "mask", "tensor": {"device": "cpu", "dtype": "b8",
        "requires_grad": false, "sizes": [4], "strides": [1],
        "storage_offset": 0,
        "values": {"distribution": "arange", "seed": 0, "specials": []}}}],
    "grad_outputs": [{"device": "cpu", "dtype": "f32",
      "requires_grad": false, "sizes": [)",
                                grad_size, R"(], "strides": [1],
      "storage_offset": 3,
      "values": {"distribution": "arange", "seed": 0, "specials": []}}]})"));
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : Case{};
}

TEST(FitGradOutputsTest, AGradOutputTakesItsResultsSizeAgain) {
  const OpSpec* spec = FindCuratedOp("masked_select");
  ASSERT_NE(spec, nullptr);
  Case c = MaskedSelect(3, 24);  // As found with 12 rows, then resized.
  absl::StatusOr<bool> fitted = FitGradOutputs(*spec, c);
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  EXPECT_TRUE(*fitted);
  const StridedLayout& g = c.grad_outputs[0].layout;
  EXPECT_EQ(g.sizes, Dims{6});
  EXPECT_EQ(g.strides, Dims{1});
  EXPECT_EQ(g.storage_offset, 3);  // What else it had, it keeps.
  EXPECT_EQ(c.grad_outputs[0].values.distribution, Distribution::kArange);
}

TEST(FitGradOutputsTest, AFittingCaseIsLeftAsItIs) {
  const OpSpec* spec = FindCuratedOp("masked_select");
  ASSERT_NE(spec, nullptr);
  Case c = MaskedSelect(3, 6);
  const Case before = c;
  absl::StatusOr<bool> fitted = FitGradOutputs(*spec, c);
  ASSERT_TRUE(fitted.ok()) << fitted.status();
  EXPECT_FALSE(*fitted);
  EXPECT_EQ(c, before);
}

}  // namespace
}  // namespace dpfuzz
