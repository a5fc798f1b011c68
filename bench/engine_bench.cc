// Throughput of the engine, and its overhead over the ATen calls it makes.
//
//   build/default/bench/dpfuzz_engine_bench
//
// For each op, 512 cases (tensors of at most 64 elements) are built once.
// BM_RunCase/<op>: RunCase on each case alone, as a replay runs it
//   (materialize variant and baseline, call both, run every oracle).
// BM_BuildAndRunCase/<op>: BuildCaseWithBaseline + RunCase, as a worker
//   does: the whole per-case cost.
// BM_RawCalls/<op>: only the two op calls a case makes (baseline and
//   variant), through the dispatcher, on tensors made in advance.
// BM_FreshTensors/<op>: the same calls on tensors made per call, as any
//   differential check must: the floor of the engine's cost.
// BM_CampaignDraws/<op>: what one worker of `dpfuzz --op=<op> --grad=false
//   --alias=false --seeds=` does in process: draws as a campaign does (any
//   dtype and variant, no size limit), builds and runs; an invalid draw
//   costs its time but is no case (items are cases, as the campaign counts
//   them). The campaign's cases/s over this one's is what the worker
//   pipeline costs.
// cases/s is items_per_second; the overhead ratio is
// RunCase time / RawCalls time, its floor FreshTensors time / RawCalls
// time. Errors skip their C++ backtrace, as in a campaign's worker.
// DPFUZZ_BENCH_ITERATIONS=N runs every benchmark exactly N iterations;
// under callgrind each benchmark's loop is then dumped as a part of its
// own, named for the benchmark (bench/instructions.sh: instructions per
// case).

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "crashes/bugs/findings_store.h"
#include "generators/op_registry.h"
#include "generators/rng.h"
#include "oracles/case_builder.h"
#include "oracles/case_tensors.h"
#include "oracles/invoke.h"
#include "oracles/run_case.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define DPFUZZ_LOOP_START() CALLGRIND_ZERO_STATS
// Dumps the part as "BM_<benchmark>/<op>/".
#define DPFUZZ_LOOP_END(op)                                            \
  do {                                                                 \
    const std::string part = std::string(__func__) + "/" + (op) + "/"; \
    CALLGRIND_DUMP_STATS_AT(part.c_str());                             \
  } while (false)
#else  // No counts without valgrind's headers; the times are the same.
#define DPFUZZ_LOOP_START()
#define DPFUZZ_LOOP_END(op) static_cast<void>(op)
#endif

