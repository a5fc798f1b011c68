#include "generators/case_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "absl/hash/hash_testing.h"
#include "generators/layout_generator.h"
#include "generators/rng.h"

namespace dpfuzz {
namespace {

using ::testing::HasSubstr;

// A case with every kind of argument, drawn from `rng`.
Case RandomCase(Rng& rng) {
  Case c;
  c.op = "aten::op" + std::to_string(rng.Uniform(0, 9));
  c.overload = rng.OneIn(2) ? "" : "Tensor_out";
  c.variant = static_cast<Variant>(rng.Uniform(0, 3));
  c.seed = rng.Next();
  const double floats[] = {0.5,
                           -0.0,
                           std::numeric_limits<double>::quiet_NaN(),
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           1e-310,
                           0.1,
                           -123456.789};
  const int n = static_cast<int>(rng.Uniform(0, 8));
  for (int i = 0; i < n; ++i) {
    Argument arg{"a" + std::to_string(i), std::monostate{}};
    auto spec = [&] {
      TensorSpec s = GenerateTensorSpec(GenerateSizes(rng),
                                        rng.Pick(AllDTypes()), {}, rng);
      s.requires_grad =
          (IsFloating(s.dtype) || IsComplex(s.dtype)) && rng.OneIn(2);
      s.device = rng.OneIn(4) ? Device::kCuda : Device::kCpu;
      if (rng.OneIn(3)) {
        s.values.distribution = Distribution::kUniqueIndices;
        s.values.high = rng.Uniform(1, 9);
      } else if (rng.OneIn(3)) {  // Recorded seed values, specials too.
        s.values.distribution = Distribution::kExplicit;
        for (int k = 0; k < 3; ++k)
          s.values.data.push_back(floats[rng.Uniform(0, 7)]);
      }
      return s;
    };
    switch (rng.Uniform(0, 7)) {
      case 0:
        break;
      case 1:
        arg.value = rng.OneIn(2);
        break;
      case 2:
        arg.value = static_cast<int64_t>(rng.Next());
        break;
      case 3:
        arg.value = FloatArg{floats[rng.Uniform(0, 7)]};
        break;
      case 4:
        arg.value = std::string(rng.OneIn(2) ? "sum" : "quote\"and\\slash");
        break;
      case 5:
        arg.value = GenerateSizes(rng);
        break;
      case 6:
        arg.value = spec();
        break;
      default:
        arg.value = std::vector<TensorSpec>{spec(), spec()};
        break;
    }
    c.args.push_back(arg);
  }
  for (size_t i = 1; i < c.args.size(); ++i) {
    const auto* a = std::get_if<TensorSpec>(&c.args[i - 1].value);
    const auto* b = std::get_if<TensorSpec>(&c.args[i].value);
    if (a && b && a->dtype == b->dtype && rng.OneIn(2)) {
      c.aliases.push_back({c.args[i].name, c.args[i - 1].name});
    }
  }
  if (rng.OneIn(2)) {
    c.grad_outputs.push_back(
        GenerateTensorSpec(GenerateSizes(rng), DType::kFloat32, {}, rng));
  }
  return c;
}

TEST(CaseJsonTest, RoundTripsExactly) {
  Rng rng(2024);
  for (int i = 0; i < 2000; ++i) {
    const Case c = RandomCase(rng);
    const std::string text = CaseToJson(c);
    absl::StatusOr<Case> back = CaseFromJson(text);
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << text;
    ASSERT_EQ(*back, c) << text;
    ASSERT_EQ(CaseToJson(*back), text);  // Stable text: a fixed point.
  }
}

TEST(CaseJsonTest, HashAndEqualityAreConsistent) {
  Rng rng(8);
  std::vector<Case> cases;
  for (int i = 0; i < 50; ++i) cases.push_back(RandomCase(rng));
  EXPECT_TRUE(absl::VerifyTypeImplementsAbslHashCorrectly(cases));
}

TEST(CaseJsonTest, TextIsReadableAndDiffable) {
  Case c;
  c.op = "aten::masked_select";
  c.seed = 42;
  TensorSpec self;
  self.layout = {{2, 3}, {1, 2}, 1};
  self.values = {7, Distribution::kDyadic, kSpecialNaN};
  c.args = {{"self", self}, {"dim", int64_t{1}}, {"alpha", FloatArg{-0.0}}};
  EXPECT_EQ(CaseToJson(c), R"({
  "args": [
    {
      "name": "self",
      "tensor": {
        "device": "cpu",
        "dtype": "f32",
        "requires_grad": false,
        "sizes": [2, 3],
        "storage_offset": 1,
        "strides": [1, 2],
        "values": {
          "distribution": "dyadic",
          "seed": 7,
          "specials": ["nan"]
        }
      }
    },
    {
      "int": 1,
      "name": "dim"
    },
    {
      "float": -0.0,
      "name": "alpha"
    }
  ],
  "format": "dpfuzz-case",
  "op": "aten::masked_select",
  "overload": "",
  "seed": 42,
  "variant": "functional",
  "version": 1
}
)");
}

TEST(CaseJsonTest, SaveAndLoadFile) {
  Rng rng(1);
  const Case c = RandomCase(rng);
  const std::string path = ::testing::TempDir() + "/case_json_test.json";
  ASSERT_TRUE(SaveCaseFile(c, path).ok());
  absl::StatusOr<Case> back = LoadCaseFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, c);
  std::remove(path.c_str());
}

