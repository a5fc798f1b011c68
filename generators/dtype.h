// DType: the element types dpfuzz generates, independent of LibTorch.
//
// Plain enum with a stable short name per type, used in the printed form of
// a TensorSpec (`f32 cpu [2, 3]@[3, 1]+0`) and in case files. The mapping to
// at::ScalarType lives at the LibTorch edge (generators/aten_bridge.h), so
// this header and everything that only reasons about layouts stays free of
// LibTorch.
//
//   absl::StatusOr<DType> t = ParseDType("bf16");   // DType::kBFloat16
//   DTypeName(DType::kComplex64);                    // "c64"

#ifndef DPFUZZ_GENERATORS_DTYPE_H_
#define DPFUZZ_GENERATORS_DTYPE_H_

#include <cstdint>
#include <ostream>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace dpfuzz {

enum class DType : uint8_t {
  kBool,        // b8: one byte, 0 or 1.
  kUInt8,       // u8
  kInt8,        // i8
  kInt16,       // i16
  kInt32,       // i32
  kInt64,       // i64
  kFloat16,     // f16: IEEE half.
  kBFloat16,    // bf16: the top half of a float32.
  kFloat32,     // f32
  kFloat64,     // f64
  kComplex64,   // c64: two float32.
  kComplex128,  // c128: two float64.
};

// Every DType, in declaration order.
const std::vector<DType>& AllDTypes();

// Stable short name: "b8", "u8", ..., "c128".
absl::string_view DTypeName(DType dtype);

// Inverse of DTypeName; the error lists the accepted names.
absl::StatusOr<DType> ParseDType(absl::string_view name);

// Bytes per element, as at::elementSize reports.
int64_t ElementSize(DType dtype);

bool IsFloating(DType dtype);  // f16, bf16, f32, f64 (not complex).
bool IsComplex(DType dtype);   // c64, c128.
bool IsIntegral(DType dtype);  // u8 .. i64 (not bool).

// The kinds a value can move between without changing what it means.
enum class DTypeKind : uint8_t {
  kFloating,  // f16, bf16, f32, f64
  kComplex,   // c64, c128
  kIntegral,  // u8 .. i64
  kBool,      // b8
};
DTypeKind KindOf(DType dtype);

// The real type of one component: c64 -> f32, c128 -> f64, else itself.
DType ComponentType(DType dtype);

std::ostream& operator<<(std::ostream& os, DType dtype);

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_DTYPE_H_
