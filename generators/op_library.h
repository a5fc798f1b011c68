// Shared libraries of operators (TORCH_LIBRARY registrations: CPU, CUDA
// and Autograd kernels), loaded so that their ops can be fuzzed by name.
//
//   absl::Status s = LoadOpLibrary("build/libmyops.so");

#ifndef DPFUZZ_GENERATORS_OP_LIBRARY_H_
#define DPFUZZ_GENERATORS_OP_LIBRARY_H_

#include <string>

#include "absl/status/status.h"

namespace dpfuzz {

// dlopen with every symbol resolved now and visible to later libraries; the
// library's static initializers register its ops. An error with dlerror's
// message when it cannot be loaded.
absl::Status LoadOpLibrary(const std::string& path);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_OP_LIBRARY_H_
