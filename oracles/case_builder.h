// BuildCase: a complete, runnable case for one curated op.
//
// Draws the op's logical arguments (OpSpec::make_args), probes them on a
// contiguous baseline (an argument set the op itself rejects is no case),
// then adds what the variant needs from the probe's outputs: out= tensors
// of the output's sizes and dtype, grad_outputs for differentiable floating
// outputs. Finally every tensor argument may get a generated layout (at
// least one does): inputs any layout, written tensors only layouts without
// self-overlap (Note [Rule table]). Out= and in-place cases sometimes share
// memory between a written tensor and an input (Case::aliases). Every
// tensor is on BuildOptions::device.
//
//   absl::StatusOr<std::optional<Case>> c =
//       BuildCase(*FindCuratedOp("add"), DType::kFloat32, Variant::kOut, 7);
//
// Deterministic in (spec, dtype, variant, seed).

#ifndef DPFUZZ_ORACLES_CASE_BUILDER_H_
#define DPFUZZ_ORACLES_CASE_BUILDER_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "generators/op_spec.h"
#include "generators/rng.h"
#include "oracles/baseline_run.h"

namespace dpfuzz {

struct BuildOptions {
  int layout_one_in = 4;   // A tensor keeps its contiguous layout 1 in N.
  int alias_one_in = 8;    // Out= and in-place cases alias 1 in N; 0: never.
  bool check_grad = true;  // Differentiable ops get grad_outputs.
  // Where every tensor of the case lives; probes run there too.
  Device device = Device::kCpu;
  // Called before each probe runs the op, with the case that probe runs
  // (functional, as far as it is built): a worker that may die in the probe
  // records it first.
  std::function<void(const Case&)> before_probe;
};

// nullopt when the drawn arguments are invalid for the op itself;
// FailedPrecondition for a spec whose arguments only seeds give
// (OpSpec::seeds_only: the worker's seeded spec replaces its make_args).
absl::StatusOr<std::optional<Case>> BuildCase(const OpSpec& spec, DType dtype,
                                              Variant variant, uint64_t seed,
                                              const BuildOptions& options = {});

// The same, its choices drawn from `rng` (a choice stream, Note [Choice
// streams]); `seed` is only recorded in the case.
absl::StatusOr<std::optional<Case>> BuildCase(const OpSpec& spec, DType dtype,
                                              Variant variant, uint64_t seed,
                                              Rng& rng,
                                              const BuildOptions& options);

// A built case and, when BuildCase's probe ran this very case, that run
// (oracles/baseline_run.h), for RunCase to take over.
struct BuiltCase {
  Case c;
  std::optional<BaselineRun> baseline_run;
};

// BuildCase, keeping the probe's run where it is the case's baseline run.
// The same case as BuildCase's for the same arguments.
absl::StatusOr<std::optional<BuiltCase>> BuildCaseWithBaseline(
    const OpSpec& spec, DType dtype, Variant variant, uint64_t seed,
    const BuildOptions& options = {});
absl::StatusOr<std::optional<BuiltCase>> BuildCaseWithBaseline(
    const OpSpec& spec, DType dtype, Variant variant, uint64_t seed, Rng& rng,
    const BuildOptions& options);

// Gives each grad_output of `c` the sizes of the result it differentiates,
// as BuildCase made them: a case whose inputs were resized (a reducer's
// candidate) may change its results' shapes by more than any size tie
// tells (masked_select's result has as many elements as its mask selects),
// and autograd rejects a grad_output of another shape. Each keeps its
// values recipe, offset and dim order. True when one changed; false too
// when the baseline's call fails (the case's run judges that).
absl::StatusOr<bool> FitGradOutputs(const OpSpec& spec, Case& c);

// The variants `spec` supports: functional, then out and inplace if any.
std::vector<Variant> VariantsOf(const OpSpec& spec);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_CASE_BUILDER_H_
