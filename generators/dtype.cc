#include "generators/dtype.h"

#include <array>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace dpfuzz {
namespace {

struct DTypeInfo {
  DType dtype;
  absl::string_view name;
  int64_t size;
};

constexpr std::array<DTypeInfo, 12> kInfo = {{
    {DType::kBool, "b8", 1},
    {DType::kUInt8, "u8", 1},
    {DType::kInt8, "i8", 1},
    {DType::kInt16, "i16", 2},
    {DType::kInt32, "i32", 4},
    {DType::kInt64, "i64", 8},
    {DType::kFloat16, "f16", 2},
    {DType::kBFloat16, "bf16", 2},
    {DType::kFloat32, "f32", 4},
    {DType::kFloat64, "f64", 8},
    {DType::kComplex64, "c64", 8},
    {DType::kComplex128, "c128", 16},
}};

const DTypeInfo& Info(DType dtype) { return kInfo[static_cast<size_t>(dtype)]; }

}  // namespace

const std::vector<DType>& AllDTypes() {
  static const std::vector<DType>* all = [] {
    auto* v = new std::vector<DType>;
    for (const DTypeInfo& info : kInfo) v->push_back(info.dtype);
    return v;
  }();
  return *all;
}

absl::string_view DTypeName(DType dtype) { return Info(dtype).name; }

absl::StatusOr<DType> ParseDType(absl::string_view name) {
  for (const DTypeInfo& info : kInfo) {
    if (info.name == name) return info.dtype;
  }
  std::vector<absl::string_view> names;
  for (const DTypeInfo& info : kInfo) names.push_back(info.name);
  return absl::InvalidArgumentError(absl::StrCat("unknown dtype \"", name,
                                                 "\"; expected one of ",
                                                 absl::StrJoin(names, ", ")));
}

int64_t ElementSize(DType dtype) { return Info(dtype).size; }

bool IsFloating(DType dtype) {
  return dtype == DType::kFloat16 || dtype == DType::kBFloat16 ||
         dtype == DType::kFloat32 || dtype == DType::kFloat64;
}

bool IsComplex(DType dtype) {
  return dtype == DType::kComplex64 || dtype == DType::kComplex128;
}

DTypeKind KindOf(DType dtype) {
  if (IsFloating(dtype)) return DTypeKind::kFloating;
  if (IsComplex(dtype)) return DTypeKind::kComplex;
  if (IsIntegral(dtype)) return DTypeKind::kIntegral;
  return DTypeKind::kBool;
}

bool IsIntegral(DType dtype) {
  return dtype == DType::kUInt8 || dtype == DType::kInt8 ||
         dtype == DType::kInt16 || dtype == DType::kInt32 ||
         dtype == DType::kInt64;
}

DType ComponentType(DType dtype) {
  if (dtype == DType::kComplex64) return DType::kFloat32;
  if (dtype == DType::kComplex128) return DType::kFloat64;
  return dtype;
}

std::ostream& operator<<(std::ostream& os, DType dtype) {
  return os << DTypeName(dtype);
}

}  // namespace dpfuzz
