#include "oracles/counting_allocator.h"

#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <cstdint>
#include <limits>

#include "common/torch_compat.h"

namespace dpfuzz {
namespace {

std::atomic<int64_t> g_allocated{0};
std::atomic<int64_t> g_peak{0};
std::atomic<bool> g_installed{false};

void RaisePeak(int64_t now) {
  int64_t peak = g_peak.load(std::memory_order_relaxed);
  while (now > peak &&
         !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

// What the deleter of a counted DataPtr needs: the allocation it wraps
// (whose own deleter frees the memory) and its size.
struct Counted {
  at::DataPtr inner;
  int64_t bytes;
};

void DeleteCounted(void* context) {
  auto* counted = static_cast<Counted*>(context);
  g_allocated.fetch_sub(counted->bytes, std::memory_order_relaxed);
  delete counted;
}

class CountingAllocator : public compat::ForwardingAllocator {
 public:
  using ForwardingAllocator::ForwardingAllocator;

 protected:
  at::DataPtr Allocate(size_t n) const override {
    at::DataPtr inner_ptr = inner()->allocate(n);
    void* data = inner_ptr.get();
    const c10::Device device = inner_ptr.device();
    const auto bytes = static_cast<int64_t>(n);
    RaisePeak(g_allocated.fetch_add(bytes, std::memory_order_relaxed) + bytes);
    return at::DataPtr(data, new Counted{std::move(inner_ptr), bytes},
                       &DeleteCounted, device);
  }
};

}  // namespace

void InstallCountingCpuAllocator() {
  if (g_installed.exchange(true)) return;
  // Leaked on purpose: tensors it allocated may outlive every static.
  static auto* counting = new CountingAllocator(c10::GetCPUAllocator());
  c10::SetCPUAllocator(counting, std::numeric_limits<uint8_t>::max());
}

bool CountingCpuAllocatorInstalled() { return g_installed.load(); }

int64_t CpuAllocatedBytes() {
  return g_allocated.load(std::memory_order_relaxed);
}

int64_t CpuPeakBytes() { return g_peak.load(std::memory_order_relaxed); }

void ResetCpuPeakBytes() {
  g_peak.store(g_allocated.load(std::memory_order_relaxed),
               std::memory_order_relaxed);
}

}  // namespace dpfuzz
