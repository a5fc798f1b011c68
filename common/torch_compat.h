// The one place where dpfuzz's code differs between LibTorch versions.
//
// dpfuzz builds against Debian's LibTorch 1.13 and against the LibTorch of
// PyPI's torch 2.x wheel. Where their C++ APIs differ, the difference lives
// here, selected by TORCH_VERSION_MAJOR, and every other file uses the
// names below.
//
//   compat::SilenceWarnings quiet;  // c10 warnings dropped in this scope

#ifndef DPFUZZ_COMMON_TORCH_COMPAT_H_
#define DPFUZZ_COMMON_TORCH_COMPAT_H_

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/util/Exception.h>
#include <torch/version.h>
// LibTorch 2.9 and later count device memory through c10::DeviceAllocator.
#if TORCH_VERSION_MAJOR > 2 || \
    (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 9)
#include <c10/core/CachingDeviceAllocator.h>
#define DPFUZZ_DEVICE_ALLOCATOR_STATS 1
#else
#define DPFUZZ_DEVICE_ALLOCATOR_STATS 0
#endif

#include <cstdint>
#include <string>
#include <vector>

namespace dpfuzz::compat {

// Handles the warnings raised while it lives, in place of LibTorch's
// handler (which prints them): keeps their messages when `keep`, for the
// oracles that read what an op warns, else drops them. 1.13 calls the
// handler with (location, message, verbatim) and keeps it in c10::Warning;
// 2.x passes a c10::Warning and keeps it in c10::WarningUtils.
class CaptureWarnings {
 public:
  explicit CaptureWarnings(bool keep = true)
      : handler_(keep), guard_(&handler_) {}
  const std::vector<std::string>& messages() const { return handler_.messages; }

