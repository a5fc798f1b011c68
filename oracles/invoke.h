// Invoke: calling one ATen schema through the dispatcher, with arguments
// taken by name from a Case.
//
// This is the one place where dpfuzz calls an operator, and so the one
// place where LibTorch's exceptions are caught and classified (STYLE.md,
// Errors): a TORCH_CHECK rejection is data (kRejected), an "INTERNAL ASSERT
// FAILED" is a finding (kInternalAssert). Calls go through the boxed
// dispatcher, so autograd, out= and in-place schemas, and operators loaded
// from other libraries are all called the same way.
//
//   absl::StatusOr<c10::OperatorHandle> op = FindOperator("aten::add",
//   "Tensor"); NamedTensors tensors = {{"self", a}, {"other", b}};
//   absl::StatusOr<CallResult> r = Invoke(*op, c, tensors);

#ifndef DPFUZZ_ORACLES_INVOKE_H_
#define DPFUZZ_ORACLES_INVOKE_H_

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/case.h"

namespace dpfuzz {

enum class CallOutcome : uint8_t {
  kOk,              // Returned normally.
  kRejected,        // Threw an ordinary error (TORCH_CHECK and friends).
  kInternalAssert,  // Threw "INTERNAL ASSERT FAILED": always a bug.
};

struct CallResult {
  CallOutcome outcome = CallOutcome::kOk;
  std::string error;                // The message, without backtrace.
  std::vector<at::Tensor> outputs;  // Returned tensors, lists flattened;
                                    // returned numbers as 0-dim tensors.
  // The layout of a sparse or compressed result Invoke densified
  // ("Sparse"); "" when none was.
  std::string densified;
};

// Tensors for a call, by schema argument name; a Tensor[] argument holds
// several.
using NamedTensors = std::map<std::string, std::vector<at::Tensor>>;

// The operator `name`.`overload` ("" for the default overload), or an error
// saying that it is not registered.
absl::StatusOr<c10::OperatorHandle> FindOperator(const std::string& name,
                                                 const std::string& overload);

// Calls `op`, taking each schema argument from `tensors` (tensor arguments)
// or `c` (every other argument, by name), else from the schema's default.
// Sparse and compressed results come back densified (to_dense, in the
// call: an error there is the op's).
// An error status means the case does not fit the schema (a dpfuzz or case
// file problem), never that the op failed: that is CallResult::outcome.
absl::StatusOr<CallResult> Invoke(const c10::OperatorHandle& op, const Case& c,
                                  const NamedTensors& tensors);

// Runs `body`, which calls LibTorch and appends what it returns to the
// outputs, and classifies any exception it throws. Invoke and backward
// (oracles/backward.h) call ops only through this. On CUDA it waits for
// the kernels `body` queued, and dies in the call if they lost the device
// (oracles/device_sync.h).
CallResult CallGuarded(
    Device device,
    const std::function<void(std::vector<at::Tensor>& outputs)>& body);

// Makes every c10::Error thrown from now on, in the whole process, skip
// its C++ backtrace. Most drawn argument sets are rejected with an error,
// LibTorch 1.13 symbolizes a backtrace for each one (most of the time of a
// rejected call), and dpfuzz reads only what_without_backtrace(). Every
// program that runs cases calls it once before the first: the worker, the
// libFuzzer target, the engine bench.
void SkipErrorBacktraces();

// Names of the arguments `op` writes (alias annotation "!"): "out" for
// add.out, "self" for add_.
std::vector<std::string> WrittenArguments(const c10::OperatorHandle& op);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_INVOKE_H_
