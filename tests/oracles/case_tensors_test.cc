// CheckStorages: which changes to a variant's storages after a call are
// findings, and which are the op's to make.

#include "oracles/case_tensors.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <optional>

#include "generators/case.h"

namespace dpfuzz {
namespace {

// neg.out with a transposed `self` and an `out` of 3 elements at storage
// indices 1, 3, 5 (offset 1, stride 2): index 0 and the gaps 2, 4 belong
// to no argument.
CaseTensors StridedNegOut() {
  Case c;
  c.op = "aten::neg";
  c.variant = Variant::kOut;
  TensorSpec self;
  self.layout = {{2, 3}, {1, 2}, 0};
  TensorSpec out;
  out.layout = {{3}, {2}, 1};
  c.args.push_back(Argument{"self", self});
  c.args.push_back(Argument{"out", out});
  absl::StatusOr<CaseTensors> tensors = MaterializeVariant(c);
  EXPECT_TRUE(tensors.ok()) << tensors.status();
  return tensors.ok() ? *std::move(tensors) : CaseTensors{};
}

// What a test prints of a change it did not expect.
std::string Describe(const std::optional<StorageChange>& change) {
  return change.has_value() ? change->where + ": " + change->detail : "none";
}

at::Tensor& Arg(CaseTensors& tensors, const std::string& name) {
  return tensors.args.at(name).front();
}

// The storage under `name` as one flat float tensor over all its elements.
at::Tensor StorageOf(CaseTensors& tensors, const std::string& name) {
  const c10::Storage& storage = Arg(tensors, name).storage();
  return at::empty({0}, at::kFloat)
      .set_(storage, 0,
            {static_cast<int64_t>(storage.nbytes() / sizeof(float))}, {1});
}

TEST(CaseTensorsTest, WritingTheWrittenArgumentIsNoChange) {
  CaseTensors tensors = StridedNegOut();
  Arg(tensors, "out").fill_(7);
  EXPECT_EQ(Describe(CheckStorages(tensors, {"out"})), "none");
}

TEST(CaseTensorsTest, WritingAGapIsAnOutsideWrite) {
  CaseTensors tensors = StridedNegOut();
  StorageOf(tensors, "out")[2].fill_(7);
  const std::optional<StorageChange> change = CheckStorages(tensors, {"out"});
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->verdict, Verdict::kOutsideWrite);
  EXPECT_EQ(change->where, "storage of out");
  EXPECT_NE(change->detail.find("storage[2], a gap or margin"),
            std::string::npos)
      << change->detail;
}

TEST(CaseTensorsTest, WritingAnInputIsAnInputModified) {
  CaseTensors tensors = StridedNegOut();
  Arg(tensors, "self").mul_(2).add_(1);  // Changes every element.
  const std::optional<StorageChange> change = CheckStorages(tensors, {"out"});
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->verdict, Verdict::kInputModified);
  EXPECT_EQ(change->where, "storage of self");
}

// An out= of the wrong size is resized in place: a storage too small grows
// (and stays grown when the op resizes it again, smaller), and the tensor
// addresses its storage contiguously from its offset. What it addresses
// then may change; what the storage had before its offset may not; what
// the growth added was never poisoned and is not compared.
TEST(CaseTensorsTest, AnOutGrownInPlaceIsComparedWhereItWas) {
  CaseTensors tensors = StridedNegOut();
  at::Tensor& out = Arg(tensors, "out");
  const int64_t had = out.storage().nbytes() / sizeof(float);
  out.resize_({4096});
  at::Tensor storage = StorageOf(tensors, "out");
  ASSERT_GT(storage.numel(), had);
  storage.narrow(0, had, storage.numel() - had).fill_(1);  // New memory.
  out.resize_({5}).fill_(2);
  EXPECT_EQ(Describe(CheckStorages(tensors, {"out"})), "none");

  StorageOf(tensors, "out")[0].fill_(7);  // Before the offset.
  const std::optional<StorageChange> change = CheckStorages(tensors, {"out"});
  ASSERT_TRUE(change.has_value());
  EXPECT_EQ(change->verdict, Verdict::kOutsideWrite);
  EXPECT_NE(change->detail.find("storage[0]"), std::string::npos)
      << change->detail;
}

}  // namespace
}  // namespace dpfuzz
