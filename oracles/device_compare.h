// The CPU-vs-CUDA oracle: does the contiguous baseline give on CUDA what
// the same call gives on the CPU?
//
// An op's CPU and CUDA kernels are different programs, and PyTorch makes
// them agree only on what the op computes, so what differs between them by
// design is left out (Note [Device differences by design] in
// device_compare.cc): ops that return no tensor, outputs of another shape
// or dtype on each device, outputs equal up to sign.
//
//   CompareDevices(op, c, cuda_results, on_cpu, written,
//                  [&](const CallResults& cpu, const CallResults& cuda) {
//                    return CompareResults(...);  // as layouts are compared
//                  });

#ifndef DPFUZZ_ORACLES_DEVICE_COMPARE_H_
#define DPFUZZ_ORACLES_DEVICE_COMPARE_H_

#include <ATen/core/dispatch/Dispatcher.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "generators/case.h"
#include "oracles/call_results.h"
#include "oracles/case_tensors.h"
#include "oracles/run_case.h"

namespace dpfuzz {

// The case's call on `on_cpu` (the baseline's values on the CPU) against
// `on_device`, the CUDA baseline's results, compared by `compare` (the
// comparison layouts get, per-dtype tolerances and the rule table) without
// what differs by design: a device_mismatch outcome, or nullopt when they
// agree. Judged only when both calls return: an op may lack a kernel for a
// dtype on one device, and which errors each device raises is not a layout
// question. An error status is a case that does not fit the op.
absl::StatusOr<std::optional<CaseOutcome>> CompareDevices(
    const c10::OperatorHandle& op, const Case& c, CallResults on_device,
    const CaseTensors& on_cpu, const std::vector<std::string>& written,
    const std::function<std::optional<CaseOutcome>(
        const CallResults& cpu, const CallResults& device)>& compare);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_DEVICE_COMPARE_H_
