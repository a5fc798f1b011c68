// Mechanisms by the places written (oracles/places_written.h): a write
// with no values to simulate is named by the storage elements it changed,
// and only when those are exactly what the mistake writes.

#include "oracles/places_written.h"

#include <gtest/gtest.h>

#include "generators/contract_rules.h"
#include "oracles/case_tensors.h"
#include "tests/oracles/laid_argument.h"

namespace dpfuzz {
namespace {

// The variant tensors of a case of `args`, as an op's call leaves them:
// the storage of `arg` gets 1234.5 (beyond the small values `Laid` draws) at
// each of `elements`.
struct Written {
  Case c;
  CaseTensors variant;

  Written(std::vector<Argument> args, const std::string& arg,
          const std::vector<int64_t>& elements,
          std::vector<Alias> aliases = {}) {
    c.op = "test::op";
    c.args = std::move(args);
    c.aliases = std::move(aliases);
    variant = *MaterializeVariant(c);
    at::Tensor view = variant.args.at(arg).front();
    float* storage = view.data_ptr<float>() - view.storage_offset();
    for (int64_t e : elements) storage[e] = 1234.5f;
  }

  std::optional<Explanation> Explain(std::vector<std::string> results,
                                     std::vector<std::string> written) {
    Simulation s = SimulationOf(c, variant, std::move(results), {}, {},
                                Comparison::kExact, nullptr);
    s.written = std::move(written);
    return ExplainByPlacesWritten(s);
  }
};

TEST(PlacesWrittenTest, AnArgumentWrittenByDesignWrittenLinearly) {
  // test::op writes `noise` though its schema does not say so.
  AddMutatedArgumentRules({{"test::op", "noise", "", "a random op's state"}});
  // noise [2]@[2]: its elements are storage[0] and storage[2]; written as if
  // contiguous, storage[0] and storage[1].
  const std::vector<Argument> args = {Laid("self", {2}, {1}),
                                      Laid("noise", {2}, {2})};
  Written linear(args, "noise", {0, 1});
  std::optional<Explanation> e = linear.Explain({"output 0"}, {});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->mechanism, "writes_as_contiguous");
  EXPECT_EQ(e->argument, "noise");
  // An out= sharing noise's storage, [2]@[1] at storage[0]: storage[2] is
  // noise's second element written linearly and out's past its end alike.
  Written shared({Laid("self", {2}, {1}), Laid("noise", {2}, {2}, 1),
                  Laid("out", {2}, {1})},
                 "noise", {0, 1, 2}, {Alias{"out", "noise"}});
  EXPECT_FALSE(shared.Explain({"out"}, {"out"}));
  // An input the op does not write is no mistake's.
  Written input({Laid("self", {2}, {1}), Laid("weight", {2}, {2})}, "weight",
                {0, 1});
  EXPECT_FALSE(input.Explain({"output 0"}, {}));
  // A compared result's writes are judged by their values instead.
  EXPECT_FALSE(Written(args, "noise", {0, 1}).Explain({"noise"}, {}));
  // Its second element written too: not what a linear write does.
  EXPECT_FALSE(Written(args, "noise", {0, 1, 2}).Explain({"output 0"}, {}));
  // Past the numel elements from its data pointer.
  EXPECT_FALSE(Written(args, "noise", {0, 3}).Explain({"output 0"}, {}));
  // Only its own elements: nothing outside to explain.
  EXPECT_FALSE(Written(args, "noise", {0, 2}).Explain({"output 0"}, {}));
}

TEST(PlacesWrittenTest, AContiguousArgumentWrittenOnPastItsEnd) {
  // A 0-dim out at storage[1]: more values from its data pointer land at
  // storage[2], storage[3].
  const std::vector<Argument> args = {Laid("self", {3}, {1}),
                                      Laid("out", {}, {}, 1)};
  std::optional<Explanation> e =
      Written(args, "out", {1, 2, 3}).Explain({"out"}, {"out"});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->mechanism, "writes_past_end");
  EXPECT_EQ(e->argument, "out");
  // Not one run from its end: a stray write, not a longer tensor.
  EXPECT_FALSE(Written(args, "out", {1, 3}).Explain({"out"}, {"out"}));
  // Before its start.
  EXPECT_FALSE(Written(args, "out", {0, 1}).Explain({"out"}, {"out"}));
}

TEST(PlacesWrittenTest, AnOutLeftResizedIsNotJudgedByPlaces) {
  const std::vector<Argument> args = {Laid("self", {4}, {1}),
                                      Laid("out", {2}, {1})};
  // An out= of two elements resized to the result's four, in its storage.
  Written resized(args, "out", {0, 1, 2, 3});
  resized.variant.args.at("out").front().resize_({4});
  EXPECT_FALSE(resized.Explain({"out"}, {"out"}));
  // The same writes with out left as it was: past its end.
  std::optional<Explanation> e =
      Written(args, "out", {0, 1, 2, 3}).Explain({"out"}, {"out"});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->mechanism, "writes_past_end");
}

TEST(PlacesWrittenTest, AStorageTheCallGrewIsJudgedByTheElementsItHad) {
  // The out= resized to the unreduced size (its storage grows past the
  // elements it had), written, and resized back.
  Written grown({Laid("self", {3}, {1}), Laid("out", {}, {}, 1)}, "out",
                {1, 2, 3});
  at::Tensor out = grown.variant.args.at("out").front();
  const size_t had = out.storage().nbytes();
  out.resize_({40});
  out.resize_({});
  ASSERT_GT(out.storage().nbytes(), had);
  std::optional<Explanation> e = grown.Explain({"out"}, {"out"});
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->mechanism, "writes_past_end");
}

}  // namespace
}  // namespace dpfuzz
