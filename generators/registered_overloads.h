// The overloads registered with the dispatcher, kept in an index.
//
// Building the catalog for `--op=all` asks, for each of ~1,250 ops, which
// other overloads its op has (its out= overload). Asking the dispatcher
// for every op name each time made the catalog quadratic (5 s before a
// campaign started, and again in every worker that a death replaced). The
// index is filled once from the dispatcher and kept up to date by a
// registration listener, so libraries loaded later (--load, test
// libraries) appear in it as well.
//
//   RegisteredOverloads()        // every overload, sorted
//   OverloadsOf("aten::add")     // {"", "Scalar", "Tensor", "out", ...}

#ifndef DPFUZZ_GENERATORS_REGISTERED_OVERLOADS_H_
#define DPFUZZ_GENERATORS_REGISTERED_OVERLOADS_H_

#include <string>
#include <tuple>
#include <vector>

namespace dpfuzz {

// A registered overload: "aten::add" and "Tensor" ("" for the default).
struct OverloadName {
  std::string op;
  std::string overload;

  std::string Full() const;  // "aten::add.Tensor", "aten::relu".
  // The order of Full(): op names hold no character below '.'.
  friend bool operator<(const OverloadName& a, const OverloadName& b) {
    return std::tie(a.op, a.overload) < std::tie(b.op, b.overload);
  }
};

// Every overload registered now (loaded libraries included), sorted.
std::vector<OverloadName> RegisteredOverloads();

// The overload names registered now for `op` ("aten::add"), sorted.
std::vector<std::string> OverloadsOf(const std::string& op);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_REGISTERED_OVERLOADS_H_
