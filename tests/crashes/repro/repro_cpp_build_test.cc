// The C++ repro and its CMakeLists.txt build against the LibTorch dpfuzz
// was built with, show a known LibTorch finding (exit 1; 0 on a LibTorch
// that fixed it) and stay quiet on a case that agrees (exit 0). Slow: each
// program compiles the ATen headers (about 30 s; the two build at once).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "common/run_process.h"
#include "crashes/repro/repro_cpp.h"
#include "generators/case_json.h"
#include "generators/op_registry.h"
#include "oracles/case_builder.h"
#include "oracles/run_case.h"
#include "tests/crashes/known_case.h"

namespace dpfuzz {
namespace {

// Writes repro.cc and CMakeLists.txt into `dir`; the command that
// configures it with the Torch of dpfuzz's own build, and the CUDA toolkit
// too where that LibTorch needed one (the modern track: the wheel's).
std::vector<std::string> WriteProject(const std::filesystem::path& dir,
                                      const std::string& source) {
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "repro.cc") << source;
  std::ofstream(dir / "CMakeLists.txt") << CppReproCMakeLists();
  std::vector<std::string> configure = {
      DPFUZZ_CMAKE_COMMAND,
      "-S",
      dir.string(),
      "-B",
      (dir / "build").string(),
      "-G",
      DPFUZZ_CMAKE_GENERATOR,
      "-DCMAKE_BUILD_TYPE=Debug",
      std::string("-DCMAKE_PREFIX_PATH=") + DPFUZZ_TORCH_PREFIX};
  if (!std::string(DPFUZZ_TORCH_CUDA_ROOT).empty()) {
    configure.push_back(std::string("-DCUDA_TOOLKIT_ROOT_DIR=") +
                        DPFUZZ_TORCH_CUDA_ROOT);
    configure.push_back(std::string("-DCMAKE_CUDA_COMPILER=") +
                        DPFUZZ_TORCH_CUDA_COMPILER);
  }
  return configure;
}

std::optional<Case> AgreeingAddOut() {
  const OpSpec* spec = FindCuratedOp("aten::add.Tensor");
  BuildOptions options;
  options.alias_one_in = 0;
  options.layout_one_in = 100;
  for (uint64_t seed = 1; seed < 40; ++seed) {
    absl::StatusOr<std::optional<Case>> c =
        BuildCase(*spec, DType::kFloat32, Variant::kOut, seed, options);
    if (!c.ok() || !c->has_value()) continue;
    absl::StatusOr<CaseOutcome> o = RunCase(*spec, **c);
    if (o.ok() && o->verdict == Verdict::kAgree) return **c;
  }
  return std::nullopt;
}

TEST(CppReproBuildTest, KnownFindingReproducesAndAgreeingCaseDoesNot) {
  constexpr char kFinding[] = "median-expanded-input-reads-outside-view";
  const Case finding = LoadKnownCase(kFinding);
  absl::StatusOr<std::string> bug = CppRepro(
      finding, *FindCuratedOp(QualifiedOpName(finding)), Verdict::kMismatch);
  ASSERT_TRUE(bug.ok()) << bug.status();
  const std::optional<Case> agreeing = AgreeingAddOut();
  ASSERT_TRUE(agreeing.has_value());
  absl::StatusOr<std::string> quiet = CppRepro(
      *agreeing, *FindCuratedOp("aten::add.Tensor"), Verdict::kMismatch);
  ASSERT_TRUE(quiet.ok()) << quiet.status();

  const std::filesystem::path root =
      std::filesystem::path(testing::TempDir()) /
      ("dpfuzz_cpp_repro_" + std::to_string(getpid()));
  const std::vector<std::filesystem::path> dirs = {root / "finding",
                                                   root / "agree"};
  const std::vector<ProcessResult> configured = RunProcesses(
      {WriteProject(dirs[0], *bug), WriteProject(dirs[1], *quiet)}, 300);
  for (const ProcessResult& r : configured) {
    ASSERT_TRUE(r.exited && r.exit_status == 0) << Describe(r) << r.output;
  }
  const std::vector<ProcessResult> built = RunProcesses(
      {{DPFUZZ_CMAKE_COMMAND, "--build", (dirs[0] / "build").string()},
       {DPFUZZ_CMAKE_COMMAND, "--build", (dirs[1] / "build").string()}},
      600);
  for (const ProcessResult& r : built) {
    ASSERT_TRUE(r.exited && r.exit_status == 0) << Describe(r) << r.output;
  }
  const std::vector<ProcessResult> ran =
      RunProcesses({{(dirs[0] / "build" / "repro").string()},
                    {(dirs[1] / "build" / "repro").string()}},
                   120);
  // Exit 0 where this LibTorch has the bug fixed (its fixed_in).
  const bool shows = KnownFindingShows(kFinding);
  EXPECT_TRUE(ran[0].exited && ran[0].exit_status == (shows ? 1 : 0))
      << Describe(ran[0]) << "\n"
      << ran[0].output;
  if (shows) {
    EXPECT_NE(ran[0].output.find("actual:   values[] = -23131"),
              std::string::npos)
        << ran[0].output;
  }
  EXPECT_TRUE(ran[1].exited && ran[1].exit_status == 0)
      << Describe(ran[1]) << "\n"
      << CaseToString(*agreeing) << "\n"
      << ran[1].output;
  if (!HasFailure()) std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace dpfuzz
