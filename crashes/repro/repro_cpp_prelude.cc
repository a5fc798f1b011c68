#include "crashes/repro/repro_cpp_prelude.h"

#include "absl/strings/str_cat.h"

namespace dpfuzz {
namespace {

// The delimiter "repro" keeps clang-format from formatting the raw strings
// (it formats those delimited by "cc" or "cpp").

// Includes, exact tensors, calls, results and reading elements: every
// repro needs these.
constexpr char kCore[] = R"repro(#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/version.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// ---------------------------------------------------------------------------
// Helpers: the same in every dpfuzz repro that makes this check
// ---------------------------------------------------------------------------

#if TORCH_VERSION_MAJOR >= 2
// As dpfuzz runs cases: sparse tensors built from invalid indices are
// rejected (LibTorch 2.x checks them only when asked).
static const bool kSparseInvariantsChecked = [] {
  at::globalContext().setCheckSparseTensorInvariants(true);
  return true;
}();
#endif

// Tensors by schema argument name; a Tensor[] argument holds several.
using Tensors = std::map<std::string, std::vector<at::Tensor>>;

// Defined by the case, at the end of this file.
extern const std::vector<std::string> kWritten;  // Arguments it writes.
extern const bool kExact;
extern const bool kTiedIndices;
extern const std::optional<int64_t> kTieDim;
extern const bool kNondeterministic;
extern const bool kPropagatesStrides;
extern const std::string kMemoryFormat;
extern const bool kRejectionAllowed;
extern const bool kBackward;
std::vector<at::Tensor> Call(const Tensors& a);

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

// One element as this file writes it: an integer (bool as 0/1), a real, a {re,
// im} pair, or kPoison; Poison(n) stands for n poisoned elements.
struct E {
  enum Kind { kIntKind, kRealKind, kComplexKind, kPoisonKind };
  Kind kind;
  int64_t i = 0;  // For kPoisonKind: how many elements.
  double re = 0, im = 0;
  E(int v) : kind(kIntKind), i(v) {}
  E(long v) : kind(kIntKind), i(v) {}
  E(long long v) : kind(kIntKind), i(v) {}
  E(double v) : kind(kRealKind), re(v) {}
  E(double r, double m) : kind(kComplexKind), re(r), im(m) {}
  E(Kind k, int64_t n) : kind(k), i(n) {}
};

// dpfuzz fills every storage element outside a view (gaps and margins) with
// this pattern: a NaN with a 0xA5 payload, or 0xA5 bytes for integers and bool.
// A kernel that reads it returns it; one that writes there destroys it.
const E kPoison(E::kPoisonKind, 1);
E Poison(int64_t n) { return E(E::kPoisonKind, n); }

template <typename T>
void StoreAs(uint8_t* p, T value) {
  std::memcpy(p, &value, sizeof(T));
}

void PutPoison(at::ScalarType dtype, uint8_t* p) {
  switch (dtype) {
    case at::kHalf:
      return StoreAs<uint16_t>(p, 0x7EA5);
    case at::kBFloat16:
      return StoreAs<uint16_t>(p, 0x7FE5);
    case at::kFloat:
      return StoreAs<uint32_t>(p, 0x7FE5A5A5u);
    case at::kDouble:
      return StoreAs<uint64_t>(p, 0x7FFDA5A5A5A5A5A5ull);
    case at::kComplexFloat:
      PutPoison(at::kFloat, p);
      return PutPoison(at::kFloat, p + 4);
    case at::kComplexDouble:
      PutPoison(at::kDouble, p);
      return PutPoison(at::kDouble, p + 8);
    default:
      std::memset(p, 0xA5, c10::elementSize(dtype));
  }
}

void Put(at::ScalarType dtype, const E& e, uint8_t* p) {
  if (e.kind == E::kPoisonKind) return PutPoison(dtype, p);
  switch (dtype) {
    case at::kBool:
    case at::kByte:
      return StoreAs<uint8_t>(p, static_cast<uint8_t>(e.i));
    case at::kChar:
      return StoreAs<int8_t>(p, static_cast<int8_t>(e.i));
    case at::kShort:
      return StoreAs<int16_t>(p, static_cast<int16_t>(e.i));
    case at::kInt:
      return StoreAs<int32_t>(p, static_cast<int32_t>(e.i));
    case at::kLong:
      return StoreAs<int64_t>(p, e.i);
    case at::kHalf:
      return StoreAs(p, c10::Half(static_cast<float>(e.re)));
    case at::kBFloat16:
      return StoreAs(p, c10::BFloat16(static_cast<float>(e.re)));
    case at::kFloat:
      return StoreAs(p, static_cast<float>(e.re));
    case at::kDouble:
      return StoreAs(p, e.re);
    case at::kComplexFloat:
      StoreAs(p, static_cast<float>(e.re));
      return StoreAs(p + 4, static_cast<float>(e.im));
    case at::kComplexDouble:
      StoreAs(p, e.re);
      return StoreAs(p + 8, e.im);
    default:
      TORCH_CHECK(false, "dpfuzz repro: unsupported dtype ", dtype);
  }
}

// A dense 1-d tensor holding exactly `elements`, on `device`.
at::Tensor Storage(at::ScalarType dtype, const std::vector<E>& elements,
                   const char* device = "cpu") {
  int64_t numel = 0;
  for (const E& e : elements) numel += e.kind == E::kPoisonKind ? e.i : 1;
  at::Tensor t = at::empty({numel}, at::TensorOptions().dtype(dtype));
  auto* bytes = static_cast<uint8_t*>(t.data_ptr());
  int64_t n = 0;
  for (const E& e : elements) {
    for (int64_t k = 0; k < (e.kind == E::kPoisonKind ? e.i : 1); ++k) {
      Put(dtype, e, bytes + n++ * t.element_size());
    }
  }
  return t.to(at::Device(device));
}

// The view dpfuzz passes: as_strided over the storage (a leaf if it requires
// grad).
at::Tensor View(const at::Tensor& storage, at::IntArrayRef sizes,
                at::IntArrayRef strides, int64_t offset,
                bool requires_grad = false) {
  at::Tensor t = storage.as_strided(sizes, strides, offset);
  return requires_grad ? t.detach().requires_grad_(true) : t;
}

// A baseline tensor: row-major `elements`, on `device`.
at::Tensor Dense(at::ScalarType dtype, at::IntArrayRef sizes,
                 const std::vector<E>& elements, bool requires_grad = false,
                 const char* device = "cpu") {
  at::Tensor t = Storage(dtype, elements, device).reshape(sizes);
  return requires_grad ? t.requires_grad_(true) : t;
}

// Schema arguments.
c10::IValue T(const Tensors& a, const std::string& name) {
  return a.at(name).front();
}
c10::IValue TList(const Tensors& a, const std::string& name) {
  return c10::List<at::Tensor>(a.at(name));
}
c10::IValue OptTList(const Tensors& a, const std::string& name) {
  c10::List<c10::optional<at::Tensor>> list;
  for (const at::Tensor& t : a.at(name)) list.push_back(t);
  return list;
}
c10::IValue Default(const c10::OperatorHandle& op, const std::string& name) {
  for (const c10::Argument& arg : op.schema().arguments()) {
    if (arg.name() == name && arg.default_value()) return *arg.default_value();
  }
  return c10::IValue();
}

// `t` as a strided tensor of its values: a sparse, compressed or mkldnn
// result densified, autograd's ZeroTensor (no memory) made real.
at::Tensor Strided(const at::Tensor& t) {
  if (!t.defined() || t.is_nested()) return t;
  if (t.layout() != at::kStrided) return t.to_dense();
  if (t._is_zerotensor()) return at::zeros(t.sizes(), t.options());
  return t;
}

void Flatten(const c10::IValue& v, std::vector<at::Tensor>& out) {
  if (v.isTensor()) {
    out.push_back(Strided(v.toTensor()));
  } else if (v.isTensorList()) {
    for (const at::Tensor& t : v.toTensorVector()) out.push_back(Strided(t));
  } else if (v.isTuple()) {
    for (const c10::IValue& e : v.toTupleRef().elements()) Flatten(e, out);
  } else if (v.isInt()) {
    out.push_back(at::scalar_tensor(v.toInt(), at::kLong));
  } else if (v.isDouble()) {
    out.push_back(at::scalar_tensor(v.toDouble(), at::kDouble));
  } else if (v.isBool()) {
    out.push_back(at::scalar_tensor(v.toBool(), at::kBool));
  }
}

std::vector<at::Tensor> CallBoxed(const c10::OperatorHandle& op,
                                  torch::jit::Stack stack) {
  op.callBoxed(&stack);
  std::vector<at::Tensor> out;
  for (const c10::IValue& v : stack) Flatten(v, out);
  return out;
}

// What a call returned, or the message of what it raised.
struct Attempt {
  std::vector<at::Tensor> outputs;
  std::optional<std::string> error;
};

Attempt Try(const std::function<std::vector<at::Tensor>()>& f) {
  Attempt r;
  try {
    r.outputs = f();
  } catch (const c10::Error& e) {
    r.error = e.what_without_backtrace();
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  return r;
}

std::string Said(const std::optional<std::string>& error) {
  return error ? "raised: " + *error : "returned";
}

// What a run is judged by: the arguments the schema writes, after the call,
// else the returned tensors.
std::vector<at::Tensor> Results(const std::vector<at::Tensor>& returned,
                                const Tensors& args,
                                std::vector<std::string>* names = nullptr) {
  std::vector<at::Tensor> out;
  if (kWritten.empty()) {
    for (size_t i = 0; i < returned.size(); ++i) {
      if (names) names->push_back("output " + std::to_string(i));
      out.push_back(returned[i]);
    }
    return out;
  }
  for (const std::string& name : kWritten) {
    for (const at::Tensor& t : args.at(name)) {
      if (names) names->push_back(name);
      out.push_back(t);
    }
  }
  return out;
}

// One logical element: integers (bool as its byte) in `i`, the rest in `z`.
struct Value {
  int64_t i = 0;
  std::complex<double> z;
};

template <typename T>
T LoadAs(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

Value Load(at::ScalarType dtype, const uint8_t* p) {
  Value v;
  switch (dtype) {
    case at::kBool:
    case at::kByte:
      v.i = p[0];
      break;
    case at::kChar:
      v.i = LoadAs<int8_t>(p);
      break;
    case at::kShort:
      v.i = LoadAs<int16_t>(p);
      break;
    case at::kInt:
      v.i = LoadAs<int32_t>(p);
      break;
    case at::kLong:
      v.i = LoadAs<int64_t>(p);
      break;
    case at::kHalf:
      v.z = static_cast<float>(LoadAs<c10::Half>(p));
      break;
    case at::kBFloat16:
      v.z = static_cast<float>(LoadAs<c10::BFloat16>(p));
      break;
    case at::kFloat:
      v.z = LoadAs<float>(p);
      break;
    case at::kDouble:
      v.z = LoadAs<double>(p);
      break;
    case at::kComplexFloat:
      v.z = {LoadAs<float>(p), LoadAs<float>(p + 4)};
      break;
    case at::kComplexDouble:
      v.z = {LoadAs<double>(p), LoadAs<double>(p + 8)};
      break;
    default:
      TORCH_CHECK(false, "dpfuzz repro: unsupported dtype ", dtype);
  }
  return v;
}

// The logical elements of `t`, row-major, read by walking its strides here (no
// ATen copy kernel involved).
std::vector<Value> Elements(const at::Tensor& tensor) {
  const at::Tensor t = tensor.detach().cpu();
  std::vector<Value> out;
  const int64_t n = t.numel();
  if (n == 0) return out;
  const auto* base = static_cast<const uint8_t*>(t.data_ptr());
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, offset = 0;
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      offset += rest % t.size(d) * t.stride(d);
      rest /= t.size(d);
    }
    out.push_back(Load(t.scalar_type(), base + offset * t.element_size()));
  }
  return out;
}

// The shortest text of `x` that reads back as `x`.
std::string Text(double x) {
  for (int digits = 6;; ++digits) {
    std::ostringstream os;
    os.precision(digits);
    os << x;
    if (digits >= 17 || std::strtod(os.str().c_str(), nullptr) == x ||
        std::isnan(x)) {
      return os.str();
    }
  }
}

std::string Text(const Value& v, bool floating, bool complex) {
  if (!floating) return std::to_string(v.i);
  if (!complex) return Text(v.z.real());
  return "(" + Text(v.z.real()) + ", " + Text(v.z.imag()) + ")";
}

// A view's geometry; a storage of the variant with the views over it, for
// the write check.
struct Layout {
  std::vector<int64_t> sizes, strides;
  int64_t offset = 0;
};
struct CheckedStorage {
  std::string name;
  at::Tensor storage;
  std::vector<std::pair<std::string, Layout>> views;
};

)repro";

}  // namespace

std::string CppReproPrelude(ReproCheck check) {
  return absl::StrCat(kCore, CppReproCheckHelpers(check));
}

}  // namespace dpfuzz
