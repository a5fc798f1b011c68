// Gap and margin integrity: did anything change a storage outside a view?
//
// See Note [Poisoned gaps] (generators/poison.h). Before an op runs, every
// byte of a tensor's storage that its view does not address holds a known
// value: the poison pattern, or whatever a snapshot taken then recorded.
// Afterwards these functions scan the whole storage on the device and
// report the first byte outside the view that differs, and how many do: a
// kernel that wrote into a gap (between the view's elements) or a margin
// (before its first or after its last element) is caught there, whatever
// the geometry (expanded, overlapping, interleaved views included: the
// view's elements are marked in a mask first, nothing is inferred).
//
//   DPFUZZ_ASSIGN_OR_RETURN(OutsideViewReport r,
//                           CheckOutsideViewAgainstPattern(
//                               out_view, PoisonElement(DType::kFloat32)));
//   if (!r.intact()) ... r.first_byte, r.region, r.expected, r.actual
//
// Bytes inside the view are not looked at. Runs on the legacy default
// stream and waits for the result; needs a scratch byte per storage
// element.

#ifndef DPFUZZ_CUDA_STORAGE_INTEGRITY_H_
#define DPFUZZ_CUDA_STORAGE_INTEGRITY_H_

#include <cstdint>
#include <ostream>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "cuda/device_view.h"

namespace dpfuzz {

// Where a storage byte outside a view lies.
enum class OutsideRegion : uint8_t {
  kMarginBefore,  // In an element before storage_offset.
  kGap,           // Between the view's first and last elements.
  kMarginAfter,   // In an element after the view's last one (or in a
                  // trailing partial element).
};

std::ostream& operator<<(std::ostream& os, OutsideRegion region);

struct OutsideViewReport {
  int64_t changed_bytes = 0;  // Bytes outside the view that differ.
  // The lowest such byte offset in the storage and its element (byte /
  // element_size); -1 when none.
  int64_t first_byte = -1;
  int64_t first_element = -1;
  OutsideRegion region = OutsideRegion::kMarginBefore;  // Of first_byte.
  uint8_t expected = 0;  // What first_byte should hold,
  uint8_t actual = 0;    // and what it holds.

  bool intact() const { return changed_bytes == 0; }
};

// Every byte b outside the view should hold pattern[b % pattern.size()]
// (1 to 16 bytes; PoisonElement(dtype) is the usual one).
absl::StatusOr<OutsideViewReport> CheckOutsideViewAgainstPattern(
    const DeviceView& view, absl::Span<const uint8_t> pattern);

// Every byte b outside the view should hold snapshot[b], a device copy of
// the whole storage (view.storage_bytes bytes) taken before the op.
absl::StatusOr<OutsideViewReport> CheckOutsideViewAgainstSnapshot(
    const DeviceView& view, const void* snapshot);

}  // namespace dpfuzz

#endif  // DPFUZZ_CUDA_STORAGE_INTEGRITY_H_
