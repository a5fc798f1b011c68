#include "generators/op_args.h"

#include <algorithm>
#include <numeric>
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

const std::vector<DType>& FloatingAndComplexDTypes() {
  static const auto* v = new std::vector<DType>(Without(
      AllDTypes(), [](DType d) { return !IsFloating(d) && !IsComplex(d); }));
  return *v;
}

std::vector<DType> Except(std::vector<DType> dtypes,
                          std::initializer_list<DType> drop) {
  dtypes.erase(std::remove_if(dtypes.begin(), dtypes.end(),
                              [&drop](DType d) {
                                return std::find(drop.begin(), drop.end(), d) !=
                                       drop.end();
                              }),
               dtypes.end());
  return dtypes;
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

TensorSpec NestedValues(const std::vector<Dims>& sizes, DType dtype, Rng& rng) {
  TensorSpec spec = Values({1}, dtype, rng);
  spec.layout = StridedLayout{};
  spec.components = ContiguousComponents(sizes);
  return spec;
}

TensorSpec Explicit(const Dims& sizes, std::vector<double> data, DType dtype) {
  ValueRecipe recipe;
  recipe.distribution = Distribution::kExplicit;
  recipe.data = std::move(data);
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

TensorSpec NonNegative(const Dims& sizes, DType dtype, int64_t high, Rng& rng) {
  ValueRecipe recipe;
  recipe.seed = rng.Next();
  recipe.distribution = Distribution::kIndices;
  recipe.high = high;
  return Contiguous(sizes, dtype, recipe);
}

TensorSpec FiniteValues(const Dims& sizes, DType dtype, Rng& rng) {
  ValueRecipe recipe;
  recipe.seed = rng.Next();
  recipe.distribution =
      rng.OneIn(2) ? Distribution::kSmallInt : Distribution::kDyadic;
  return Contiguous(sizes, dtype, recipe);
}

void KeepScaledExact(TensorSpec& spec) {
  if (IsIntegral(spec.dtype) || spec.dtype == DType::kBool) return;
  spec.values.specials &= ~kSpecialDenormal;
  if (spec.values.distribution == Distribution::kWide) {
    spec.values.distribution = Distribution::kDyadic;
  }
}

ArgValue ScalarFor(DType dtype, Rng& rng) {
  if (dtype == DType::kBool) return rng.OneIn(2);
  if (IsIntegral(dtype)) {
    return rng.Uniform(dtype == DType::kUInt8 ? 0 : -4, 4);
  }
  return FloatArg{static_cast<double>(rng.Uniform(-16, 16)) / 4.0};
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

Dims RandomDims(Rng& rng, int64_t rank, bool allow_none) {
  Dims dims(rank);
  std::iota(dims.begin(), dims.end(), 0);
  for (int64_t i = rank - 1; i > 0; --i) {
    std::swap(dims[i], dims[rng.Uniform(0, i)]);
  }
  const int64_t count = allow_none && rng.OneIn(6) ? 0
                        : rank == 0                ? 1
                                                   : rng.Uniform(1, rank);
  dims.resize(count, 0);  // Rank 0 takes dim 0 (or -1).
  for (int64_t& dim : dims) {
    if (rng.OneIn(2)) dim -= std::max<int64_t>(rank, 1);
  }
  return dims;
}

int64_t WrapDim(int64_t dim, int64_t rank) {
  if (rank == 0) return 0;
  return dim < 0 ? dim + rank : dim;
}

int64_t SizeAt(const Dims& sizes, int64_t dim) {
  if (sizes.empty()) return 1;
  return sizes[WrapDim(dim, static_cast<int64_t>(sizes.size()))];
}

Argument Arg(std::string name, ArgValue value) {
  return Argument{std::move(name), std::move(value)};
}

}  // namespace dpfuzz
