// C++ spellings of repro values: dtypes, exact numbers, storage element
// lists, layouts and the IValue of each schema argument, as the C++ repro
// (crashes/repro/repro_cpp.h) and its prelude
// (crashes/repro/repro_cpp_prelude.h) expect them.
//
//   CppFloat(0.1)                // "0x1.999999999999ap-4" (exact)
//   CppInt(INT64_MIN)            // "(-9223372036854775807LL - 1)"
//   CppLayout(l)                 // "{{2, 3}, {1, 2}, 0}"
//   CppStackValue(arg)           // "T(a, \"self\")", "Default(op, \"alpha\")"

#ifndef DPFUZZ_CRASHES_REPRO_REPRO_CPP_LITERALS_H_
#define DPFUZZ_CRASHES_REPRO_REPRO_CPP_LITERALS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "crashes/repro/repro_plan.h"

namespace dpfuzz {

std::string CppScalarType(DType dtype);  // "at::kFloat"

// A double literal that reads back bit for bit; kNan, kInf of the prelude.
std::string CppFloat(double value);
std::string CppInt(int64_t value);
std::string CppElement(const ReproElement& e);  // "kPoison", "{1.0, -2.0}"

// "{1.0, kPoison, ...}", runs of poison as Poison(n), broken after "{" when
// the line that starts with `head` and ends in `tail` would pass column 80.
std::string CppElementList(const std::vector<ReproElement>& elements,
                           absl::string_view head, absl::string_view tail);

std::string CppDims(const Dims& dims);          // "{2, 3}"
std::string CppLayout(const StridedLayout& l);  // "{{2, 3}, {1, 2}, 0}"
std::string CppQuoted(absl::string_view s);     // "\"out\""
std::string CppMemoryFormat(const std::string& name);

// The IValue expression of one schema argument.
std::string CppStackValue(const ReproArg& arg);

}  // namespace dpfuzz

#endif  // DPFUZZ_CRASHES_REPRO_REPRO_CPP_LITERALS_H_
