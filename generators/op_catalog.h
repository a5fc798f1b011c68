// The op catalog: every operator dpfuzz can be pointed at, by name or
// pattern, and what it knows about each.
//
// Names: "aten::add.Tensor" (one overload), "add" or "aten::add" (every
// overload of the op), "myns::myop" (an op of a loaded library), a glob
// over full names ("aten::*_backward", "myns::*"), or "all" (every aten
// overload and every added spec). Curated specs win where they exist;
// other overloads get generic specs (generators/schema_spec.h); the ones
// that cannot be fuzzed are left out of patterns and named in errors. An
// overload with a nested kernel on the device also has a nested entry,
// "nested:aten::sin" (generic unless a curated nested spec has that name),
// which the op's name selects too.
// Ops unsafe by contract (generators/contract_rules.h) are left out of
// "all" and globs, and run when named exactly. The catalog is of one
// device: an op without a kernel for it (cudnn_* on the CPU) is excluded.
//
//   absl::StatusOr<std::vector<const OpSpec*>> ops =
//       ResolveOps("aten::*pool*", Device::kCpu);
//   for (const CatalogEntry& e : Catalog("aten::*", Device::kCuda)) ...

#ifndef DPFUZZ_GENERATORS_OP_CATALOG_H_
#define DPFUZZ_GENERATORS_OP_CATALOG_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "generators/op_spec.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

struct CatalogEntry {
  std::string name;              // "aten::add.Tensor".
  const OpSpec* spec = nullptr;  // nullptr when excluded.
  std::string status;            // "curated", "generic" or "excluded".
  std::string reason;            // Why excluded.
  bool is_private = false;       // "_softmax".
  bool is_random = false;
  bool writes = false;  // Writes its arguments: another op's variant.
  // Has a kernel for dense tensors on the catalog's device (excluded or not).
  bool dense_kernel = false;
};

// Every overload matching `pattern` (a name, a glob or "all" as above),
// and every added spec that matches, sorted by name, as fuzzed on
// `device`.
std::vector<CatalogEntry> Catalog(absl::string_view pattern, Device device);

// The specs `pattern` names; an error naming the pattern when it names no
// op, or names exactly one overload that cannot be fuzzed (with why).
absl::StatusOr<std::vector<const OpSpec*>> ResolveOps(absl::string_view pattern,
                                                      Device device);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_OP_CATALOG_H_
