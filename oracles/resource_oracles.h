// The opt-in oracles of what a layout costs: leaks, memory amplification
// and performance cliffs (oracles/resource_checks.h judges them).
//
// The value oracles ask whether a layout changes what an op computes;
// these ask whether it changes what the op costs, against the contiguous
// baseline plus what making the inputs contiguous costs, which the op
// could have paid itself. They run the op many more times than the value
// oracles (repeats, warm-ups, timing), so they are off unless asked for:
// `dpfuzz --oracles=leak,memory,perf` (or `all`). A case they judge has
// passed the value oracles first; their verdicts are kLeak,
// kMemoryAmplification and kPerfCliff.
//
//   absl::StatusOr<ResourceOracles> on = ParseOracleList("leak,memory");
//   RunCase(spec, c, std::nullopt, *on);

#ifndef DPFUZZ_ORACLES_RESOURCE_ORACLES_H_
#define DPFUZZ_ORACLES_RESOURCE_ORACLES_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "oracles/verdict.h"

namespace dpfuzz {

struct ResourceOracles {
  bool leak = false;    // "leak": allocated bytes grow call after call.
  bool memory = false;  // "memory": peak bytes past the baseline's.
  bool perf = false;    // "perf": time past the baseline's.
  // memory_amplification: the variant's peak bytes exceed `memory_ratio`
  // times the baseline's peak plus contiguous copies of the variant's
  // strided tensors, and exceed that by `memory_excess_bytes`: the ratio
  // alone would flag a few bytes of bookkeeping on tiny cases.
  double memory_ratio = 4;
  int64_t memory_excess_bytes = int64_t{64} << 10;
  // perf_cliff: the variant's time per call exceeds `perf_ratio` times the
  // baseline's plus the contiguous copies', in two measurements.
  double perf_ratio = 20;

  bool any() const { return leak || memory || perf; }
  // Whether the CPU allocator must count (oracles/counting_allocator.h).
  bool counts_memory() const { return leak || memory; }
};

// "leak,memory" -> leak and memory on; "all" -> every one; "" -> none. An
// error names an unknown entry and the accepted ones.
absl::StatusOr<ResourceOracles> ParseOracleList(absl::string_view list);

// The oracles that are on, as ParseOracleList reads them ("" for none).
std::string OracleList(const ResourceOracles& oracles);

// Turns on the oracle whose verdict `verdict` is (none for the value
// oracles' verdicts): a finding of leak, memory_amplification or
// perf_cliff replays, reduces and triages with the oracle that found it,
// whatever --oracles says.
void TurnOnOracleOf(Verdict verdict, ResourceOracles& oracles);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_RESOURCE_ORACLES_H_
