// Every curated op spec names real schemas, draws only arguments those
// schemas have, and draws arguments that the op accepts on contiguous
// inputs (the baseline of every case), for every dtype it lists.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "generators/geometry.h"
#include "generators/materialize.h"
#include "generators/op_registry.h"
#include "oracles/case_builder.h"
#include "oracles/invoke.h"

namespace dpfuzz {
namespace {

// Runs the functional schema of `spec` on contiguous materialized args. A
// case that does not fit its schema fails the test and reads as rejected.
CallResult RunContiguous(const OpSpec& spec, const Case& c) {
  CallResult misfit;
  misfit.outcome = CallOutcome::kRejected;
  NamedTensors tensors;
  for (const Argument& arg : c.args) {
    std::vector<const TensorSpec*> specs;
    if (const auto* t = std::get_if<TensorSpec>(&arg.value)) specs.push_back(t);
    if (const auto* l = std::get_if<std::vector<TensorSpec>>(&arg.value)) {
      for (const TensorSpec& t : *l) specs.push_back(&t);
    }
    for (const TensorSpec* t : specs) {
      absl::StatusOr<MaterializedTensor> m = Materialize(*t);
      if (!m.ok()) {
        ADD_FAILURE() << spec.op << ": " << m.status();
        misfit.error = m.status().ToString();
        return misfit;
      }
      tensors[arg.name].push_back(m->tensor);
    }
  }
  absl::StatusOr<c10::OperatorHandle> op = FindOperator(spec.op, spec.overload);
  absl::StatusOr<CallResult> r =
      op.ok() ? Invoke(*op, c, tensors) : op.status();
  if (!r.ok()) {
    ADD_FAILURE() << r.status();
    misfit.error = r.status().ToString();
    return misfit;
  }
  return *r;
}

TEST(CuratedOpsTest, CoversEveryFamily) {
  const std::set<std::string> kFamilies = {
      "pointwise", "reduction", "indexing", "sorting",          "shape",
      "linalg",    "nn",        "copy",     "sparse_compressed"};
  std::set<std::string> families;
  std::set<std::string> names;
  for (const OpSpec& spec : CuratedOps()) {
    if (spec.nested) continue;  // tests/oracles/nested_case_test.cc
    EXPECT_TRUE(kFamilies.count(spec.family)) << spec.op << ": " << spec.family;
    families.insert(spec.family);
    const std::string name =
        spec.overload.empty() ? spec.op : spec.op + "." + spec.overload;
    EXPECT_TRUE(names.insert(name).second) << "two specs for " << name;
    EXPECT_EQ(FindCuratedOp(name), &spec) << name;
    std::set<DType> dtypes(spec.dtypes.begin(), spec.dtypes.end());
    EXPECT_EQ(dtypes.size(), spec.dtypes.size()) << spec.op << ": repeats";
    if (spec.differentiable) {
      EXPECT_TRUE(std::any_of(spec.dtypes.begin(), spec.dtypes.end(),
                              [](DType d) { return IsFloating(d); }))
          << spec.op << " is differentiable but lists no floating dtype";
    }
  }
  EXPECT_EQ(families, kFamilies);
  EXPECT_GE(CuratedOps().size(), 45u);
}

TEST(CuratedOpsTest, EverySchemaExists) {
  for (const OpSpec& spec : CuratedOps()) {
    EXPECT_TRUE(FindOperator(spec.op, spec.overload).ok()) << spec.op;
    if (!spec.out_overload.empty()) {
      EXPECT_TRUE(FindOperator(spec.op, spec.out_overload).ok())
          << spec.op << "." << spec.out_overload;
    }
    if (!spec.out_overload.empty()) {
      absl::StatusOr<c10::OperatorHandle> out =
          FindOperator(spec.op, spec.out_overload);
      ASSERT_TRUE(out.ok()) << spec.op << "." << spec.out_overload;
      EXPECT_FALSE(WrittenArguments(*out).empty())
          << spec.op << "." << spec.out_overload << " writes nothing";
    }
    if (spec.has_inplace) {
      absl::StatusOr<c10::OperatorHandle> inplace =
          FindOperator(spec.op + "_", spec.overload);
      ASSERT_TRUE(inplace.ok()) << spec.op << "_." << spec.overload;
      EXPECT_THAT(WrittenArguments(*inplace), testing::ElementsAre("self"))
          << spec.op << "_." << spec.overload;
    }
  }
}

// Invoke ignores case arguments the schema does not have (a misspelt name
// would silently take the default), so every drawn name must be in it.
TEST(CuratedOpsTest, ArgumentNamesAreInTheSchema) {
  for (const OpSpec& spec : CuratedOps()) {
    absl::StatusOr<c10::OperatorHandle> op =
        FindOperator(spec.op, spec.overload);
    ASSERT_TRUE(op.ok()) << op.status();
    std::set<std::string> schema_names;
    for (const c10::Argument& arg : op->schema().arguments()) {
      schema_names.insert(arg.name());
    }
    Rng rng(29);
    for (int i = 0; i < 20; ++i) {
      for (const Argument& arg : spec.make_args(rng, spec.dtypes.front())) {
        EXPECT_TRUE(schema_names.count(arg.name))
            << spec.op << "." << spec.overload << " has no argument \""
            << arg.name << "\"";
      }
    }
  }
}

// Dense specs: which nested specs a LibTorch version supports on nested
// inputs differs (tests/oracles/nested_case_test.cc runs them).
TEST(CuratedOpsTest, ArgumentsAreAcceptedOnContiguousInputs) {
  for (const OpSpec& spec : CuratedOps()) {
    if (spec.nested) continue;
    ASSERT_FALSE(spec.dtypes.empty()) << spec.op;
    for (DType dtype : spec.dtypes) {
      Rng rng(17);
      int ok = 0;
      std::string last_error;
      constexpr int kTries = 20;
      for (int i = 0; i < kTries; ++i) {
        Case c;
        c.op = spec.op;
        c.overload = spec.overload;
        c.args = spec.make_args(rng, dtype);
        const CallResult r = RunContiguous(spec, c);
        ASSERT_NE(r.outcome, CallOutcome::kInternalAssert)
            << CaseToString(c) << "\n"
            << r.error;
        if (r.outcome == CallOutcome::kOk) {
          ++ok;
        } else {
          last_error = r.error;
        }
      }
      EXPECT_GE(ok, kTries * 3 / 4) << spec.op << " " << DTypeName(dtype)
                                    << ": last error: " << last_error;
    }
  }
}

// A compressed sparse tensor's indices are laid out in every way that
// reads each element once; its values in every way.
TEST(CuratedOpsTest, NeverOverlappingArgumentsNeverOverlap) {
  const OpSpec* spec = FindCuratedOp("aten::sparse_csr_tensor.crow_col_value");
  ASSERT_NE(spec, nullptr);
  EXPECT_THAT(spec->never_overlap,
              ::testing::UnorderedElementsAre("crow_indices", "col_indices"));
  std::map<std::string, int> overlapping;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(*spec, DType::kFloat32, Variant::kFunctional, seed);
    ASSERT_TRUE(c.ok()) << c.status();
    if (!c->has_value()) continue;
    for (const Argument& a : (*c)->args) {
      const auto* t = std::get_if<TensorSpec>(&a.value);
      if (t != nullptr &&
          ComputeExactOverlap(t->layout.sizes, t->layout.strides) !=
              MemOverlap::kNo) {
        ++overlapping[a.name];
      }
    }
  }
  EXPECT_EQ(overlapping["crow_indices"], 0);
  EXPECT_EQ(overlapping["col_indices"], 0);
  EXPECT_GT(overlapping["values"], 0);
}

}  // namespace
}  // namespace dpfuzz
