#include "crashes/isolation/crash_signature.h"

#include <csignal>

#include "crashes/isolation/crash_handler.h"
#include "gtest/gtest.h"
#include "oracles/device_sync.h"

namespace dpfuzz {
namespace {

std::string Banner() { return std::string(kCrashBanner) + "SIGSEGV"; }

TEST(CrashSignatureTest, NumbersAndAddressesGoNamesStay) {
  EXPECT_EQ(NormalizeCrashText("free(): invalid size 0x55d0c3a1 at 42"),
            "free():_invalid_size_0x?_at_N");
  EXPECT_EQ(NormalizeCrashText("c10::impl::fp16  tensor  12\n"),
            "c10::impl::fp16_tensor_N");
}

TEST(CrashSignatureTest, TopFramesOutsideTheRuntimeWithoutTemplates) {
  const std::vector<std::string> lines = {
      "some output before",
      Banner(),
      "/lib/x86_64-linux-gnu/libc.so.6(+0x3bf90) [0x7f0000000001]",
      "/build/libdpfuzz_planted_ops.so(+0x1a2b) [0x7f0000000002]",
      "/build/libdpfuzz_planted_ops.so(+0x1a3b) [0x7f0000000012]",
      "/usr/lib/libc10.so(_ZN3c104impl3boxIN2at6TensorEE4callEv+0x99) "
      "[0x7f0000000003]",
      "/usr/lib/libtorch_cpu.so(_ZN2at6native3fooEv+0x10) [0x7f0000000004]",
      "/usr/lib/libtorch_cpu.so(_ZN2at6native3barEv+0x10) [0x7f0000000005]",
  };
  EXPECT_EQ(CrashKey(SIGSEGV, lines),
            "SIGSEGV@libdpfuzz_planted_ops.so>"
            "c10::impl::box::call>at::native::foo");
}

TEST(CrashSignatureTest, TwoRunsOfOneBugGiveOneKey) {
  const auto lines = [](const std::string& address, const std::string& size) {
    return std::vector<std::string>{
        "INFO: case " + size, "free(): invalid next size (fast) " + address,
        Banner(), "/usr/lib/libc.so.6(abort+0x10) [" + address + "]"};
  };
  const std::string a = CrashKey(SIGABRT, lines("0x7ffd1234", "17"));
  EXPECT_EQ(a, CrashKey(SIGABRT, lines("0x7ffe9999", "3")));
  EXPECT_EQ(a, "SIGABRT:free():_invalid_next_size_(fast)_0x?");
}

TEST(CrashSignatureTest, OnlyTheLastWordsBeforeDyingCount) {
  // A fatal-looking line followed by other output is not the cause.
  const std::vector<std::string> lines = {"free(): invalid pointer",
                                          "later output", Banner()};
  EXPECT_EQ(CrashKey(SIGSEGV, lines), "SIGSEGV");
  EXPECT_EQ(CrashKey(SIGKILL, {}), "SIGKILL");
}

TEST(CrashSignatureTest, DeviceErrorsAreKeyedByTheirFirstLine) {
  const std::string error =
      "CUDA error: an illegal memory access was encountered";
  const std::vector<std::string> lines = {
      error,
      "CUDA kernel errors might be asynchronously reported",
      std::string(kDeviceErrorBanner) + error,
      "",
      std::string(kCrashBanner) + "SIGABRT",
      "/usr/lib/libc.so.6(abort+0x10) [0x7f0000000001]"};
  EXPECT_EQ(CrashKey(SIGABRT, lines),
            "SIGABRT:dpfuzz-worker:_device_error:_CUDA_error:_an_illegal_"
            "memory_access_was_encountered");
}

TEST(CrashSignatureDeathTest, DieOfDeviceErrorSaysTheFirstLineLast) {
  EXPECT_DEATH(DieOfDeviceError("CUDA error: device-side assert triggered\n"
                                "Compile with TORCH_USE_CUDA_DSA"),
               "Compile with TORCH_USE_CUDA_DSA\n"
               "dpfuzz-worker: device error: CUDA error: device-side assert "
               "triggered");
}

// glibc's allocator's fatal messages, which it prints wherever it next
// frees or allocates after the heap was corrupted.
TEST(CrashSignatureTest, HeapCorruptionIsKnownByGlibcsMessages) {
  for (const char* message :
       {"free(): invalid pointer", "double free or corruption (out)",
        "malloc(): corrupted top size", "invalid fastbin entry (free)",
        "corrupted size vs. prev_size", "munmap_chunk(): invalid pointer"}) {
    EXPECT_TRUE(
        ReportsHeapCorruption({"dpfuzz-worker: caught SIGABRT", message}))
        << message;
  }
  // A segfault inside the allocator: its bookkeeping was overwritten.
  EXPECT_TRUE(ReportsHeapCorruption(
      {"dpfuzz-worker: caught SIGSEGV",
       "/lib/x86_64-linux-gnu/libc_malloc_debug.so.0(malloc+0xd5)[0x7f]",
       "/lib/x86_64-linux-gnu/libstdc++.so.6(_Znwm+0x1c)[0x7f]"}));
  EXPECT_FALSE(ReportsHeapCorruption(
      {"dpfuzz-worker: caught SIGSEGV",
       "/usr/lib/libtorch_cpu.so(_ZN2at6native3addEv+0x10)[0x7f]"}));
  EXPECT_FALSE(ReportsHeapCorruption(
      {"terminate called after throwing an instance of 'c10::Error'"}));
}

// Out of an op call, a segfault in LibTorch's code is about what an op
// left behind; one in dpfuzz's own code, or an abort, is not.
TEST(CrashSignatureTest, SegfaultsInLibTorchAreKnownByTheirFirstFrame) {
  EXPECT_TRUE(SegfaultInLibTorch(
      {"dpfuzz-worker: caught SIGSEGV",
       "/lib/x86_64-linux-gnu/libc.so.6(+0x3bfd0)[0x7f]",
       "/x/torch/lib/libc10.so(_ZN3c1010TensorImplD1Ev+0x59)[0x7f]",
       "/x/build/fuzz/dpfuzz(+0x12efdd)[0x55]"}));
  EXPECT_FALSE(SegfaultInLibTorch(
      {"dpfuzz-worker: caught SIGSEGV", "/x/build/fuzz/dpfuzz(+0x12efdd)[0x55]",
       "/x/torch/lib/libtorch_cpu.so(+0x5e6a2c3)[0x7f]"}));
  EXPECT_FALSE(SegfaultInLibTorch(
      {"dpfuzz-worker: caught SIGABRT",
       "/x/torch/lib/libc10.so(_ZN3c1010TensorImplD1Ev+0x59)[0x7f]"}));
}

TEST(CrashSignatureTest, SignalNames) {
  EXPECT_EQ(SignalName(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(SignalName(SIGABRT), "SIGABRT");
  EXPECT_EQ(SignalName(0), "exit");
}

}  // namespace
}  // namespace dpfuzz
