#include "oracles/device_compare.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "generators/schema_args.h"
#include "oracles/compare.h"

namespace dpfuzz {
namespace {

// Note [Device differences by design]
// An op's CPU and CUDA kernels are different programs, and PyTorch makes
// them agree only on what the op computes. The CPU-vs-CUDA oracle leaves
// out what differs between them by design:
// - an op that returns no tensor (an int, a bool: _version, is_pinned,
//   cudnn_is_acceptable) answers a question about the tensor or the
//   device, not about its values;
// - an output of another shape or dtype on each device: workspaces, saved
//   statistics and outputs not asked for (log_sigmoid_forward's buffer,
//   batch norm's save_mean, unique's inverse without return_inverse) are
//   allocated as each kernel needs;
// - an output equal up to sign: singular vectors and eigenvectors are
//   defined up to sign, and each device's solver picks its own.
// Other value differences are findings; where they are only in an output
// after the first, the bug is low confidence (crashes/bugs/confidence.h).
bool ReturnsTensors(const c10::OperatorHandle& op) {
  for (const c10::Argument& r : op.schema().returns()) {
    if (IsTensorLike(r.real_type())) return true;
  }
  return false;
}

// `cpu` and `device` with every output pair of another shape or dtype on
// each device undefined on both sides (Note [Device differences by
// design]).
void LeaveOutOtherShapes(CallResults& cpu, CallResults& device) {
  for (size_t i = 0; i < cpu.tensors.size() && i < device.tensors.size(); ++i) {
    at::Tensor& a = cpu.tensors[i];
    at::Tensor& b = device.tensors[i];
    if (a.defined() && b.defined() && !a.is_nested() && !b.is_nested() &&
        (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type())) {
      a = b = at::Tensor();
    }
  }
}

// The index of the output named `where` whose two sides agree up to sign
// (floating, strided), or nullopt: that difference is by design.
std::optional<size_t> EqualUpToSign(const CallResults& cpu,
                                    const CallResults& device,
                                    const std::string& where) {
  for (size_t i = 0; i < cpu.names.size() && i < device.tensors.size(); ++i) {
    const at::Tensor& a = cpu.tensors[i];
    const at::Tensor& b = device.tensors[i];
    if (cpu.names[i] != where || !a.defined() || !b.defined() ||
        a.is_nested() || !at::isFloatingType(a.scalar_type()) ||
        a.layout() != at::kStrided || b.layout() != at::kStrided) {
      continue;
    }
    if (!CompareValues(a.detach().abs(), b.detach().cpu().abs(),
                       Comparison::kTolerance)
             .has_value()) {
      return i;
    }
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::optional<CaseOutcome>> CompareDevices(
    const c10::OperatorHandle& op, const Case& c, CallResults on_device,
    const CaseTensors& on_cpu, const std::vector<std::string>& written,
    const std::function<std::optional<CaseOutcome>(
        const CallResults& cpu, const CallResults& device)>& compare) {
  if (!ReturnsTensors(op)) return std::optional<CaseOutcome>();
  DPFUZZ_ASSIGN_OR_RETURN(CallResult cpu, Invoke(op, c, on_cpu.args));
  if (cpu.outcome != CallOutcome::kOk) return std::optional<CaseOutcome>();
  CallResults cpu_results = ResultsOf(cpu, on_cpu.args, written);
  LeaveOutOtherShapes(cpu_results, on_device);
  std::optional<CaseOutcome> diff;
  // Compared again without each output found to differ only in sign: the
  // extra comparison only where a difference was found.
  for (;;) {
    diff = compare(cpu_results, on_device);
    const std::optional<size_t> sign =
        diff.has_value()
            ? EqualUpToSign(cpu_results, on_device, diff->evidence.where)
            : std::nullopt;
    if (!sign.has_value()) break;
    cpu_results.tensors[*sign] = on_device.tensors[*sign] = at::Tensor();
  }
  if (diff.has_value()) {
    diff->verdict = Verdict::kDeviceMismatch;
    diff->evidence.where = absl::StrCat(diff->evidence.where, " on cuda");
    diff->evidence.detail = absl::StrCat(
        "contiguous baseline, CUDA against CPU: ", diff->evidence.detail);
  }
  return diff;
}

}  // namespace dpfuzz
