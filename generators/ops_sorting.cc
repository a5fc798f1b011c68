// Curated specs: sorting and selection (sort, argsort, topk, kthvalue,
// median).
//
// These ops return indices that may differ where values tie, hence
// kRuleTiedIndices (except the stable sort). topk is always asked for sorted
// results: with sorted=False the order of its outputs is unspecified.

#include <string>
#include <utility>
#include <vector>

#include "generators/op_args.h"
#include "generators/op_registry.h"

namespace dpfuzz {
namespace {

OpSpec Sorting(std::string op, std::string overload, std::string out,
               std::vector<DType> dtypes, bool differentiable,
               std::function<std::vector<Argument>(Rng&, DType)> make) {
  return OpSpec{.op = std::move(op),
                .overload = std::move(overload),
                .out_overload = std::move(out),
                .family = "sorting",
                .differentiable = differentiable,
                .comparison = Comparison::kExact,
                .rules = kRuleTiedIndices,
                .dtypes = std::move(dtypes),
                .make_args = std::move(make)};
}

// topk, kthvalue and median kernels: no bool, no Half, no complex.
std::vector<DType> SelectionDTypes() {
  return Except(RealDTypes(), {DType::kBool, DType::kFloat16});
}

// self and a dim; `allow_empty` lets the shape have size-0 dims.
std::vector<Argument> SelfAndDim(Rng& rng, DType dtype, bool allow_empty,
                                 int64_t& dim_size) {
  const Dims self = RandomShape(rng, 0, 4, 4, allow_empty);
  const int64_t dim = RandomDim(rng, static_cast<int64_t>(self.size()));
  dim_size = SizeAt(self, dim);
  return {Arg("self", Values(self, dtype, rng)), Arg("dim", dim)};
}

std::vector<Argument> SortArgs(Rng& rng, DType dtype) {
  int64_t size;
  std::vector<Argument> args = SelfAndDim(rng, dtype, true, size);
  if (rng.OneIn(2)) args.push_back(Arg("descending", rng.OneIn(2)));
  return args;
}

std::vector<Argument> StableSortArgs(Rng& rng, DType dtype) {
  std::vector<Argument> args = SortArgs(rng, dtype);
  args.push_back(Arg("stable", true));
  return args;
}

std::vector<Argument> TopkArgs(Rng& rng, DType dtype) {
  int64_t size;
  std::vector<Argument> args = SelfAndDim(rng, dtype, true, size);
  args.push_back(Arg("k", rng.Uniform(0, size)));
  if (rng.OneIn(2)) args.push_back(Arg("largest", rng.OneIn(2)));
  return args;
}

std::vector<Argument> KthvalueArgs(Rng& rng, DType dtype) {
  int64_t size;
  std::vector<Argument> args = SelfAndDim(rng, dtype, false, size);
  args.push_back(Arg("k", rng.Uniform(1, size)));
  if (rng.OneIn(2)) args.push_back(Arg("keepdim", rng.OneIn(2)));
  return args;
}

std::vector<Argument> MedianArgs(Rng& rng, DType dtype) {
  int64_t size;
  std::vector<Argument> args = SelfAndDim(rng, dtype, false, size);
  if (rng.OneIn(2)) args.push_back(Arg("keepdim", rng.OneIn(2)));
  return args;
}

}  // namespace

void AddSortingOps(std::vector<OpSpec>& ops) {
  // The sort kernel has no complex instantiation.
  ops.push_back(
      Sorting("aten::sort", "", "values", RealDTypes(), true, &SortArgs));
  // A stable sort fixes the order of ties, so its indices are compared as
  // they are.
  OpSpec stable = Sorting("aten::sort", "stable", "values_stable", RealDTypes(),
                          true, &StableSortArgs);
  stable.rules = 0;
  ops.push_back(std::move(stable));
  ops.push_back(
      Sorting("aten::argsort", "", "", RealDTypes(), false, &SortArgs));
  ops.push_back(
      Sorting("aten::topk", "", "values", SelectionDTypes(), true, &TopkArgs));
  ops.push_back(Sorting("aten::kthvalue", "", "values", SelectionDTypes(), true,
                        &KthvalueArgs));
  ops.push_back(Sorting("aten::median", "dim", "dim_values", SelectionDTypes(),
                        true, &MedianArgs));
}

}  // namespace dpfuzz
