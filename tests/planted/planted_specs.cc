#include "tests/planted/planted_specs.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "generators/op_args.h"

namespace dpfuzz {
namespace {

// A unary op on one float tensor of rank min_rank..4.
PlantedOp Unary(const std::string& name, Verdict expected, int min_rank = 0) {
  OpSpec spec;
  spec.op = "planted::" + name;
  spec.family = "planted";
  spec.dtypes = {DType::kFloat32};
  spec.make_args = [min_rank](Rng& rng, DType dtype) {
    return std::vector<Argument>{Arg(
        "self", Values(RandomShape(rng, min_rank, 4, 4, false), dtype, rng))};
  };
  return PlantedOp{spec, expected};
}

// A nested spec: one nested float tensor of ragged components.
PlantedOp NestedUnary(const std::string& name, Verdict expected) {
  OpSpec spec;
  spec.op = "planted_nested::" + name;
  spec.family = "planted";
  spec.dtypes = {DType::kFloat32};
  spec.nested = true;
  spec.nested_reference = NestedReference::kPerComponent;
  spec.make_args = [](Rng& rng, DType dtype) {
    return std::vector<Argument>{Arg(
        "self", NestedValues(GenerateComponentSizes(rng.Uniform(1, 3), {}, rng),
                             dtype, rng))};
  };
  return PlantedOp{spec, expected};
}

}  // namespace

const std::vector<PlantedOp>& PlantedNestedOps() {
  static const auto* ops = new std::vector<PlantedOp>{
      NestedUnary("buffer_relu", Verdict::kMismatch),
      NestedUnary("good_relu", Verdict::kAgree),
  };
  return *ops;
}

const std::vector<PlantedOp>& PlantedOps() {
  static const auto* ops = [] {
    auto* v = new std::vector<PlantedOp>;
    v->push_back(Unary("cl_scramble", Verdict::kMismatch, 4));
    v->push_back(Unary("flat_neg", Verdict::kNanIntroduced));
    v->push_back(Unary("picky_neg", Verdict::kRejectionMismatch));
    v->push_back(Unary("asserting_neg", Verdict::kInternalAssert));
    v->push_back(Unary("sneaky_neg", Verdict::kInputModified));
    PlantedOp fill = Unary("flat_fill_one", Verdict::kOutsideWrite);
    fill.spec.has_inplace = true;
    v->push_back(fill);
    PlantedOp realloc = Unary("realloc_neg", Verdict::kLayoutContract);
    realloc.spec.out_overload = "out";
    v->push_back(realloc);
    PlantedOp grad = Unary("bad_grad_double", Verdict::kGradMismatch);
    grad.spec.differentiable = true;
    grad.spec.comparison = Comparison::kTolerance;
    v->push_back(grad);
    // Both keep their input's memory format by their specs; one does not.
    PlantedOp dropped = Unary("cl_drop_neg", Verdict::kLayoutContract, 4);
    dropped.spec.rules = kRuleKeepsMemoryFormat;
    v->push_back(dropped);
    PlantedOp kept = Unary("cl_keep_neg", Verdict::kAgree, 4);
    kept.spec.rules = kRuleKeepsMemoryFormat | kRulePropagatesStrides;
    v->push_back(kept);
    PlantedOp good = Unary("good_neg", Verdict::kAgree);
    good.spec.out_overload = "out";
    good.spec.has_inplace = true;
    good.spec.rules = kRulePropagatesStrides;
    v->push_back(good);
    return v;
  }();
  return *ops;
}

const std::vector<PlantedOp>& PlantedCostOps() {
  static const auto* ops = [] {
    auto* v = new std::vector<PlantedOp>;
    for (const auto& [name, verdict] :
         {std::pair{"leaky_neg", Verdict::kLeak},
          std::pair{"bloated_neg", Verdict::kMemoryAmplification},
          std::pair{"slow_strided_neg", Verdict::kPerfCliff},
          std::pair{"bounded_slow_neg", Verdict::kAgree},
          std::pair{"cached_neg", Verdict::kAgree},
          std::pair{"copying_neg", Verdict::kAgree},
          std::pair{"materializing_neg", Verdict::kAgree}}) {
      PlantedOp op = Unary(name, verdict);
      op.spec.op = absl::StrCat("planted_cost::", name);
      v->push_back(op);
    }
    return v;
  }();
  return *ops;
}

const std::vector<PlantedOp>& PlantedDeathOps() {
  static const auto* ops = new std::vector<PlantedOp>{
      Unary("segv_neg", Verdict::kCrash),
      Unary("abort_neg", Verdict::kCrash),
      Unary("hang_neg", Verdict::kTimeout),
      Unary("hog_neg", Verdict::kOom),
  };
  return *ops;
}

const std::vector<PlantedOp>& PlantedCudaOps() {
  static const auto* ops = new std::vector<PlantedOp>{
      Unary("device_skew", Verdict::kDeviceMismatch),
      Unary("device_assert_neg", Verdict::kCrash),
  };
  return *ops;
}

const std::vector<PlantedOp>& PlantedInternalErrorOps() {
  static const auto* ops = new std::vector<PlantedOp>{
      Unary("meta_neg", Verdict::kAgree),
      Unary("dangling_neg", Verdict::kAgree),
  };
  return *ops;
}

const std::vector<ClassOp>& PlantedClassOps() {
  static const auto* ops = [] {
    auto* v = new std::vector<ClassOp>;
    for (const char* name :
         {"contig_out_neg", "contig_out_abs", "contig_out_double"}) {
      OpSpec spec = Unary(name, Verdict::kMismatch).spec;
      spec.op = absl::StrCat("planted_class::", name);
      spec.out_overload = "out";
      v->push_back({spec, Variant::kOut, "writes_as_contiguous"});
    }
    OpSpec unwritten = Unary("unwritten_neg", Verdict::kMismatch).spec;
    unwritten.op = "planted_class::unwritten_neg";
    unwritten.out_overload = "out";
    v->push_back({unwritten, Variant::kOut, "leaves_unwritten"});
    for (const char* name : {"memory_order_neg", "memory_order_double"}) {
      OpSpec spec = Unary(name, Verdict::kMismatch).spec;
      spec.op = absl::StrCat("planted_class::", name);
      v->push_back({spec, Variant::kFunctional, "reads_as_contiguous"});
    }
    OpSpec blind = Unary("offset_blind_neg", Verdict::kMismatch).spec;
    blind.op = "planted_class::offset_blind_neg";
    v->push_back({blind, Variant::kFunctional, "reads_ignoring_offset"});
    OpSpec walk = Unary("memory_walk_cumsum", Verdict::kMismatch).spec;
    walk.op = "planted_class::memory_walk_cumsum";
    v->push_back({walk, Variant::kFunctional, "walks_in_memory_order"});
    OpSpec skewed = Unary("skewed_neg", Verdict::kMismatch).spec;
    skewed.op = "planted_class::skewed_neg";
    v->push_back({skewed, Variant::kFunctional, ""});
    return v;
  }();
  return *ops;
}

const std::vector<PlantedOp>& PlantedUnstableOps() {
  static const auto* ops = [] {
    auto* v = new std::vector<PlantedOp>;
    for (const char* name : {"step_at_zero", "tail_garbage", "write_past_end",
                             "nan_to_zero_contiguous"}) {
      PlantedOp op = Unary(name, Verdict::kMismatch);
      op.spec.op = absl::StrCat("planted_unstable::", name);
      op.spec.rules = kRuleCheckDeterminism;
      v->push_back(op);
    }
    return v;
  }();
  return *ops;
}

std::vector<OpSpec> AllPlantedSpecs() {
  std::vector<OpSpec> specs;
  for (const PlantedOp& p : PlantedOps()) specs.push_back(p.spec);
  for (const PlantedOp& p : PlantedNestedOps()) specs.push_back(p.spec);
  for (const PlantedOp& p : PlantedDeathOps()) specs.push_back(p.spec);
  for (const PlantedOp& p : PlantedCudaOps()) specs.push_back(p.spec);
  for (const PlantedOp& p : PlantedInternalErrorOps()) {
    specs.push_back(p.spec);
  }
  for (const ClassOp& p : PlantedClassOps()) specs.push_back(p.spec);
  for (const PlantedOp& p : PlantedUnstableOps()) specs.push_back(p.spec);
  for (const PlantedOp& p : PlantedCostOps()) specs.push_back(p.spec);
  return specs;
}

}  // namespace dpfuzz
