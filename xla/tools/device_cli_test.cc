// xla_aot_device: the runtime-only command line dispatches run, bench and
// inspect to the same functions as xla_aot, and refuses compiler subcommands
// with a pointer to xla_aot.
#include "xla/tools/device_cli.h"

#include <sstream>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/tools/bench_command_test_artifact.h"

namespace xla::cli {
namespace {

struct Result {
  int code;
  std::string out, err;
};

Result RunDevice(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = RunXlaAotDevice(args, out, err);
  return {code, out.str(), err.str()};
}

TEST(DeviceCli, HelpListsTheRuntimeSubcommandsOnly) {
  Result r = RunDevice({"--help"});
  ASSERT_EQ(r.code, kExitOk);
  EXPECT_TRUE(absl::StartsWith(r.out, "usage: xla_aot_device <subcommand>")) << r.out;
  for (const char* name : {"== xla_aot_device run ==", "== xla_aot_device bench ==",
                           "== xla_aot_device inspect ==", "--expected=DIR"}) {
    EXPECT_TRUE(absl::StrContains(r.out, name)) << name << "\n" << r.out;
  }
  for (const char* name : {"== xla_aot_device compile", "== xla_aot_device eval"}) {
    EXPECT_FALSE(absl::StrContains(r.out, name)) << name;
  }
}

TEST(DeviceCli, CompilerSubcommandsAreRefusedWithAPointer) {
  Result r = RunDevice({"compile", "m.hlo", "-o", "m.xaot"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_TRUE(absl::StrContains(r.err, "xla_aot_device: unknown subcommand 'compile'")) << r.err;
  EXPECT_EQ(RunDevice({}).code, kExitUsage);
  EXPECT_TRUE(absl::StrContains(RunDevice({}).err, "compile with\n`xla_aot compile`"));
}

TEST(DeviceCli, RunsBenchesAndInspectsAnArtifact) {
  const std::string artifact = testing::WriteObservabilityArtifact();
  Result inspect = RunDevice({"inspect", artifact});
  ASSERT_EQ(inspect.code, kExitOk) << inspect.err;
  EXPECT_TRUE(absl::StrContains(inspect.out, "module: obs")) << inspect.out;
  // x = y = the same seeded inputs; out0 = x + y, printed.
  Result run = RunDevice({"run", artifact, "--random_inputs", "--seed=3"});
  ASSERT_EQ(run.code, kExitOk) << run.err;
  EXPECT_TRUE(absl::StartsWith(run.out, "out0: f32[2,3] {")) << run.out;
  Result bench = RunDevice({"bench", artifact, "--iterations=2", "--warmup=0"});
  ASSERT_EQ(bench.code, kExitOk) << bench.err;
  EXPECT_TRUE(absl::StrContains(bench.out, "\"add.1\"")) << bench.out;
  EXPECT_EQ(RunDevice({"run", testing::TmpPath("missing.xaot")}).code, kExitBadInput);
}

}  // namespace
}  // namespace xla::cli
