#include "cuda/cuda_status.h"

#include <gtest/gtest.h>

namespace dpfuzz {
namespace {

TEST(CudaStatusTest, SuccessIsOk) {
  EXPECT_TRUE(CudaStatus(cudaSuccess, "anything").ok());
}

TEST(CudaStatusTest, NamesWhatFailedAndTheRuntimesError) {
  const absl::Status s = CudaStatus(cudaErrorMemoryAllocation, "gather of x");
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message().find("gather of x: cudaErrorMemoryAllocation ("), 0u)
      << s;
}

TEST(CudaStatusTest, NoDeviceOrDriverIsUnavailable) {
  EXPECT_EQ(CudaStatus(cudaErrorNoDevice, "x").code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(CudaStatus(cudaErrorInsufficientDriver, "x").code(),
            absl::StatusCode::kUnavailable);
}

TEST(CudaStatusTest, StickyErrorsSayTheContextIsLost) {
  const absl::Status s = CudaStatus(cudaErrorIllegalAddress, "scatter");
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("unusable"), absl::string_view::npos) << s;
  EXPECT_TRUE(IsStickyCudaError(cudaErrorAssert));
  EXPECT_FALSE(IsStickyCudaError(cudaErrorInvalidValue));
  EXPECT_EQ(CudaStatus(cudaErrorInvalidValue, "x").message().find("unusable"),
            absl::string_view::npos);
}

}  // namespace
}  // namespace dpfuzz
