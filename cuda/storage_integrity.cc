#include "cuda/storage_integrity.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "cuda/cuda_status.h"
#include "cuda/device_buffer.h"
#include "cuda/kernels.h"

namespace dpfuzz {
namespace {

// Marks the view, scans the storage against `args` (expectation fields
// set, the rest filled here) and builds the report.
absl::StatusOr<OutsideViewReport> CheckOutsideView(
    const DeviceView& view, const cuda_kernels::ViewGeometry& geometry,
    cuda_kernels::OutsideViewArgs args, const std::string& what) {
  OutsideViewReport report;
  if (view.storage_bytes == 0) return report;
  DPFUZZ_RETURN_IF_ERROR(
      CheckDevicePointer(view.storage, absl::StrCat(what, ": the storage")));
  if (args.snapshot != nullptr) {
    DPFUZZ_RETURN_IF_ERROR(CheckDevicePointer(
        args.snapshot, absl::StrCat(what, ": the snapshot")));
  }
  const int64_t elements =
      (view.storage_bytes + view.element_size - 1) / view.element_size;
  DPFUZZ_ASSIGN_OR_RETURN(DeviceBuffer mask, DeviceBuffer::Allocate(elements));
  if (geometry.numel > 0) {
    DPFUZZ_RETURN_IF_ERROR(
        CudaStatus(cuda_kernels::LaunchMarkView(
                       static_cast<uint8_t*>(mask.data()), geometry),
                   absl::StrCat(what, ": marking the view")));
  }
  cuda_kernels::OutsideViewCounters counters = {~0ull, 0};
  DPFUZZ_ASSIGN_OR_RETURN(DeviceBuffer device_counters,
                          DeviceBuffer::Allocate(sizeof(counters)));
  DPFUZZ_RETURN_IF_ERROR(
      device_counters.CopyFromHost(&counters, sizeof(counters)));
  args.storage = static_cast<const uint8_t*>(view.storage);
  args.storage_bytes = view.storage_bytes;
  args.mask = static_cast<const uint8_t*>(mask.data());
  args.element_size = static_cast<int>(view.element_size);
  DPFUZZ_RETURN_IF_ERROR(
      CudaStatus(cuda_kernels::LaunchFindChangedOutsideView(
                     args, static_cast<cuda_kernels::OutsideViewCounters*>(
                               device_counters.data())),
                 absl::StrCat(what, ": scanning the storage")));
  DPFUZZ_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(nullptr), what));
  DPFUZZ_RETURN_IF_ERROR(
      device_counters.CopyToHost(&counters, sizeof(counters)));
  if (counters.changed == 0) return report;

  report.changed_bytes = static_cast<int64_t>(counters.changed);
  report.first_byte = static_cast<int64_t>(counters.first_changed);
  report.first_element = report.first_byte / view.element_size;
  if (report.first_element < geometry.storage_offset) {
    report.region = OutsideRegion::kMarginBefore;
  } else if (report.first_element > LastStorageIndex(geometry)) {
    report.region = OutsideRegion::kMarginAfter;
  } else {
    report.region = OutsideRegion::kGap;
  }
  const std::string reading = absl::StrCat(what, ": reading the first change");
  DPFUZZ_RETURN_IF_ERROR(
      CudaStatus(cudaMemcpy(&report.actual, args.storage + report.first_byte, 1,
                            cudaMemcpyDeviceToHost),
                 reading));
  if (args.snapshot != nullptr) {
    DPFUZZ_RETURN_IF_ERROR(CudaStatus(
        cudaMemcpy(&report.expected, args.snapshot + report.first_byte, 1,
                   cudaMemcpyDeviceToHost),
        reading));
  } else {
    report.expected = args.pattern[report.first_byte % args.pattern_size];
  }
  return report;
}

}  // namespace

std::ostream& operator<<(std::ostream& os, OutsideRegion region) {
  switch (region) {
    case OutsideRegion::kMarginBefore:
      return os << "margin before the view";
    case OutsideRegion::kGap:
      return os << "gap inside the view";
    case OutsideRegion::kMarginAfter:
      return os << "margin after the view";
  }
  return os;
}

absl::StatusOr<OutsideViewReport> CheckOutsideViewAgainstPattern(
    const DeviceView& view, absl::Span<const uint8_t> pattern) {
  DPFUZZ_ASSIGN_OR_RETURN(const cuda_kernels::ViewGeometry geometry,
                          MakeViewGeometry(view));
  const std::string what =
      absl::StrCat("checking outside ", DeviceViewToString(view));
  if (pattern.empty() ||
      pattern.size() > static_cast<size_t>(cuda_kernels::kMaxPatternBytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": a pattern of ", pattern.size(), " bytes; it must have 1 to ",
        cuda_kernels::kMaxPatternBytes));
  }
  cuda_kernels::OutsideViewArgs args;
  std::copy(pattern.begin(), pattern.end(), args.pattern);
  args.pattern_size = static_cast<int>(pattern.size());
  return CheckOutsideView(view, geometry, args, what);
}

absl::StatusOr<OutsideViewReport> CheckOutsideViewAgainstSnapshot(
    const DeviceView& view, const void* snapshot) {
  DPFUZZ_ASSIGN_OR_RETURN(const cuda_kernels::ViewGeometry geometry,
                          MakeViewGeometry(view));
  const std::string what =
      absl::StrCat("checking outside ", DeviceViewToString(view));
  if (view.storage_bytes > 0 && snapshot == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": null snapshot"));
  }
  cuda_kernels::OutsideViewArgs args;
  args.snapshot = static_cast<const uint8_t*>(snapshot);
  return CheckOutsideView(view, geometry, args, what);
}

}  // namespace dpfuzz
