// SkipErrorBacktraces: a rejected call's error keeps its message and
// loses LibTorch's C++ backtrace, the cost a campaign's worker and the
// libFuzzer target skip.

#include "oracles/invoke.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <string>

namespace dpfuzz {
namespace {

// what() of the error adding tensors of 3 and 4 elements throws.
std::string AddError() {
  try {
    at::add(at::ones({3}), at::ones({4}));
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what_without_backtrace()).find("must match"),
              std::string::npos);
    return e.what();
  }
  ADD_FAILURE() << "adding 3 and 4 elements did not throw";
  return "";
}

TEST(InvokeTest, ErrorsSkipTheirBacktraceOnceAsked) {
  EXPECT_NE(AddError().find("frame #"), std::string::npos);
  SkipErrorBacktraces();
  const std::string skipped = AddError();
  EXPECT_NE(skipped.find("must match"), std::string::npos);
  EXPECT_EQ(skipped.find("frame #"), std::string::npos) << skipped;
}

}  // namespace
}  // namespace dpfuzz
