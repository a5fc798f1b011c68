// Rng: the deterministic random source of every generator.
//
// SplitMix64 with dpfuzz's own range reduction, so that a seed means the same
// case on every platform and standard library (std::uniform_int_distribution
// is implementation-defined, absl::BitGen is deliberately unstable). Not for
// cryptography; cheap to copy, so a generator can fork a stream with
// Rng(parent.Next()).
//
// Note [Choice streams]
// An Rng made with FromChoices draws its first values from bytes (eight
// little-endian bytes a draw, the last one zero-padded) and only then from
// SplitMix64, seeded by the bytes' hash: each byte steers one draw, so
// that a byte-level fuzzer (libFuzzer) that flips a byte changes one
// choice of a generator, not the whole case, and all-zero bytes draw the
// smallest choices. The bytes must outlive the Rng. See oracles/case_bytes.h.

#ifndef DPFUZZ_GENERATORS_RNG_H_
#define DPFUZZ_GENERATORS_RNG_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status_macros.h"

namespace dpfuzz {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  // See Note [Choice streams].
  static Rng FromChoices(const uint8_t* data, size_t size) {
    uint64_t hash = 0xCBF29CE484222325ull;  // FNV-1a.
    for (size_t i = 0; i < size; ++i)
      hash = (hash ^ data[i]) * 0x100000001B3ull;
    Rng rng(hash);
    rng.choices_ = data;
    rng.choices_left_ = size;
    return rng;
  }

  // Bytes of the choice stream not drawn yet (0 for a seeded Rng).
  size_t choices_left() const { return choices_left_; }

  uint64_t Next() {
    if (choices_left_ > 0) return NextChoice();
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // Uniform in [lo, hi], both inclusive; lo <= hi.
  int64_t Uniform(int64_t lo, int64_t hi) {
    DPFUZZ_CHECK(lo <= hi);
    const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (span == UINT64_MAX) return static_cast<int64_t>(Next());
    return static_cast<int64_t>(static_cast<uint64_t>(lo) +
                                Next() % (span + 1));
  }

  // True with probability 1/n.
  bool OneIn(int64_t n) { return Uniform(0, n - 1) == 0; }

  // Uniform in [0, 1).
  double UniformDouble() {
    return static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0);
  }

  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    DPFUZZ_CHECK(!items.empty());
    return items[Uniform(0, static_cast<int64_t>(items.size()) - 1)];
  }

 private:
  uint64_t NextChoice() {
    const size_t n = choices_left_ < 8 ? choices_left_ : 8;
    uint64_t value = 0;
    for (size_t i = 0; i < n; ++i) value |= uint64_t{choices_[i]} << (8 * i);
    choices_ += n;
    choices_left_ -= n;
    return value;
  }

  uint64_t state_;
  const uint8_t* choices_ = nullptr;
  size_t choices_left_ = 0;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_GENERATORS_RNG_H_