 private:
  struct Handler : c10::WarningHandler {
    explicit Handler(bool keep) : keep(keep) {}
#if TORCH_VERSION_MAJOR < 2
    void process(const c10::SourceLocation&, const std::string& msg,
                 bool) override {
      if (keep) messages.push_back(msg);
    }
#else
    void process(const c10::Warning& w) override {
      if (keep) messages.push_back(w.msg());
    }
#endif
    bool keep;
    std::vector<std::string> messages;
  };
#if TORCH_VERSION_MAJOR < 2
  using Guard = c10::Warning::WarningHandlerGuard;
#else
  using Guard = c10::WarningUtils::WarningHandlerGuard;
#endif
  Handler handler_;
  Guard guard_;
};

// Drops c10 warnings (TORCH_WARN) while alive, keeping none. Ops under fuzz
// warn a lot (resized out= tensors, deprecated overloads), and a campaign's
// log is for findings.
class SilenceWarnings : public CaptureWarnings {
 public:
  SilenceWarnings() : CaptureWarnings(/*keep=*/false) {}
};

// Note [Nested buffers by version]
// A strided nested tensor is built as LibTorch's own views build one:
// aten::_nested_view_from_buffer(buffer, nested_size, nested_strides,
// offsets). 1.13 takes the offsets as an int[] and asserts that the
// buffer's storage holds exactly as many elements as the components
// together, so there a nested tensor can have transposed and permuted
// components in any order but no gap, margin or overlap
// (generators/nested_layout.h: TilesBuffer). 2.x takes the offsets as a
// tensor and any storage, so components may have gaps, offsets and
// poisoned margins like dense tensors.
inline constexpr bool kNestedBufferMayHaveGaps = TORCH_VERSION_MAJOR >= 2;

// The nested tensor whose components have `sizes`, `strides` (one row per
// component) and `offsets` into `buffer` (1-d, dense).
inline at::Tensor NestedViewFromBuffer(const at::Tensor& buffer,
                                       const at::Tensor& sizes,
                                       const at::Tensor& strides,
                                       const std::vector<int64_t>& offsets) {
#if TORCH_VERSION_MAJOR < 2
  return at::_nested_view_from_buffer(buffer, sizes, strides, offsets);
#else
  return at::_nested_view_from_buffer(
      buffer, sizes, strides,
      at::tensor(offsets, at::TensorOptions().dtype(at::kLong)));
#endif
}

// The storage offset of each component of nested tensor `t`: 1.13 gives
// them as an int[] (_nested_tensor_offsets), 2.x as a tensor
// (_nested_tensor_storage_offsets).
inline std::vector<int64_t> NestedOffsets(const at::Tensor& t) {
#if TORCH_VERSION_MAJOR < 2
  return t._nested_tensor_offsets();
#else
  const at::Tensor offsets = t._nested_tensor_storage_offsets().contiguous();
  return {offsets.data_ptr<int64_t>(),
          offsets.data_ptr<int64_t>() + offsets.numel()};
#endif
}

// Note [Sparse invariants]: a sparse tensor built from indices out of range,
// or compressed indices out of order, is undefined behaviour: its to_dense()
// and its kernels read anything. 1.13's constructors always check; 2.x checks
// only when asked (torch.sparse.check_sparse_tensor_invariants, off by
// default), so there an op whose drawn indices are invalid built a tensor
// whose reads looked like layout bugs. dpfuzz asks, in every process that
// runs cases (oracles/device_sync.h: PrepareDevice) and in its repros
// (crashes/repro/repro_python_prelude.cc, crashes/repro/repro_cpp_prelude.cc):
// such indices are then rejected on every layout, as a user's checked call is.
inline void CheckSparseTensorInvariants() {
#if TORCH_VERSION_MAJOR >= 2
  at::globalContext().setCheckSparseTensorInvariants(true);
#endif
}

// A CPU allocator that forwards to another (oracles/counting_allocator.h).
// 1.13 declares Allocator::allocate const; 2.x does not and adds copy_data,
// which it requires. Subclasses implement Allocate and Deleter.
class ForwardingAllocator : public at::Allocator {
 public:
  explicit ForwardingAllocator(at::Allocator* inner) : inner_(inner) {}
#if TORCH_VERSION_MAJOR < 2
  at::DataPtr allocate(size_t n) const override { return Allocate(n); }
#else
  at::DataPtr allocate(size_t n) override { return Allocate(n); }
  void copy_data(void* dest, const void* src,
                 std::size_t count) const override {
    default_copy_data(dest, src, count);
  }
#endif

 protected:
  virtual at::DataPtr Allocate(size_t n) const = 0;
  at::Allocator* inner() const { return inner_; }

 private:
  at::Allocator* inner_;
};

// The CUDA caching allocator's counters of the current device: bytes
// allocated (live, not reserved) now and their peak since the last
// ResetCudaPeakBytes. LibTorch 2.9 and later answer through the
// device-agnostic c10::DeviceAllocator, which needs no link to c10_cuda;
// older ones (1.13: CPU only here) have none, and kCudaMemoryCounted says
// so.
inline constexpr bool kCudaMemoryCounted = DPFUZZ_DEVICE_ALLOCATOR_STATS;

struct DeviceBytes {
  int64_t allocated = 0;
  int64_t peak = 0;
};

inline DeviceBytes CudaBytes() {
#if DPFUZZ_DEVICE_ALLOCATOR_STATS
  const c10::DeviceIndex device =
      c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getDevice().index();
  const auto stats = c10::getDeviceAllocator(c10::DeviceType::CUDA)
                         ->getDeviceStats(device)
                         .allocated_bytes[0];  // StatType::AGGREGATE
  return {stats.current, stats.peak};
#else
  return {};
#endif
}

inline void ResetCudaPeakBytes() {
#if DPFUZZ_DEVICE_ALLOCATOR_STATS
  const c10::DeviceIndex device =
      c10::impl::getDeviceGuardImpl(c10::DeviceType::CUDA)->getDevice().index();
  c10::getDeviceAllocator(c10::DeviceType::CUDA)->resetPeakStats(device);
#endif
}

}  // namespace dpfuzz::compat

#endif  // DPFUZZ_COMMON_TORCH_COMPAT_H_
