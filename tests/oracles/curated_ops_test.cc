// Every curated op spec draws arguments that the op accepts on contiguous
// inputs (the baseline of every case), for every dtype it lists.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "generators/materialize.h"
#include "generators/op_registry.h"
#include "oracles/invoke.h"

namespace dpfuzz {
namespace {

// Runs the functional schema of `spec` on contiguous materialized args.
CallResult RunContiguous(const OpSpec& spec, const Case& c) {
  NamedTensors tensors;
  for (const Argument& arg : c.args) {
    std::vector<const TensorSpec*> specs;
    if (const auto* t = std::get_if<TensorSpec>(&arg.value)) specs.push_back(t);
    if (const auto* l = std::get_if<std::vector<TensorSpec>>(&arg.value)) {
      for (const TensorSpec& t : *l) specs.push_back(&t);
    }
    for (const TensorSpec* t : specs) {
      absl::StatusOr<MaterializedTensor> m = Materialize(*t);
      EXPECT_TRUE(m.ok()) << m.status();
      tensors[arg.name].push_back(m->tensor);
    }
  }
  absl::StatusOr<c10::OperatorHandle> op = FindOperator(spec.op, spec.overload);
  EXPECT_TRUE(op.ok()) << op.status();
  absl::StatusOr<CallResult> r = Invoke(*op, c, tensors);
  EXPECT_TRUE(r.ok()) << r.status();
  return *r;
}

TEST(CuratedOpsTest, EverySchemaExists) {
  for (const OpSpec& spec : CuratedOps()) {
    EXPECT_TRUE(FindOperator(spec.op, spec.overload).ok()) << spec.op;
    if (!spec.out_overload.empty()) {
      EXPECT_TRUE(FindOperator(spec.op, spec.out_overload).ok())
          << spec.op << "." << spec.out_overload;
    }
    if (spec.has_inplace) {
      EXPECT_TRUE(FindOperator(spec.op + "_", spec.overload).ok())
          << spec.op << "_." << spec.overload;
    }
  }
}

TEST(CuratedOpsTest, ArgumentsAreAcceptedOnContiguousInputs) {
  std::set<std::string> families;
  for (const OpSpec& spec : CuratedOps()) {
    families.insert(spec.family);
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
  EXPECT_GE(CuratedOps().size(), 1u);
}

}  // namespace
}  // namespace dpfuzz
