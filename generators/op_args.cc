#include "generators/op_args.h"

#include <algorithm>
#include <utility>

#include "generators/geometry.h"
#include "generators/layout_generator.h"

namespace dpfuzz {
namespace {

std::vector<DType> Without(std::vector<DType> dtypes, bool (*drop)(DType)) {
  dtypes.erase(std::remove_if(dtypes.begin(), dtypes.end(), drop),
               dtypes.end());
  return dtypes;
}

}  // namespace

const std::vector<DType>& FloatingDTypes() {
  static const auto* v = new std::vector<DType>{
      DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64};
  return *v;
}

const std::vector<DType>& NumericDTypes() {
  static const auto* v = new std::vector<DType>(
      Without(AllDTypes(), [](DType d) { return d == DType::kBool; }));
  return *v;
}

const std::vector<DType>& RealDTypes() {
  static const auto* v =
      new std::vector<DType>(Without(AllDTypes(), &IsComplex));
  return *v;
}

const std::vector<DType>& IntegralDTypes() {
  static const auto* v = new std::vector<DType>(
      Without(AllDTypes(), [](DType d) { return !IsIntegral(d); }));
  return *v;
}

TensorSpec Contiguous(const Dims& sizes, DType dtype,
                      const ValueRecipe& values) {
  TensorSpec spec;
  spec.dtype = dtype;
  spec.layout = {sizes, ComputeContiguousStrides(sizes), 0};
  spec.values = values;
  return spec;
}

TensorSpec Values(const Dims& sizes, DType dtype, Rng& rng) {
  ValueRecipe recipe = GenerateValueRecipe(rng);
  // Wide values overflow and lose exactness in most ops; keep them rare.
  if (recipe.distribution == Distribution::kWide && !rng.OneIn(3)) {
    recipe.distribution = Distribution::kDyadic;
  }
  return Contiguous(sizes, dtype, recipe);
}

TensorSpec Indices(const Dims& sizes, int64_t high, Rng& rng, bool unique) {
  ValueRecipe recipe;
  recipe.seed = rng.Next();
  recipe.distribution =
      unique ? Distribution::kUniqueIndices : Distribution::kIndices;
  recipe.high = high;
  return Contiguous(sizes, DType::kInt64, recipe);
}

TensorSpec Mask(const Dims& sizes, Rng& rng) {
  return Contiguous(sizes, DType::kBool,
                    ValueRecipe{rng.Next(), Distribution::kSmallInt, 0, 0});
}

Dims RandomShape(Rng& rng, int min_rank, int max_rank, int64_t max_size,
                 bool allow_empty) {
  Dims sizes(rng.Uniform(min_rank, max_rank));
  for (int64_t& size : sizes) {
    size = allow_empty && rng.OneIn(25) ? 0 : rng.Uniform(1, max_size);
  }
  return sizes;
}

Dims BroadcastPartner(const Dims& sizes, Rng& rng) {
  Dims partner(
      sizes.begin() + rng.Uniform(0, static_cast<int64_t>(sizes.size())),
      sizes.end());
  for (int64_t& size : partner) {
    if (rng.OneIn(3)) size = 1;
  }
  return partner;
}

int64_t RandomDim(Rng& rng, int64_t rank) {
  if (rank == 0) return 0;
  const int64_t dim = rng.Uniform(0, rank - 1);
  return rng.OneIn(2) ? dim : dim - rank;
}

Argument Arg(std::string name, ArgValue value) {
  return Argument{std::move(name), std::move(value)};
}

}  // namespace dpfuzz
