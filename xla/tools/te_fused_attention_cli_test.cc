// Transformer Engine's fused attention through the CLI, on the hand-written
// module xla/tools/testdata/te_fused_attention.hlo (its comment works the
// values out): `eval` prints them; `compile --target=host` needs no
// --allow_custom_calls (the built-in handlers) and `run --reference`
// matches the evaluator; an unsupported attribute value fails the compile
// naming the attribute and the value.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/tools/cli_test_util.h"
#include "xla/tools/compile_command.h"
#include "xla/tools/eval_command.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/run_command.h"

namespace xla::cli {
namespace {

constexpr char kModule[] = "xla/tools/testdata/te_fused_attention.hlo";

TEST(TeFusedAttentionCli, EvalPrintsTheHandComputedValues) {
  CliResult r = RunCommand(RunEval, {kModule, "--print"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(
      absl::StrContains(r.out, "out0: f32[1,2,1,2] { { { {1.5378828, 2.5378828} }, { {2, 3} } } }"))
      << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "out1: f32[1,1,2,1] { { { {1.3132616}, {0.6931472} } } }"))
      << r.out;
  EXPECT_TRUE(
      absl::StrContains(r.out, "out2: f32[1,2,1,2] { { { {-0.39322385, 0} }, { {0, 0} } } }"))
      << r.out;
  EXPECT_TRUE(absl::StrContains(
      r.out, "out3: f32[1,2,1,2] { { { {-0.39322385, 0} }, { {0.39322385, 0} } } }"))
      << r.out;
  EXPECT_TRUE(absl::StrContains(
      r.out, "out4: f32[1,2,1,2] { { { {0.7310586, 0} }, { {0.26894143, 0} } } }"))
      << r.out;
}

TEST(TeFusedAttentionCli, HostCompileAndRunMatchTheEvaluator) {
  const std::string artifact = TestTempPath("te.xaot");
  CliResult c = RunCommand(RunCompile, {kModule, "-o", artifact, "--target=host"});
  ASSERT_EQ(c.code, kExitOk) << c.err;
  CliResult r = RunCommand(RunRun, {artifact, std::string("--reference=") + kModule});
  EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
  for (const char* out : {"out0", "out1", "out2", "out3", "out4"}) {
    EXPECT_TRUE(absl::StrContains(r.out, std::string(out) + " f32")) << r.out;
  }
  EXPECT_FALSE(absl::StrContains(r.out, "FAIL")) << r.out;
}

TEST(TeFusedAttentionCli, UnsupportedAttributeFailsTheCompile) {
  std::ifstream in(kModule);
  std::stringstream text;
  text << in.rdbuf();
  const std::string path = TestTempPath("te_window.hlo");
  std::ofstream(path) << absl::StrReplaceAll(text.str(),
                                             {{"window_size_left = -1", "window_size_left = 64"}});
  CliResult c = RunCommand(RunCompile, {path, "-o", TestTempPath("te_window.xaot"), "--target=host"});
  EXPECT_EQ(c.code, kExitBadInput) << c.err;
  EXPECT_TRUE(absl::StrContains(c.err,
                                "te_fused_attn_forward_ffi: attribute 'window_size_left' = 64 is "
                                "not supported (no sliding window: only -1)"))
      << c.err;
  // The evaluator refuses it the same way.
  CliResult e = RunCommand(RunEval, {path});
  EXPECT_EQ(e.code, kExitBadInput) << e.err;
  EXPECT_TRUE(absl::StrContains(e.err, "attribute 'window_size_left' = 64 is not supported"))
      << e.err;
}

}  // namespace
}  // namespace xla::cli
