#include "generators/poison.h"

#include <cstring>

namespace dpfuzz {
namespace {

// Quiet NaNs with a 0xA5 payload, one per floating component width.
constexpr uint16_t kHalfPoison = 0x7EA5;
constexpr uint16_t kBFloat16Poison = 0x7FE5;
constexpr uint32_t kFloatPoison = 0x7FE5A5A5u;
constexpr uint64_t kDoublePoison = 0x7FFDA5A5A5A5A5A5ull;

template <typename T>
void AppendBytes(T value, std::vector<uint8_t>& out) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

}  // namespace

std::vector<uint8_t> PoisonElement(DType dtype) {
  std::vector<uint8_t> out;
  switch (dtype) {
    case DType::kFloat16:
      AppendBytes(kHalfPoison, out);
      break;
    case DType::kBFloat16:
      AppendBytes(kBFloat16Poison, out);
      break;
    case DType::kFloat32:
      AppendBytes(kFloatPoison, out);
      break;
    case DType::kFloat64:
      AppendBytes(kDoublePoison, out);
      break;
    case DType::kComplex64:
      AppendBytes(kFloatPoison, out);
      AppendBytes(kFloatPoison, out);
      break;
    case DType::kComplex128:
      AppendBytes(kDoublePoison, out);
      AppendBytes(kDoublePoison, out);
      break;
    default:  // bool and integers: every byte 0xA5.
      out.assign(ElementSize(dtype), 0xA5);
      break;
  }
  return out;
}

bool IsPoison(DType dtype, const uint8_t* element) {
  static const std::vector<std::vector<uint8_t>>* table = [] {
    auto* t = new std::vector<std::vector<uint8_t>>;
    for (DType d : AllDTypes()) t->push_back(PoisonElement(d));
    return t;
  }();
  const std::vector<uint8_t>& poison = (*table)[static_cast<size_t>(dtype)];
  return std::memcmp(poison.data(), element, poison.size()) == 0;
}

}  // namespace dpfuzz
