// How issue snippets (crashes/bugs/issue_snippet.h) spell values in Python:
// tensor literals, fills, dtypes and scalar arguments, each as short as
// exactly says it.
//
//   bool changed = false;
//   ValuesStatement("x = ", Values{DType::kFloat64, {2}, elements, ""}, "",
//                   Spelling::kList, changed)
//   // "x = torch.tensor([1.0, 2.5], dtype=torch.float64)\n"

#ifndef DPFUZZ_CRASHES_REPRO_SNIPPET_VALUES_H_
#define DPFUZZ_CRASHES_REPRO_SNIPPET_VALUES_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "crashes/repro/repro_plan.h"
#include "generators/dtype.h"
#include "generators/strided_layout.h"

namespace dpfuzz {

// Snippet lines stay within this many columns where they can.
inline constexpr size_t kWidth = 79;

// Values of a tensor, spelled each listed or as zeros/ones/full/arange
// (arange in place of values that are none of those: `changed`).
struct Values {
  DType dtype = DType::kFloat32;
  Dims shape;
  std::vector<ReproElement> elements;
  std::string device = "";  // ", device=\"cuda\"" or "".
};

enum class Spelling : uint8_t { kList, kCompact };

// ", dtype=..." unless torch infers the dtype from the literals written
// here (float32, int64, bool; complex64 from complex ones), then `device`.
std::string Kwargs(DType dtype, absl::string_view device,
                   bool complex_literals = true);

// A float literal: exact (float.fromhex where the decimal is not), or
// torch.nan / torch.inf.
std::string Real(double v);

// What fills memory outside the views, as dpfuzz's poison does (Note
// [Poisoned gaps]): NaN, the poison's integer value, True for bool.
std::string Fill(DType dtype);

// One element of `dtype`.
std::string Element(const ReproElement& e, DType dtype);

// "(2, 3)", "(4,)".
std::string Tuple(const Dims& dims);

// ", device=\"cuda\"" for a storage on CUDA, else "".
std::string DeviceKwarg(const ReproStorage& s);

// A non-tensor argument as Python.
std::string Literal(const ReproArg& arg);

// The one value every element of `v` has, spelled; nullopt when they
// differ.
std::optional<std::string> Constant(const Values& v);

// Whether `v` holds 0, 1, 2, ... (what torch.arange gives).
bool IsArange(const Values& v);

// head + the values' expression + tail; past kWidth columns, broken inside
// the list (of rows; of elements, then reshaped, where rows are too long).
// kCompact spells zeros/ones/full, else arange (`changed` when the values
// were not those); kList does so too where that is exact.
std::string ValuesStatement(const std::string& head, const Values& v,
                            const std::string& tail, Spelling spelling,
                            bool& changed);

// The elements of storage `s` that layout `l` addresses, in order.
Values ValuesAt(const ReproStorage& s, DType dtype, const StridedLayout& l);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_SNIPPET_VALUES_H_
