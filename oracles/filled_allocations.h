// Fresh memory filled while a scope lives: what a result read from memory
// nothing wrote then holds.
//
//   {
//     const FilledAllocations zeros(FreshMemory::kZeros);
//     Invoke(op, c, baseline.args);  // Every CPU allocation holds zeros.
//   }
#ifndef DPFUZZ_ORACLES_FILLED_ALLOCATIONS_H_
#define DPFUZZ_ORACLES_FILLED_ALLOCATIONS_H_

#include <c10/util/Flags.h>

#include <cstdint>

C10_DECLARE_bool(caffe2_cpu_allocator_do_zero_fill);
C10_DECLARE_bool(caffe2_cpu_allocator_do_junk_fill);

namespace dpfuzz {

// What c10's default CPU allocator writes into each allocation.
enum class FreshMemory : uint8_t {
  kZeros,
  kJunk,  // 0x7fedbeef: NaN as float, a huge number as an integer or double.
};

// While it lives, c10's default CPU allocator fills each allocation as
// asked instead of leaving whatever the heap held, which is often a freed
// tensor's values (NaN poison among them) and so the same from run to run.
// A result that changes under it was read from memory the op never wrote:
// an out= it resized, a workspace. Not thread-safe: the flags are global,
// and a worker runs one case at a time.
class FilledAllocations {
 public:
  explicit FilledAllocations(FreshMemory fill)
      : zeros_(FLAGS_caffe2_cpu_allocator_do_zero_fill),
        junk_(FLAGS_caffe2_cpu_allocator_do_junk_fill) {
    FLAGS_caffe2_cpu_allocator_do_zero_fill = fill == FreshMemory::kZeros;
    FLAGS_caffe2_cpu_allocator_do_junk_fill = fill == FreshMemory::kJunk;
  }
  ~FilledAllocations() {
    FLAGS_caffe2_cpu_allocator_do_zero_fill = zeros_;
    FLAGS_caffe2_cpu_allocator_do_junk_fill = junk_;
  }
  FilledAllocations(const FilledAllocations&) = delete;
  FilledAllocations& operator=(const FilledAllocations&) = delete;

 private:
  bool zeros_;
  bool junk_;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_ORACLES_FILLED_ALLOCATIONS_H_
