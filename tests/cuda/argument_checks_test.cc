// The device helpers refuse bad arguments before they touch the device, so
// these run (and must pass) on machines without a GPU.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/dense_compare.h"
#include "cuda/storage_integrity.h"
#include "cuda/strided_copy.h"

namespace dpfuzz {
namespace {

// Never dereferenced.
uint8_t* const kFake = reinterpret_cast<uint8_t*>(uintptr_t{1} << 40);

void ExpectInvalid(const absl::Status& status, const std::string& needle) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(status.message().find(needle), absl::string_view::npos) << status;
}

TEST(StridedCopyArgumentsTest, EmptyViewsLaunchNothing) {
  const DeviceView empty{nullptr, 0, 4, {{0, 3}, {3, 1}, 9}};
  EXPECT_TRUE(GatherStrided(empty, nullptr).ok());
  EXPECT_TRUE(ScatterStrided(nullptr, empty).ok());
}

TEST(StridedCopyArgumentsTest, InvalidGeometryIsRejected) {
  const DeviceView negative{kFake, 64, 4, {{4}, {-1}, 3}};
  ExpectInvalid(GatherStrided(negative, kFake + 4096), "negative");
  ExpectInvalid(ScatterStrided(kFake + 4096, negative), "negative");
}

TEST(StridedCopyArgumentsTest, ScatterRejectsViewsThatShareStorage) {
  ExpectInvalid(ScatterStrided(kFake + 4096, {kFake, 64, 4, {{3}, {0}, 0}}),
                "share storage");
  ExpectInvalid(
      ScatterStrided(kFake + 4096, {kFake, 64, 4, {{3, 3}, {1, 1}, 0}}),
      "share storage");
  // Interleaved and too large to enumerate: undecided, so refused.
  const StridedLayout interleaved{{2048, 1024}, {1023, 1}, 0};
  ExpectInvalid(ScatterStrided(kFake + (int64_t{1} << 30),
                               {kFake, int64_t{1} << 22, 1, interleaved}),
                "cannot prove");
}

TEST(StridedCopyArgumentsTest, DenseBufferMustBeSetAndApart) {
  const DeviceView view{kFake, 64, 4, {{4}, {2}, 0}};
  ExpectInvalid(GatherStrided(view, nullptr), "dense buffer is null");
  ExpectInvalid(GatherStrided(view, kFake + 60), "overlaps the view's storage");
  ExpectInvalid(ScatterStrided(kFake - 8, view), "overlaps the view's storage");
}

TEST(DenseCompareArgumentsTest, RejectsBadArguments) {
  ExpectInvalid(CompareDense(kFake, kFake, -1, DType::kFloat32).status(),
                "negative numel");
  for (const double bad : {-1.0, std::nan(""), double{INFINITY}}) {
    CompareOptions options;
    options.mode = CompareMode::kTolerance;
    options.atol = bad;
    ExpectInvalid(
        CompareDense(kFake, kFake, 4, DType::kFloat32, options).status(),
        "finite and non-negative");
    options.atol = 0;
    options.rtol = bad;
    ExpectInvalid(
        CompareDense(kFake, kFake, 4, DType::kFloat32, options).status(),
        "finite and non-negative");
  }
  ExpectInvalid(CompareDense(nullptr, kFake, 4, DType::kInt64).status(),
                "actual buffer is null");
  ExpectInvalid(CompareDense(kFake + 2, kFake, 4, DType::kFloat32).status(),
                "not aligned to 4 bytes for f32");
  ExpectInvalid(CompareDense(kFake, kFake + 4, 4, DType::kComplex128).status(),
                "not aligned to 8 bytes for c128");
}

TEST(DenseCompareArgumentsTest, NothingToCompareIsEqual) {
  const absl::StatusOr<CompareResult> r =
      CompareDense(nullptr, nullptr, 0, DType::kBFloat16);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->equal());
  EXPECT_EQ(r->first_mismatch, -1);
}

TEST(StorageIntegrityArgumentsTest, RejectsBadPatternsAndSnapshots) {
  const DeviceView view{kFake, 64, 4, {{4}, {2}, 0}};
  ExpectInvalid(CheckOutsideViewAgainstPattern(view, {}).status(), "1 to 16");
  ExpectInvalid(
      CheckOutsideViewAgainstPattern(view, std::vector<uint8_t>(17)).status(),
      "1 to 16");
  ExpectInvalid(CheckOutsideViewAgainstSnapshot(view, nullptr).status(),
                "null snapshot");
  const DeviceView too_small{kFake, 12, 4, {{4}, {2}, 0}};
  ExpectInvalid(CheckOutsideViewAgainstSnapshot(too_small, kFake).status(),
                "up to 6");
}

TEST(StorageIntegrityArgumentsTest, AnEmptyStorageIsIntact) {
  const absl::StatusOr<OutsideViewReport> r = CheckOutsideViewAgainstPattern(
      {nullptr, 0, 4, {{0}, {1}, 0}}, std::vector<uint8_t>{0xA5});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->intact());
}

}  // namespace
}  // namespace dpfuzz
