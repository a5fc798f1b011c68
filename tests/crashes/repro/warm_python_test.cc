// RunReproPython ends a script as `python script.py` does, takes a warm
// run's word only when it shows the bug, and runs everything else fresh.

#include "crashes/repro/warm_python.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "crashes/repro/python_repro_check.h"

namespace dpfuzz {
namespace {

std::string Script(const std::string& name, const std::string& text) {
  const std::filesystem::path dir =
      std::filesystem::path(testing::TempDir()) /
      absl::StrCat("dpfuzz_warm_python_", getpid());
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

class WarmPythonTest : public testing::Test {
 protected:
  void SetUp() override {
    if (ReproPythonTorchVersion().empty()) {
      GTEST_SKIP() << kReproPython << " cannot import torch";
    }
  }
};

TEST_F(WarmPythonTest, EndsAsAFreshInterpreterWould) {
  const ProcessResult exit1 = RunReproPython(
      Script("exit1.py",
             "import sys, torch\n"
             "assert __name__ == '__main__' and sys.argv[0].endswith('.py')\n"
             "print('ran', torch.ones(2).sum().item())\n"
             "sys.exit(1)\n"),
      60);
  EXPECT_TRUE(exit1.exited);
  EXPECT_EQ(exit1.exit_status, 1) << exit1.output;
  EXPECT_NE(exit1.output.find("ran 2.0"), std::string::npos) << exit1.output;

  const ProcessResult raised =
      RunReproPython(Script("raise.py", "raise ValueError('boom')\n"), 60);
  EXPECT_EQ(raised.exit_status, 1);
  EXPECT_NE(raised.output.find("ValueError: boom"), std::string::npos)
      << raised.output;
  EXPECT_EQ(raised.output.find("runpy"), std::string::npos)
      << "the traceback shows the script's frames only: " << raised.output;

  const ProcessResult aborted =
      RunReproPython(Script("abort.py",
                            "import os, signal\nos.kill(os.getpid(), "
                            "signal.SIGABRT)\n"),
                     60);
  EXPECT_FALSE(aborted.exited);
  EXPECT_EQ(aborted.signal, SIGABRT);

  const ProcessResult fine =
      RunReproPython(Script("fine.py", "import torch\n"), 60);
  EXPECT_TRUE(fine.exited);
  EXPECT_EQ(fine.exit_status, 0) << fine.output;

  const ProcessResult hung =
      RunReproPython(Script("hang.py", "import time\ntime.sleep(60)\n"), 1);
  EXPECT_TRUE(hung.timed_out);
  EXPECT_FALSE(hung.exited);
}

// A warm child finds torch imported before its first line; a fresh
// interpreter does not. A script that shows its "bug" only in one of them
// tells which run's result came back.
TEST_F(WarmPythonTest, TrustsTheWarmRunOnlyWhenItShowsTheBug) {
  const std::string probe =
      "import sys\nsys.exit(1 if ('torch' in sys.modules) == %s else 0)\n";
  const ProcessResult warm_shows = RunReproPython(
      Script("warm_shows.py", absl::StrReplaceAll(probe, {{"%s", "True"}})),
      60);
  EXPECT_EQ(warm_shows.exit_status, 1) << "the warm run's exit 1 stands";

  const ProcessResult fresh_shows = RunReproPython(
      Script("fresh_shows.py", absl::StrReplaceAll(probe, {{"%s", "False"}})),
      60);
  EXPECT_EQ(fresh_shows.exit_status, 1)
      << "a warm exit 0 is run again in a fresh process, whose exit 1 stands";
}

// The version the warm interpreter reports is the one a fresh `import
// torch` gives, so checks that compare it with LibTorch's need no import of
// their own.
TEST_F(WarmPythonTest, ReportsTheTorchVersionAFreshImportDoes) {
  const ProcessResult fresh = RunProcesses(
      {{kReproPython, "-c", "import torch; print(torch.__version__)"}}, 120)[0];
  ASSERT_TRUE(fresh.exited && fresh.exit_status == 0) << fresh.output;
  const std::string printed(absl::StripAsciiWhitespace(fresh.output));
  EXPECT_EQ(WarmReproPythonTorchVersion(),
            printed.substr(printed.rfind('\n') + 1));
}

TEST_F(WarmPythonTest, ACancelledRunSaysSo) {
  std::atomic<bool> cancel{true};
  const ProcessResult r = RunReproPython(
      Script("cancelled.py", "import sys\nsys.exit(1)\n"), 60, &cancel);
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.exited);
}

}  // namespace
}  // namespace dpfuzz
