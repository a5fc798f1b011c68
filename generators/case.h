// Case: one fully determined run of one op.
//
// The op (schema name and overload), the variant it is called as, and its
// arguments in schema order: tensor arguments as TensorSpecs, everything
// else as plain values. A Case is the unit every stage passes along: the
// engine runs it, the store keys findings by it, the reducer shrinks it,
// repro emitters print it. It round-trips exactly through the case file
// format (generators/case_json.h), which is the source of truth for replay.
//
//   Case c{.op = "aten::masked_select", .variant = Variant::kFunctional,
//          .args = {{"self", spec_a}, {"mask", spec_m}}, .seed = 42};
//
// Devices are those of the TensorSpecs, so there is no separate field:
// CaseDevice says where a case runs, PlaceOnDevice moves all of it.

#ifndef DPFUZZ_GENERATORS_CASE_H_
#define DPFUZZ_GENERATORS_CASE_H_

#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "generators/tensor_spec.h"

namespace dpfuzz {

enum class Variant : uint8_t {
  kFunctional,  // at::op(args...)          "functional"
  kOut,         // at::op_out(out, args...) "out"
  kInplace,     // self.op_(args...)        "inplace"
  kMethod,      // self.op(args...)         "method"
};

absl::string_view VariantName(Variant variant);
absl::StatusOr<Variant> ParseVariant(absl::string_view name);

// A double compared and hashed by its bits, so that NaN equals itself and
// -0.0 differs from 0.0: exactly what a case must reproduce.
struct FloatArg {
  double value = 0;

  friend bool operator==(const FloatArg& a, const FloatArg& b) {
    return std::memcmp(&a.value, &b.value, sizeof(double)) == 0;
  }
  template <typename H>
  friend H AbslHashValue(H h, const FloatArg& f) {
    uint64_t bits;
    std::memcpy(&bits, &f.value, sizeof(bits));
    return H::combine(std::move(h), bits);
  }
};

// None, bool, int, float, str, int[], Tensor, Tensor[].
using ArgValue =
    std::variant<std::monostate, bool, int64_t, FloatArg, std::string, Dims,
                 TensorSpec, std::vector<TensorSpec>>;

struct Argument {
  std::string name;
  ArgValue value;

  friend bool operator==(const Argument& a, const Argument& b) {
    return a.name == b.name && a.value == b.value;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Argument& a) {
    // Debian's Abseil cannot hash std::variant itself.
    h = H::combine(std::move(h), a.name, a.value.index());
    return std::visit(
        [&h](const auto& v) {
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>,
                                       std::monostate>) {
            return std::move(h);
          } else {
            return H::combine(std::move(h), v);
          }
        },
        a.value);
  }
};

// Argument `arg` is built inside the storage of argument `base` (its layout
// then addresses that storage): out= or in-place tensors that share memory
// with an input.
struct Alias {
  std::string arg;
  std::string base;

  friend bool operator==(const Alias& a, const Alias& b) {
    return a.arg == b.arg && a.base == b.base;
  }
  template <typename H>
  friend H AbslHashValue(H h, const Alias& a) {
    return H::combine(std::move(h), a.arg, a.base);
  }
};

struct Case {
  std::string op;        // Qualified schema name: "aten::add".
  std::string overload;  // "Tensor" for aten::add.Tensor; "" for none.
  Variant variant = Variant::kFunctional;
  std::vector<Argument> args;
  std::vector<Alias> aliases;
  // Gradients fed to backward, one per floating output; empty: no backward.
  std::vector<TensorSpec> grad_outputs;
  uint64_t seed = 0;  // The seed the case was generated from.

  friend bool operator==(const Case& a, const Case& b) {
    return a.op == b.op && a.overload == b.overload && a.variant == b.variant &&
           a.args == b.args && a.aliases == b.aliases &&
           a.grad_outputs == b.grad_outputs && a.seed == b.seed;
  }
  friend bool operator!=(const Case& a, const Case& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const Case& c) {
    return H::combine(std::move(h), c.op, c.overload, c.variant, c.args,
                      c.aliases, c.grad_outputs, c.seed);
  }
};

// The argument named `name`, or nullptr.
const Argument* FindArgument(const Case& c, absl::string_view name);

// Every TensorSpec of the arguments, Tensor[] elements included, in order
// (grad_outputs not included).
std::vector<const TensorSpec*> TensorSpecsOf(const Case& c);

// TensorSpecsOf, then the grad_outputs: every tensor the case makes.
std::vector<const TensorSpec*> AllTensorSpecsOf(const Case& c);
// The same, to edit them in place.
std::vector<TensorSpec*> AllTensorSpecsOf(Case& c);

// Device::kCuda when any tensor of the case is on CUDA, else kCpu: a CUDA
// case also gets the CPU-vs-CUDA oracle and a device sync after it runs.
Device CaseDevice(const Case& c);

// Puts every tensor of the case (grad_outputs included) on `device`; values
// and layouts are unchanged (they are the same bits on any device).
void PlaceOnDevice(Case& c, Device device);

// The case with every tensor plain: contiguous strides, offset 0, sharing
// no memory (no aliases). Same sizes, dtypes and values: the contiguous
// baseline's own geometry, as a case.
Case PlainCase(const Case& c);

// Whether every floating or complex value of the case is of the kinds an
// exact comparison (Comparison::kExact) assumes: those of dpfuzz's value
// recipes, with explicit data and float Scalars on their grid (multiples of
// 1/8 up to 2^12; NaN and infinities too). False for a case seeded with
// real-valued samples (PyTorch's OpInfo data, alpha=-3.14): its arithmetic
// rounds, and two kernels of one op may round it differently (a fused
// multiply-add against a multiply, then an add).
bool HoldsExactValues(const Case& c);

// "aten::add.Tensor"; "aten::masked_select" without overload.
std::string QualifiedOpName(const Case& c);

// One line per argument: "aten::masked_select functional\n  self: f32 ...".
std::string CaseToString(const Case& c);
std::ostream& operator<<(std::ostream& os, const Case& c);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_CASE_H_
