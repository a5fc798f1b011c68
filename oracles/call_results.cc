#include "oracles/call_results.h"

#include "absl/strings/str_cat.h"

namespace dpfuzz {

CallResults ResultsOf(const CallResult& call, const NamedTensors& args,
                      const std::vector<std::string>& written) {
  CallResults r;
  if (written.empty()) {
    for (size_t i = 0; i < call.outputs.size(); ++i) {
      r.tensors.push_back(call.outputs[i]);
      r.names.push_back(absl::StrCat("output ", i));
    }
    return r;
  }
  for (const std::string& name : written) {
    for (const at::Tensor& t : args.at(name)) {
      r.tensors.push_back(t);
      r.names.push_back(name);
    }
  }
  return r;
}

}  // namespace dpfuzz
