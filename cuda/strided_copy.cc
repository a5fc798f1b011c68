#include "cuda/strided_copy.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "cuda/cuda_status.h"
#include "cuda/kernels.h"
#include "generators/geometry.h"

namespace dpfuzz {
namespace {

// The widest word (at most 16 bytes) that divides the element size and the
// alignment of both buffers.
int WordSize(int64_t element_size, const void* a, const void* b) {
  const uintptr_t bits = static_cast<uintptr_t>(element_size) |
                         reinterpret_cast<uintptr_t>(a) |
                         reinterpret_cast<uintptr_t>(b);
  return static_cast<int>(bits & (~bits + 1));
}

bool RangesOverlap(const void* a, int64_t a_bytes, const void* b,
                   int64_t b_bytes) {
  const auto a_begin = reinterpret_cast<uintptr_t>(a);
  const auto b_begin = reinterpret_cast<uintptr_t>(b);
  return a_begin < b_begin + static_cast<uintptr_t>(b_bytes) &&
         b_begin < a_begin + static_cast<uintptr_t>(a_bytes);
}

using Launcher = cudaError_t (*)(const void*, void*,
                                 const cuda_kernels::ViewGeometry&, int, int);

// Runs `launch` from `from` to `to` once the dense buffer is known to be
// valid device memory apart from the view's storage.
absl::Status RunCopy(const DeviceView& view,
                     const cuda_kernels::ViewGeometry& geometry,
                     const void* dense, const void* from, void* to,
                     Launcher launch, const std::string& what) {
  if (dense == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the dense buffer is null"));
  }
  const int64_t dense_bytes = geometry.numel * view.element_size;
  if (RangesOverlap(dense, dense_bytes, view.storage, view.storage_bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the dense buffer overlaps the view's storage"));
  }
  DPFUZZ_RETURN_IF_ERROR(
      CheckDevicePointer(view.storage, absl::StrCat(what, ": the storage")));
  DPFUZZ_RETURN_IF_ERROR(
      CheckDevicePointer(dense, absl::StrCat(what, ": the dense buffer")));
  const int word_size = WordSize(view.element_size, view.storage, dense);
  DPFUZZ_RETURN_IF_ERROR(
      CudaStatus(launch(from, to, geometry, static_cast<int>(view.element_size),
                        word_size),
                 absl::StrCat(what, ": launch")));
  return CudaStatus(cudaStreamSynchronize(nullptr), what);
}

}  // namespace

absl::Status GatherStrided(const DeviceView& source, void* dense) {
  DPFUZZ_ASSIGN_OR_RETURN(const cuda_kernels::ViewGeometry geometry,
                          MakeViewGeometry(source));
  if (geometry.numel == 0) return absl::OkStatus();
  return RunCopy(source, geometry, dense, source.storage, dense,
                 &cuda_kernels::LaunchGather,
                 absl::StrCat("gather of ", DeviceViewToString(source)));
}

absl::Status ScatterStrided(const void* dense, const DeviceView& destination) {
  DPFUZZ_ASSIGN_OR_RETURN(const cuda_kernels::ViewGeometry geometry,
                          MakeViewGeometry(destination));
  if (geometry.numel == 0) return absl::OkStatus();
  const std::string what =
      absl::StrCat("scatter into ", DeviceViewToString(destination));
  switch (ComputeExactOverlap(destination.layout.sizes,
                              destination.layout.strides)) {
    case MemOverlap::kNo:
      break;
    case MemOverlap::kYes:
      return absl::InvalidArgumentError(absl::StrCat(
          what,
          ": elements of the view share storage, so the result of a "
          "scatter is undefined"));
    case MemOverlap::kTooHard:
      return absl::InvalidArgumentError(
          absl::StrCat(what,
                       ": cannot prove that no two elements share storage (too "
                       "many elements to enumerate)"));
  }
  return RunCopy(destination, geometry, dense, dense, destination.storage,
                 &cuda_kernels::LaunchScatter, what);
}

}  // namespace dpfuzz
