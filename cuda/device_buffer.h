// DeviceBuffer: an owned block of device memory (cudaMalloc / cudaFree).
//
// The scratch memory of the device helpers (counters, masks) and of their
// tests. Move-only; freed on destruction. Fresh memory is zero-filled, so
// a helper's result never depends on what a previous allocation left.
//
//   DPFUZZ_ASSIGN_OR_RETURN(DeviceBuffer buffer,
//                           DeviceBuffer::FromHost(bytes));
//   DPFUZZ_ASSIGN_OR_RETURN(std::vector<uint8_t> back, buffer.ToHost());

#ifndef DPFUZZ_CUDA_DEVICE_BUFFER_H_
#define DPFUZZ_CUDA_DEVICE_BUFFER_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace dpfuzz {

class DeviceBuffer {
 public:
  // `bytes` zero bytes on the current device; no allocation for 0 bytes
  // (data() is then null).
  static absl::StatusOr<DeviceBuffer> Allocate(int64_t bytes);

  // A buffer holding a copy of `bytes`.
  static absl::StatusOr<DeviceBuffer> FromHost(absl::Span<const uint8_t> bytes);

  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();  // cudaFree; an error there cannot be reported.

  void* data() const { return data_; }
  int64_t size() const { return size_; }

  // Copies `bytes` bytes from host memory to the start of the buffer, or
  // from its start to host memory; `bytes` must not exceed size().
  absl::Status CopyFromHost(const void* source, int64_t bytes);
  absl::Status CopyToHost(void* destination, int64_t bytes) const;

  // The whole buffer, copied to the host.
  absl::StatusOr<std::vector<uint8_t>> ToHost() const;

 private:
  void Free();

  void* data_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace dpfuzz

#endif  // DPFUZZ_CUDA_DEVICE_BUFFER_H_