namespace dpfuzz {
namespace {

constexpr int kCases = 512;
constexpr int64_t kMaxElements = 64;

struct Built {
  const OpSpec* spec;
  std::vector<Case> cases;
  std::vector<uint64_t> seeds;
  std::vector<DType> dtypes;
  std::vector<Variant> variants;
};

const Built& CasesFor(const std::string& name) {
  static auto* cache = new std::map<std::string, Built>;
  auto it = cache->find(name);
  if (it != cache->end()) return it->second;
  Built b;
  b.spec = FindCuratedOp(name);
  Rng rng(123);
  while (static_cast<int>(b.cases.size()) < kCases) {
    const DType dtype = rng.Pick(b.spec->dtypes);
    const Variant variant = rng.Pick(VariantsOf(*b.spec));
    const uint64_t seed = rng.Next();
    BuildOptions options;
    options.check_grad = false;  // Forward only: the calls below compare.
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(*b.spec, dtype, variant, seed, options);
    if (!c.ok() || !c->has_value() || CaseSize(**c) > kMaxElements) continue;
    b.cases.push_back(**c);
    b.seeds.push_back(seed);
    b.dtypes.push_back(dtype);
    b.variants.push_back(variant);
  }
  return cache->emplace(name, std::move(b)).first->second;
}

void BM_RunCase(benchmark::State& state, const std::string& name) {
  const Built& b = CasesFor(name);
  size_t i = 0;
  DPFUZZ_LOOP_START();
  for (auto _ : state) {
    benchmark::DoNotOptimize(RunCase(*b.spec, b.cases[i++ % b.cases.size()]));
  }
  DPFUZZ_LOOP_END(name);
  state.SetItemsProcessed(state.iterations());
}

void BM_BuildAndRunCase(benchmark::State& state, const std::string& name) {
  const Built& b = CasesFor(name);
  BuildOptions options;
  options.check_grad = false;
  size_t i = 0;
  DPFUZZ_LOOP_START();
  for (auto _ : state) {
    const size_t k = i++ % b.cases.size();
    absl::StatusOr<std::optional<BuiltCase>> c = BuildCaseWithBaseline(
        *b.spec, b.dtypes[k], b.variants[k], b.seeds[k], options);
    benchmark::DoNotOptimize(
        RunCase(*b.spec, (*c)->c, std::move((*c)->baseline_run)));
  }
  DPFUZZ_LOOP_END(name);
  state.SetItemsProcessed(state.iterations());
}

// Each case's operator and its baseline and variant tensors, made once.
struct Prepared {
  c10::OperatorHandle op;
  NamedTensors baseline;
  NamedTensors variant;
};

std::vector<Prepared> Prepare(const Built& b) {
  std::vector<Prepared> prepared;
  for (const Case& c : b.cases) {
    CaseTensors v = *MaterializeVariant(c);
    CaseTensors base = MaterializeBaseline(v);
    prepared.push_back({*OperatorFor(*b.spec, c.variant), base.args, v.args});
  }
  return prepared;
}

void BM_RawCalls(benchmark::State& state, const std::string& name) {
  const Built& b = CasesFor(name);
  const std::vector<Prepared> prepared = Prepare(b);
  size_t i = 0;
  DPFUZZ_LOOP_START();
  for (auto _ : state) {
    const size_t k = i++ % prepared.size();
    benchmark::DoNotOptimize(
        Invoke(prepared[k].op, b.cases[k], prepared[k].baseline));
    benchmark::DoNotOptimize(
        Invoke(prepared[k].op, b.cases[k], prepared[k].variant));
  }
  DPFUZZ_LOOP_END(name);
  state.SetItemsProcessed(state.iterations());
}

// The floor of engine/raw for any differential check that builds its
// tensors per case: RawCalls plus, for each tensor of both calls, a fresh
// copy (a new storage holding its storage's bytes, one memcpy, and its
// geometry over it), neither poisoned nor compared nor checked. An op
// whose FreshTensors / RawCalls is above a target ratio cannot meet it.
void BM_FreshTensors(benchmark::State& state, const std::string& name) {
  const Built& b = CasesFor(name);
  const std::vector<Prepared> prepared = Prepare(b);
  const auto fresh = [](const NamedTensors& like) {
    NamedTensors out;
    for (const auto& [name, tensors] : like) {
      for (const at::Tensor& t : tensors) {
        const int64_t bytes = static_cast<int64_t>(t.storage().nbytes());
        at::Tensor storage = at::empty({bytes / t.element_size()}, t.options());
        std::memcpy(storage.data_ptr(), t.storage().data(), bytes);
        out[name].push_back(
            storage.as_strided(t.sizes(), t.strides(), t.storage_offset()));
      }
    }
    return out;
  };
  size_t i = 0;
  DPFUZZ_LOOP_START();
  for (auto _ : state) {
    const size_t k = i++ % prepared.size();
    benchmark::DoNotOptimize(
        Invoke(prepared[k].op, b.cases[k], fresh(prepared[k].baseline)));
    benchmark::DoNotOptimize(
        Invoke(prepared[k].op, b.cases[k], fresh(prepared[k].variant)));
  }
  DPFUZZ_LOOP_END(name);
  state.SetItemsProcessed(state.iterations());
}

void BM_CampaignDraws(benchmark::State& state, const std::string& name) {
  const OpSpec& spec = *FindCuratedOp(name);
  const std::vector<Variant> variants = VariantsOf(spec);
  BuildOptions options;
  options.check_grad = false;
  options.alias_one_in = 0;
  Rng rng(1);
  int64_t cases = 0;
  DPFUZZ_LOOP_START();
  for (auto _ : state) {
    const DType dtype = rng.Pick(spec.dtypes);
    const Variant variant = rng.Pick(variants);
    absl::StatusOr<std::optional<BuiltCase>> c =
        BuildCaseWithBaseline(spec, dtype, variant, rng.Next(), options);
    if (!c.ok() || !c->has_value()) continue;
    benchmark::DoNotOptimize(
        RunCase(spec, (*c)->c, std::move((*c)->baseline_run)));
    ++cases;
  }
  DPFUZZ_LOOP_END(name);
  state.SetItemsProcessed(cases);
}

void RegisterAll() {
  SkipErrorBacktraces();  // As a campaign's worker runs cases.
  const char* fixed = std::getenv("DPFUZZ_BENCH_ITERATIONS");
  const benchmark::IterationCount iterations =
      fixed == nullptr ? 0 : std::strtoll(fixed, nullptr, 10);
  using Body = void (*)(benchmark::State&, const std::string&);
  const std::pair<const char*, Body> benchmarks[] = {
      {"BM_RunCase/", BM_RunCase},
      {"BM_BuildAndRunCase/", BM_BuildAndRunCase},
      {"BM_RawCalls/", BM_RawCalls},
      {"BM_FreshTensors/", BM_FreshTensors},
      {"BM_CampaignDraws/", BM_CampaignDraws}};
  for (const char* name : {"masked_select", "add", "sum", "index_select"}) {
    for (const auto& [prefix, body] : benchmarks) {
      benchmark::internal::Benchmark* b = benchmark::RegisterBenchmark(
          (std::string(prefix) + name).c_str(), body, std::string(name));
      if (iterations > 0) b->Iterations(iterations);
    }
  }
}

const bool registered = (RegisterAll(), true);

}  // namespace
}  // namespace dpfuzz
