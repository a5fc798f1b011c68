#include "cuda/device_buffer.h"

#include <cuda_runtime_api.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "cuda/cuda_status.h"

namespace dpfuzz {

absl::StatusOr<DeviceBuffer> DeviceBuffer::Allocate(int64_t bytes) {
  if (bytes < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("device buffer of ", bytes, " bytes"));
  }
  DeviceBuffer buffer;
  if (bytes == 0) return buffer;
  const std::string what = absl::StrCat("allocating ", bytes, " device bytes");
  DPFUZZ_RETURN_IF_ERROR(
      CudaStatus(cudaMalloc(&buffer.data_, static_cast<size_t>(bytes)), what));
  buffer.size_ = bytes;
  DPFUZZ_RETURN_IF_ERROR(CudaStatus(
      cudaMemset(buffer.data_, 0, static_cast<size_t>(bytes)), what));
  return buffer;
}

absl::StatusOr<DeviceBuffer> DeviceBuffer::FromHost(
    absl::Span<const uint8_t> bytes) {
  const auto size = static_cast<int64_t>(bytes.size());
  DPFUZZ_ASSIGN_OR_RETURN(DeviceBuffer buffer, Allocate(size));
  DPFUZZ_RETURN_IF_ERROR(buffer.CopyFromHost(bytes.data(), size));
  return buffer;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Free();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { Free(); }

void DeviceBuffer::Free() {
  if (data_ != nullptr) cudaFree(data_);
  data_ = nullptr;
  size_ = 0;
}

absl::Status DeviceBuffer::CopyFromHost(const void* source, int64_t bytes) {
  if (bytes < 0 || bytes > size_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "copying ", bytes, " bytes into a device buffer of ", size_));
  }
  if (bytes == 0) return absl::OkStatus();
  return CudaStatus(cudaMemcpy(data_, source, static_cast<size_t>(bytes),
                               cudaMemcpyHostToDevice),
                    absl::StrCat("copying ", bytes, " bytes to the device"));
}

absl::Status DeviceBuffer::CopyToHost(void* destination, int64_t bytes) const {
  if (bytes < 0 || bytes > size_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "copying ", bytes, " bytes out of a device buffer of ", size_));
  }
  if (bytes == 0) return absl::OkStatus();
  return CudaStatus(cudaMemcpy(destination, data_, static_cast<size_t>(bytes),
                               cudaMemcpyDeviceToHost),
                    absl::StrCat("copying ", bytes, " bytes to the host"));
}

absl::StatusOr<std::vector<uint8_t>> DeviceBuffer::ToHost() const {
  std::vector<uint8_t> bytes(static_cast<size_t>(size_));
  DPFUZZ_RETURN_IF_ERROR(CopyToHost(bytes.data(), size_));
  return bytes;
}

}  // namespace dpfuzz
