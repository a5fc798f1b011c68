// Throughput of the layout model: how fast dpfuzz makes inputs.
//
//   build/default/bench/dpfuzz_generators_bench
//
// BM_GenerateLayout: a layout for a random shape (pure geometry).
// BM_MaterializeSmall: a spec of at most 64 elements built as a poisoned
//   strided tensor, the per-argument cost of every case.
// BM_MaterializeVsEmptyStrided: the same tensors by at::empty_strided + a
//   plain copy_, the floor dpfuzz's own byte-level walk is measured against.

#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include "generators/geometry.h"
#include "generators/layout_generator.h"
#include "generators/materialize.h"
#include "generators/rng.h"

namespace dpfuzz {
namespace {

// Non-overlapping specs (copy_ refuses overlapping destinations).
std::vector<TensorSpec> SmallSpecs(int count) {
  Rng rng(1);
  LayoutOptions options;
  options.allow_overlap = false;
  std::vector<TensorSpec> specs;
  while (static_cast<int>(specs.size()) < count) {
    const Dims sizes = GenerateSizes(rng, 4, 4);
    if (ComputeNumel(sizes) > 64) continue;
    specs.push_back(GenerateTensorSpec(sizes, DType::kFloat32, options, rng));
  }
  return specs;
}

void BM_GenerateLayout(benchmark::State& state) {
  Rng rng(7);
  for (auto _ : state) {
    const Dims sizes = GenerateSizes(rng);
    benchmark::DoNotOptimize(GenerateLayout(sizes, DType::kFloat32, {}, rng));
  }
}
BENCHMARK(BM_GenerateLayout);

void BM_MaterializeSmall(benchmark::State& state) {
  const std::vector<TensorSpec> specs = SmallSpecs(256);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(Materialize(specs[i++ % specs.size()]));
  }
}
BENCHMARK(BM_MaterializeSmall);

void BM_MaterializeVsEmptyStrided(benchmark::State& state) {
  const std::vector<TensorSpec> specs = SmallSpecs(256);
  size_t i = 0;
  for (auto _ : state) {
    const TensorSpec& spec = specs[i++ % specs.size()];
    at::Tensor values = at::randn(spec.layout.sizes);
    at::Tensor t = at::empty_strided(spec.layout.sizes, spec.layout.strides);
    benchmark::DoNotOptimize(t.copy_(values));
  }
}
BENCHMARK(BM_MaterializeVsEmptyStrided);

}  // namespace
}  // namespace dpfuzz
