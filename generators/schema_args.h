// Arguments drawn from an operator's schema, for ops without a curated
// spec (generators/schema_spec.h).
//
// A draw starts with a SchemaPlan, the choices that decide whether an op
// accepts its arguments at all: the rank of the tensors and how their
// shapes relate. The plan is the first thing drawn from the case's Rng, so
// PlanOfSeed(seed) tells, without building the case, which plan a seed
// gives: a campaign learns which plans an op accepts (fuzz/op_knowledge.h)
// and prefers seeds whose plans worked, while every case stays
// reproducible from its seed.
//
// Then each schema argument in order: tensors of the plan's shapes (index
// and mask arguments, known by name, get int64 indices and bool masks),
// ints that are valid dims when named like one, int lists shaped like
// sizes, dims or kernel parameters as named, small floats and Scalars,
// dtypes, memory formats, and strings from PyTorch's known choices for
// that argument name. An argument with a default, or optional, is left out
// (its default used) half the time.
//
//   Rng rng(seed);
//   absl::StatusOr<std::vector<Argument>> args =
//       DrawSchemaArgs(schema, DType::kFloat32, rng);

#ifndef DPFUZZ_GENERATORS_SCHEMA_ARGS_H_
#define DPFUZZ_GENERATORS_SCHEMA_ARGS_H_

#include <ATen/core/function_schema.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "generators/dtype.h"
#include "generators/rng.h"

namespace dpfuzz {

enum class ShapeRelation : uint8_t {
  kSame,         // Every tensor has the first one's shape.
  kBroadcast,    // The others broadcast to the first.
  kScalars,      // The others are 0-dim.
  kIndependent,  // Each its own shape of the plan's rank.
  kSquare,       // Every dim of every tensor one size n; the others of
                 // rank one less, equal or one more (matrix-vector,
                 // square matrices, conv weights).
};
inline constexpr int kShapeRelations = 5;
inline constexpr int kMaxPlanRank = 5;

struct SchemaPlan {
  int rank = 1;  // Of the first tensor; 0 to kMaxPlanRank.
  ShapeRelation relation = ShapeRelation::kSame;

  // "r2/same": a key to count outcomes by.
  std::string Key() const;
};

// The plan drawn first from `rng`.
SchemaPlan DrawPlan(Rng& rng);
SchemaPlan PlanOfSeed(uint64_t seed);

// The element type of an optional type ("Tensor?" -> "Tensor"); others
// as they are.
c10::TypePtr Unwrapped(const c10::TypePtr& type);

// Whether a case may leave `arg` out: it has a default or is optional.
bool MayLeaveOut(const c10::Argument& arg);

// True for Tensor, Tensor?, Tensor[] and Tensor?[].
bool IsTensorLike(const c10::TypePtr& type);

// Why an argument that names dims (a Dimname, spelled str in schemas:
// all.dimname's dim) is not drawn.
inline constexpr char kNamesDimensions[] =
    "names dimensions: named tensors are experimental in PyTorch, and "
    "torch.ops, which repro.py calls ops through, refuses them";

// Why `schema`'s arguments cannot be drawn ("argument p of type str is not
// generated"), or "" when they can.
std::string UndrawableReason(const c10::FunctionSchema& schema);

// Why no case file can hold `schema`'s arguments, or "" when one can: the
// reason above for an argument other than a str (a case holds a str that
// was recorded, generators/seed_corpus.h; no named tensors, whose
// dimension names schemas spell str too).
std::string UnrecordableReason(const c10::FunctionSchema& schema);

// The arguments of one case, named as in the schema; written (alias "!")
// arguments are left to the engine, but for `draw_written` (an op that
// exists only in place: its self is drawn as an input). An error when
// UndrawableReason is not empty.
absl::StatusOr<std::vector<Argument>> DrawSchemaArgs(
    const c10::FunctionSchema& schema, DType dtype, Rng& rng,
    bool draw_written = false);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_SCHEMA_ARGS_H_
