#include "crashes/repro/repro_python_cost.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "oracles/resource_oracles.h"

namespace dpfuzz {
namespace {

constexpr char kHelpers[] = R"py(import timeit


def tensors_of(args):
    """The tensors among a call's arguments."""
    return [t for value in args.values() for t in as_list(value)
            if isinstance(t, torch.Tensor)]


def copy_bytes(args):
    """What contiguous copies of the strided arguments take."""
    return sum(t.numel() * t.element_size() for t in tensors_of(args)
               if not t.is_contiguous())


def memory(function, device):
    """(peak, left) bytes allocated on `device` while `function` runs: the
    most allocated at once and what is still allocated at its end. CUDA:
    the caching allocator's counters; CPU: torch.profiler's memory
    records."""
    if device == "cuda":
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        function()
        torch.cuda.synchronize()
        return (torch.cuda.max_memory_allocated() - before,
                torch.cuda.memory_allocated() - before)
    cpu = torch.profiler.ProfilerActivity.CPU
    with torch.profiler.profile(activities=[cpu], profile_memory=True) as p:
        function()
    records = [e for e in p.profiler.kineto_results.events()
               if e.name() == "[memory]"]
    time = (lambda e: e.start_ns()) if records and hasattr(
        records[0], "start_ns") else (lambda e: e.start_us())
    live = peak = 0
    for e in sorted(records, key=time):
        live += e.nbytes()
        peak = max(peak, live)
    return peak, live


def calls(args, count):
    """A function making `count` calls on `args`, their results freed."""
    def run():
        for _ in range(count):
            attempt(call, args)
    return run


def per_call(function):
    """Seconds per call: the least of three timings of as many calls as
    take a millisecond."""
    number = 1
    while timeit.timeit(function, number=number) < 1e-3 and number < 65536:
        number *= 2
    return min(timeit.repeat(function, number=number, repeat=3)) / number


)py";

// Warm-up: what an op allocates or sets up once per process counts for
// neither side.
constexpr char kWarmUp[] = R"py(    for args in (variant, baseline):
        _, error = attempt(call, args)
        if error:
            print("expected: both calls return (this check measures them)")
            print("actual:   %s" % error)
            return 0
)py";

}  // namespace

std::string PythonCostHelpers() { return kHelpers; }

std::string PythonCostMain(const ReproPlan& plan) {
  const ResourceOracles defaults;
  const bool cuda = OnCuda(plan);
  std::string out = absl::StrCat(
      "def main():\n", "    op()\n", "    device = \"", cuda ? "cuda" : "cpu",
      "\"\n", "    variant, grad_outputs, storages = variant_tensors()\n",
      "    baseline, base_grad_outputs = baseline_tensors()\n", kWarmUp);
  if (plan.verdict == Verdict::kLeak) {
    return absl::StrCat(
        out, "    _, left = memory(calls(variant, 100), device)\n",
        "    _, base_left = memory(calls(baseline, 100), device)\n",
        "    print(\"expected: 100 calls, results freed, leave no %s memory "
        "allocated\"\n",
        "          \" (contiguous copies leave %d bytes)\"\n",
        "          % (device.upper(), base_left))\n",
        "    print(\"actual:   100 calls of the strided variant leave %d "
        "bytes\" % left)\n",
        "    return 1 if left > 0 else 0\n");
  }
  if (plan.verdict == Verdict::kMemoryAmplification) {
    return absl::StrCat(
        out, "    peak, _ = memory(calls(variant, 1), device)\n",
        "    base_peak, _ = memory(calls(baseline, 1), device)\n",
        "    allowed = base_peak + copy_bytes(variant)\n",
        "    print(\"expected: a call's peak %s allocation at most ",
        absl::StrFormat("%g", defaults.memory_ratio), "x %d bytes\"\n",
        "          \" (contiguous copies: %d, plus copying the strided "
        "arguments: %d)\"\n",
        "          % (device.upper(), allowed, base_peak, "
        "copy_bytes(variant)))\n",
        "    print(\"actual:   the strided variant's peak is %d bytes, "
        "%.1fx\"\n",
        "          % (peak, peak / max(allowed, 1)))\n",
        "    return 1 if peak > ", absl::StrFormat("%g", defaults.memory_ratio),
        " * allowed and peak - allowed > ", defaults.memory_excess_bytes,
        " else 0\n");
  }
  return absl::StrCat(
      out,
      "    copies = [t for t in tensors_of(variant) if not "
      "t.is_contiguous()]\n",
      "    seconds = per_call(lambda: call(variant))\n",
      "    base = per_call(lambda: call(baseline))\n",
      "    copying = per_call(lambda: [t.contiguous() for t in copies])\n",
      "    ratio = seconds / (base + copying)\n",
      "    print(\"expected: a call at most ",
      absl::StrFormat("%g", defaults.perf_ratio / 2),
      "x the contiguous call (%.1f us)\"\n",
      "          \" plus copying the strided arguments (%.1f us)\"\n",
      "          % (base * 1e6, copying * 1e6))\n",
      "    print(\"actual:   the strided call takes %.1f us, %.0fx\"\n",
      "          % (seconds * 1e6, ratio))\n",
      "    # Half dpfuzz's ratio: Python's cost per call is on both sides.\n",
      "    return 1 if ratio > ",
      absl::StrFormat("%g", defaults.perf_ratio / 2), " else 0\n");
}

}  // namespace dpfuzz
