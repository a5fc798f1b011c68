// Nested layouts: generation reaches transposed, reordered and (where the
// LibTorch version builds them) gapped components; materialized nested
// tensors have exactly the components' geometry and values, as LibTorch
// itself reports them; nested specs round-trip through case files.

#include "generators/nested_layout.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "common/torch_compat.h"
#include "generators/case_json.h"
#include "generators/geometry.h"
#include "generators/materialize.h"
#include "generators/op_args.h"
#include "generators/values.h"

namespace dpfuzz {
namespace {

TEST(NestedLayoutTest, ContiguousComponentsFollowEachOther) {
  const Components c = ContiguousComponents({{2, 3}, {4, 3}});
  EXPECT_EQ(ComponentsToString(c), "nested{[2, 3]@[3, 1]+0, [4, 3]@[3, 1]+6}");
  EXPECT_TRUE(TilesBuffer(c));
  EXPECT_EQ(ComponentsNumel(c), 18);
  EXPECT_EQ(ComponentsStorageExtent(c), 18);
}

TEST(NestedLayoutTest, TilesBufferRejectsGapsAndOverlap) {
  EXPECT_FALSE(TilesBuffer({{{2}, {2}, 0}, {{1}, {1}, 3}}));  // a gap
  EXPECT_FALSE(TilesBuffer({{{2}, {1}, 0}, {{2}, {1}, 1}}));  // overlap
  EXPECT_TRUE(TilesBuffer({{{2}, {1}, 1}, {{1}, {1}, 0}}));   // reordered
}

TEST(NestedLayoutTest, ValidateNamesTheComponent) {
  absl::Status s = ValidateComponents({{{2, 3}, {3, 1}, 0}, {{4}, {1}, 6}});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("\"components\"[1]"),
            std::string::npos)
      << s;
}

// A fixed seed reaches every nested layout class the version can build.
TEST(NestedLayoutTest, GenerationReachesEveryClass) {
  for (bool gaps : {false, true}) {
    bool permuted = false, reordered = false, gapped = false;
    Rng rng(7);
    for (int i = 0; i < 400; ++i) {
      const std::vector<Dims> sizes = GenerateComponentSizes(2, {}, rng);
      const Components c = GenerateComponents(sizes, gaps, rng);
      ASSERT_TRUE(ValidateComponents(c).ok());
      ASSERT_EQ(ComponentSizes(c), sizes);
      if (!gaps) ASSERT_TRUE(TilesBuffer(c)) << ComponentsToString(c);
      // Components never share storage elements.
      std::vector<int64_t> all = ComponentsStorageIndices(c);
      std::sort(all.begin(), all.end());
      ASSERT_EQ(std::adjacent_find(all.begin(), all.end()), all.end())
          << ComponentsToString(c);
      for (size_t k = 0; k < c.size(); ++k) {
        permuted |= ComputeNumel(c[k].sizes) > 1 &&
                    !ComputeIsContiguous(c[k].sizes, c[k].strides,
                                         MemoryFormat::kContiguous);
        if (k > 0 && c[k].storage_offset < c[k - 1].storage_offset &&
            ComputeNumel(c[k].sizes) > 0) {
          reordered = true;
        }
      }
      gapped |= !TilesBuffer(c);
    }
    EXPECT_TRUE(permuted) << "gaps " << gaps;
    EXPECT_TRUE(reordered) << "gaps " << gaps;
    EXPECT_EQ(gapped, gaps);
  }
}

// What LibTorch reports for each component of a materialized nested
// tensor is the spec's geometry, and its values are the spec's, component
// after component.
TEST(NestedLayoutTest, MaterializedAsLibTorchReportsIt) {
  Rng rng(3);
  for (int i = 0; i < 50; ++i) {
    const std::vector<Dims> sizes = GenerateComponentSizes(2, {}, rng);
    TensorSpec spec = NestedValues(sizes, DType::kFloat32, rng);
    spec.components =
        GenerateComponents(sizes, compat::kNestedBufferMayHaveGaps, rng);
    absl::StatusOr<MaterializedTensor> m = Materialize(spec);
    ASSERT_TRUE(m.ok()) << m.status();
    ASSERT_TRUE(m->tensor.is_nested());
    const std::vector<at::Tensor> parts = m->tensor.unbind();
    ASSERT_EQ(parts.size(), spec.components.size());
    for (size_t k = 0; k < parts.size(); ++k) {
      const StridedLayout& c = spec.components[k];
      EXPECT_EQ(parts[k].sizes().vec(), c.sizes);
      if (ComputeNumel(c.sizes) > 0) {
        EXPECT_EQ(parts[k].storage_offset(), c.storage_offset);
        for (size_t d = 0; d < c.sizes.size(); ++d) {
          if (c.sizes[d] > 1) EXPECT_EQ(parts[k].stride(d), c.strides[d]);
        }
      }
    }
    EXPECT_EQ(ReadLogicalBytes(m->tensor),
              GenerateValues(spec.values, spec.dtype, {spec.numel()}));
    EXPECT_TRUE(CheckStorageIntact(spec, m->storage).ok());
  }
}

TEST(NestedLayoutTest, CaseFileRoundTrip) {
  Rng rng(5);
  Case c;
  c.op = "aten::relu";
  TensorSpec spec = NestedValues({{2, 3}, {1, 3}}, DType::kFloat64, rng);
  spec.components = {{{2, 3}, {1, 2}, 3}, {{1, 3}, {3, 1}, 0}};
  c.args.push_back(Argument{"self", spec});
  const std::string json = CaseToJson(c);
  absl::StatusOr<Case> back = CaseFromJson(json, "test");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, c);
  EXPECT_EQ(TensorSpecLayoutString(spec),
            "f64 cpu nested{[2, 3]@[1, 2]+3, [1, 3]@[3, 1]+0}");
}

}  // namespace
}  // namespace dpfuzz
