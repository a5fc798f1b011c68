// The results a run is judged by: the written arguments for out= and
// in-place calls (their values after the call), else the returned tensors,
// each named as a finding's evidence names it ("out", "output 0").
//
//   const CallResults r = ResultsOf(call, tensors.args, written);
//   r.tensors[0], r.names[0]

#ifndef DPFUZZ_ORACLES_CALL_RESULTS_H_
#define DPFUZZ_ORACLES_CALL_RESULTS_H_

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "oracles/case_tensors.h"
#include "oracles/invoke.h"

namespace dpfuzz {

struct CallResults {
  std::vector<at::Tensor> tensors;
  std::vector<std::string> names;
};

CallResults ResultsOf(const CallResult& call, const NamedTensors& args,
                      const std::vector<std::string>& written);

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_CALL_RESULTS_H_