struct Malformed {
  const char* what;
  std::string text;
  const char* error;  // A substring the error must contain.
};

std::string WithArg(const std::string& arg) {
  return R"({"format": "dpfuzz-case", "version": 1, "op": "aten::abs",
             "variant": "functional", "args": [)" +
         arg + "]}";
}

std::string WithTensor(const std::string& fields) {
  return WithArg(R"({"name": "self", "tensor": {)" + fields + "}}");
}

// Each malformed file gives one clear error naming the file, the field and
// what was expected: never a crash, never a silently wrong case.
TEST(CaseJsonTest, MalformedFilesGiveClearErrors) {
  const std::vector<Malformed> cases = {
      {"not JSON", "{\"format\": \"dpfuzz-case\",\n  \"op\": }",
       "x.json: not valid JSON at line 2, column 9"},
      {"empty file", "", "x.json: not valid JSON at line 1, column 1"},
      {"not an object", "[1, 2]", "field \"\" must be an object, not [1,2]"},
      {"missing op",
       R"({"format": "dpfuzz-case", "version": 1, "variant": "out", "args": []})",
       "field \"op\" is missing"},
      {"wrong format",
       R"({"format": "pytorch", "version": 1, "op": "aten::abs", "variant": "out", "args": []})",
       "field \"format\" is \"pytorch\"; expected \"dpfuzz-case\""},
      {"newer version",
       R"({"format": "dpfuzz-case", "version": 2, "op": "aten::abs", "variant": "out", "args": []})",
       "field \"version\" is 2; this dpfuzz reads version 1"},
      {"unqualified op",
       R"({"format": "dpfuzz-case", "version": 1, "op": "abs", "variant": "out", "args": []})",
       "field \"op\" is \"abs\"; expected a qualified name"},
      {"unknown variant",
       R"({"format": "dpfuzz-case", "version": 1, "op": "aten::abs", "variant": "outplace", "args": []})",
       "field \"variant\" unknown variant \"outplace\"; expected one of "
       "functional"},
      {"unknown top-level field",
       R"({"format": "dpfuzz-case", "version": 1, "op": "aten::abs", "variant": "out", "args": [], "sed": 1})",
       "field \"sed\" is not a known field"},
      {"args not an array",
       R"({"format": "dpfuzz-case", "version": 1, "op": "aten::abs", "variant": "out", "args": {}})",
       "field \"args\" must be an array"},
      {"argument without value", WithArg(R"({"name": "self"})"),
       "field \"args[0]\" has no value; expected one of none, bool"},
      {"argument with two values",
       WithArg(R"({"name": "k", "int": 1, "bool": true})"),
       "field \"args[0]\" has both \"bool\" and \"int\""},
      {"duplicate argument names",
       WithArg(R"({"name": "k", "int": 1}, {"name": "k", "int": 2})"),
       "field \"args[1].name\" is \"k\"; names must be non-empty and unique"},
      {"int given as float", WithArg(R"({"name": "k", "int": 1.5})"),
       "field \"args[0].int\" must be an integer, not 1.5"},
      {"int beyond int64",
       WithArg(R"({"name": "k", "int": 18446744073709551615})"),
       "field \"args[0].int\" is 18446744073709551615, beyond int64"},
      {"bad float string", WithArg(R"({"name": "x", "float": "NaN"})"),
       "field \"args[0].float\" must be a number or \"nan\""},
      {"unknown dtype",
       WithTensor(R"("dtype": "float", "sizes": [2], "strides": [1])"),
       "field \"args[0].tensor.dtype\" unknown dtype \"float\"; expected one "
       "of b8"},
      {"strides and sizes disagree",
       WithTensor(
           R"("dtype": "f32", "sizes": [4, 1, 4, 4], "strides": [16, 4, 1])"),
       "field \"args[0].tensor\" is not a valid tensor: \"strides\" has 3 "
       "entries "
       "but \"sizes\" has 4"},
      {"negative size",
       WithTensor(R"("dtype": "f32", "sizes": [2, -3], "strides": [1, 1])"),
       "\"sizes\"[1] is -3; sizes must be >= 0"},
      {"negative stride",
       WithTensor(R"("dtype": "f32", "sizes": [2], "strides": [-1])"),
       "\"strides\"[0] is -1; LibTorch strides must be >= 0"},
      {"huge storage",
       WithTensor(
           R"("dtype": "f32", "sizes": [100000, 100000], "strides": [100000, 1])"),
       "needs more than 268435456 elements"},
      {"sizes hold a string",
       WithTensor(R"("dtype": "f32", "sizes": [2, "3"], "strides": [1, 1])"),
       "field \"args[0].tensor.sizes[1]\" must be an integer, not \"3\""},
      {"missing strides", WithTensor(R"("dtype": "f32", "sizes": [2])"),
       "field \"args[0].tensor.strides\" is missing"},
      {"grad on integers",
       WithTensor(
           R"("dtype": "i64", "sizes": [2], "strides": [1], "requires_grad": true)"),
       "dtype i64 is not floating or complex"},
      {"unknown tensor field",
       WithTensor(
           R"("dtype": "f32", "sizes": [2], "strides": [1], "offset": 3)"),
       "field \"args[0].tensor.offset\" is not a known field; expected one of "
       "dtype"},
      {"unknown distribution",
       WithTensor(R"("dtype": "f32", "sizes": [2], "strides": [1],
                     "values": {"seed": 1, "distribution": "gaussian"})"),
       "field \"args[0].tensor.values.distribution\" unknown distribution "
       "\"gaussian\""},
      {"unknown special",
       WithTensor(R"("dtype": "f32", "sizes": [2], "strides": [1],
                     "values": {"seed": 1, "distribution": "ones", "specials": ["qnan"]})"),
       "field \"args[0].tensor.values.specials[0]\" unknown special value "
       "\"qnan\""},
      {"negative seed",
       WithTensor(R"("dtype": "f32", "sizes": [2], "strides": [1],
                     "values": {"seed": -1, "distribution": "ones"})"),
       "field \"args[0].tensor.values.seed\" must be a non-negative integer, "
       "not -1"},
      {"alias of a non-tensor",
       R"({"format": "dpfuzz-case", "version": 1, "op": "aten::abs", "variant": "out",
           "args": [{"name": "k", "int": 1}], "aliases": [{"arg": "k", "base": "k"}]})",
       "field \"aliases[0]\" names \"k\", which is not a tensor argument"},
      {"unknown device",
       WithTensor(
           R"("dtype": "f32", "sizes": [2], "strides": [1], "device": "mps")"),
       "field \"args[0].tensor.device\" unknown device \"mps\""},
  };
  for (const Malformed& m : cases) {
    absl::StatusOr<Case> c = CaseFromJson(m.text, "x.json");
    ASSERT_FALSE(c.ok()) << m.what;
    EXPECT_EQ(c.status().code(), absl::StatusCode::kInvalidArgument) << m.what;
    EXPECT_THAT(std::string(c.status().message()), HasSubstr(m.error))
        << m.what;
    EXPECT_THAT(std::string(c.status().message()),
                HasSubstr("case file x.json"))
        << m.what;
  }
}

TEST(CaseJsonTest, MissingFileIsNotFound) {
  absl::StatusOr<Case> c = LoadCaseFile("/nonexistent/dir/case.json");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(
      std::string(c.status().message()),
      HasSubstr("case file /nonexistent/dir/case.json: cannot be opened"));
}

}  // namespace
}  // namespace dpfuzz
