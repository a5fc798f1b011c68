// CaseTensors: the tensors of one run of a case, and the storages under
// them.
//
// MaterializeVariant builds every tensor argument with the layout its spec
// gives (arguments named in Case::aliases share their base's storage), and
// snapshots each storage so that CheckStorages can later tell exactly which
// elements the op changed. MaterializeBaseline builds the contiguous
// baseline: each argument dense, in a storage of its own, holding the
// logical values the variant's tensor holds before the op runs (for
// overlapping or aliased layouts these are the values read back, not the
// recipe's), on the variant's device or on the CPU (the CPU-vs-CUDA
// oracle). Values are read with dpfuzz's own strided walk and reach a
// device as one dense block (generators/materialize.h).
//
//   absl::StatusOr<CaseTensors> variant = MaterializeVariant(c);
//   CaseTensors baseline = MaterializeBaseline(*variant);
//   CaseTensors on_cpu = MaterializeBaseline(*variant, BaselineDevice::kCpu);
//   ... run the op on both ...
//   std::optional<StorageChange> change = CheckStorages(*variant, {"out"});

#ifndef DPFUZZ_ORACLES_CASE_TENSORS_H_
#define DPFUZZ_ORACLES_CASE_TENSORS_H_

#include <ATen/ATen.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "oracles/invoke.h"
#include "oracles/verdict.h"

namespace dpfuzz {

// One storage and the argument views over it.
struct StorageGroup {
  at::Tensor storage;
  std::vector<std::string> args;  // Argument names (a Tensor[] element is
                                  // "name[i]").
  std::vector<TensorSpec> specs;  // Their specs, in the same order.
  std::vector<uint8_t> before;    // Storage bytes before the op.
};

struct CaseTensors {
  NamedTensors args;
  std::vector<at::Tensor> grad_outputs;
  std::vector<StorageGroup> groups;
};

absl::StatusOr<CaseTensors> MaterializeVariant(const Case& c);

// Where a baseline is built.
enum class BaselineDevice : uint8_t {
  kVariant,  // Each tensor on the device of the variant's tensor.
  kCpu,      // Every tensor on the CPU.
};

CaseTensors MaterializeBaseline(
    const CaseTensors& variant,
    BaselineDevice device = BaselineDevice::kVariant);

// What follows each argument of a tail-filled baseline.
enum class TailFill : uint8_t {
  kPoison,    // The gaps' poison (generators/poison.h): NaN survives 0 * x.
  kSentinel,  // 0x5A bytes (bool: 1): finite, and unlike the freed,
              // poisoned storages a plain baseline may read past its end.
};

// The baseline with each tensor followed in its storage by as many
// elements again (and kTailMargin more) of `fill`: still contiguous at
// offset 0, so a correct op gives the baseline's results on it. One that
// differs reads past the end of an argument: arguments inconsistent with
// each other (a weight shorter than the channels), which the op does not
// check, not a layout bug (Note [Baselines that read outside]).
CaseTensors MaterializeTailFilledBaseline(const CaseTensors& variant,
                                          TailFill fill);

// The arguments of a tail-filled baseline (MaterializeTailFilledBaseline)
// whose tail no longer holds `fill` after a call, among those still of
// the numel and storage they were made with: the op wrote past their end.
std::vector<std::string> ArgumentsWithWrittenTails(const CaseTensors& filled,
                                                   TailFill fill);

// The baseline as the storages' snapshots give it: the values before the
// op ran, contiguous at offset 0, on each variant tensor's device. Unlike
// MaterializeBaseline, right after the variant's call too (an in-place or
// out= call has written the variant's tensors since).
CaseTensors MaterializeBaselineBefore(const CaseTensors& variant);

// The baseline as the storages' snapshots give it (the values before the
// op ran: contiguous, offset 0, on each variant tensor's device), except
// that group member `arg` ("self", "tensors[1]") holds the snapshot's
// elements at `indices`, row-major over its sizes: its storage read some
// other way than its layout says, as a kernel with a layout mistake reads
// it (oracles/mechanism.h); for a nested member, its components' elements
// one after another, as a contiguous nested tensor of its components'
// sizes. Every index lies inside the storage.
CaseTensors MaterializeRereadBaseline(const CaseTensors& variant,
                                      const std::string& arg,
                                      const std::vector<int64_t>& indices);

// Which elements of `group`'s storage differ from its snapshot, over the
// elements it had (a resize may have grown it since: what it added is new
// memory, never poisoned).
std::vector<bool> ChangedElements(const StorageGroup& group);

// An element of a storage that changed where it must not have.
struct StorageChange {
  Verdict verdict;     // kOutsideWrite when the storage holds a written
                       // argument, else kInputModified.
  std::string where;   // "storage of mask"
  std::string detail;  // "storage[5], a gap, changed from nan to 0"
};

// Compares each storage with its snapshot. Elements addressed by an
// argument in `written` may change (and, for one the op resized, those it
// addresses after the call); any other change is reported.
std::optional<StorageChange> CheckStorages(
    const CaseTensors& tensors, const std::set<std::string>& written);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_CASE_TENSORS_H_
