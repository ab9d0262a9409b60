// --elided_constants through the CLI: compile's and eval's error message,
// compile's warning, the inspect line, run's warning, run --reference
// inventing the artifact's values by default (an explicit flag overrides),
// and eval agreeing with the compiled artifact bit for bit.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/tools/cli_test_util.h"
#include "xla/tools/compile_command.h"
#include "xla/tools/eval_command.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/inspect_command.h"
#include "xla/tools/run_command.h"

namespace xla::cli {
namespace {

// Odd sizes; weights, bias and small integer indices elided.
constexpr char kModule[] = R"(HloModule elided

ENTRY e {
  p = f32[7,13] parameter(0)
  %weights = f32[7,13]{1,0} constant({...})
  bias = f32[13] constant({...})
  ids = s32[3,1] constant({...})
  b = f32[7,13] broadcast(bias), dimensions={1}
  m = f32[7,13] multiply(p, weights)
  y = f32[7,13] add(m, b)
  g = f32[3,13] gather(y, ids), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,13}
  ROOT r = (f32[7,13], f32[3,13]) tuple(y, g)
}
)";

std::string WriteModule(const std::string& name) {
  const std::string path = TestTempPath(name);
  std::ofstream(path) << kModule;
  return path;
}

TEST(ElidedConstantsCli, ErrorByDefaultNamesConstantLineAndFlag) {
  const std::string hlo = WriteModule("error.hlo");
  CliResult c = RunCommand(RunCompile, {hlo, "-o", TestTempPath("error.xaot")});
  EXPECT_EQ(c.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(c.err, hlo + ":5: constant %weights (f32[7,13]) has an elided value"))
      << c.err;
  EXPECT_TRUE(absl::StrContains(c.err, "and so do 2 more (%bias, %ids)")) << c.err;
  EXPECT_TRUE(absl::StrContains(c.err, "--elided_constants=random")) << c.err;
  CliResult e = RunCommand(RunEval, {hlo, "--random_inputs"});
  EXPECT_EQ(e.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(e.err, hlo + ":5: constant %weights")) << e.err;
  CliResult bad = RunCommand(RunCompile, {hlo, "-o", TestTempPath("bad.xaot"), "--elided_constants=ones"});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_TRUE(absl::StrContains(bad.err, "bad --elided_constants value 'ones' (error, zeros or random)"))
      << bad.err;
  EXPECT_EQ(RunCommand(RunEval, {hlo, "--elided_constants_seed=x"}).code, kExitUsage);
}

TEST(ElidedConstantsCli, RandomArtifactIsInspectedWarnedAndMatchesItsReference) {
  const std::string hlo = WriteModule("random.hlo");
  const std::string art = TestTempPath("random.xaot");
  CliResult c = RunCommand(RunCompile, {hlo, "-o", art, "--elided_constants=random", "--elided_constants_seed=3",
                              "--host_cpu_variants=none"});
  ASSERT_EQ(c.code, kExitOk) << c.err;
  EXPECT_TRUE(absl::StrContains(c.err, "warning: invented the values of 3 elided constant(s) (random, seed 3)"))
      << c.err;
  CliResult i = RunCommand(RunInspect, {art});
  ASSERT_EQ(i.code, kExitOk) << i.err;
  EXPECT_TRUE(absl::StrContains(i.out, "\nconstants: 3 invented (random, seed 3): %weights, %bias, %ids\n"))
      << i.out;

  // The artifact's mode and seed are the reference's default.
  CliResult r = RunCommand(RunRun, {art, "--random_inputs", "--seed=2", "--reference=" + hlo});
  EXPECT_EQ(r.code, kExitOk) << r.err << r.out;
  EXPECT_TRUE(absl::StrContains(r.err, "xla_aot run: warning: " + art +
                                           ": constants: 3 invented (random, seed 3)"))
      << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "PASS: 2 outputs")) << r.out;
  // An explicit seed overrides it: other values, other results.
  CliResult seeded = RunCommand(RunRun, {art, "--random_inputs", "--seed=2", "--reference=" + hlo,
                               "--elided_constants_seed=4"});
  EXPECT_EQ(seeded.code, kExitMismatch) << seeded.err << seeded.out;
  CliResult zeros = RunCommand(RunRun, {art, "--random_inputs", "--seed=2", "--reference=" + hlo,
                              "--elided_constants=zeros"});
  EXPECT_EQ(zeros.code, kExitMismatch) << zeros.err << zeros.out;
  CliResult refused = RunCommand(RunRun, {art, "--random_inputs", "--reference=" + hlo, "--elided_constants=error"});
  EXPECT_EQ(refused.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(refused.err, "--reference: " + hlo + ":5: constant %weights")) << refused.err;

  // eval invents the same values: its outputs are the run's expected ones.
  const std::string dir = TestTempPath("random_eval");
  std::filesystem::create_directories(dir);
  CliResult e = RunCommand(RunEval, {hlo, "--random_inputs", "--seed=2", "--elided_constants=random",
                           "--elided_constants_seed=3", "--output_dir=" + dir});
  ASSERT_EQ(e.code, kExitOk) << e.err;
  EXPECT_TRUE(absl::StrContains(e.err, "warning: invented the values of 3")) << e.err;
  CliResult x = RunCommand(RunRun, {art, "--random_inputs", "--seed=2", "--expected=" + dir});
  EXPECT_EQ(x.code, kExitOk) << x.err << x.out;
  EXPECT_TRUE(absl::StrContains(x.out, "max_abs_err=0 ")) << x.out;
}

// --no_optimized_hlo leaves out the text that prints every invented value;
// the artifact still runs to its reference.
TEST(ElidedConstantsCli, NoOptimizedHloShrinksTheArtifact) {
  const std::string hlo = WriteModule("text.hlo");
  const std::string with_text = TestTempPath("with_text.xaot");
  const std::string without_text = TestTempPath("without_text.xaot");
  for (const auto& [art, extra] : {std::pair{with_text, "--elided_constants=random"},
                                   std::pair{without_text, "--no_optimized_hlo"}}) {
    CliResult c = RunCommand(RunCompile, {hlo, "-o", art, "--elided_constants=random", extra,
                                "--host_cpu_variants=none"});
    ASSERT_EQ(c.code, kExitOk) << c.err;
  }
  EXPECT_LT(std::filesystem::file_size(without_text) + 500, std::filesystem::file_size(with_text));
  CliResult r = RunCommand(RunRun, {without_text, "--random_inputs", "--reference=" + hlo});
  EXPECT_EQ(r.code, kExitOk) << r.err << r.out;
}

TEST(ElidedConstantsCli, PlainArtifactHasNoConstantsLineNorWarning) {
  const std::string hlo = TestTempPath("plain.hlo");
  std::ofstream(hlo) << "HloModule plain\nENTRY e {\n  p = f32[5] parameter(0)\n  ROOT n = f32[5] negate(p)\n}\n";
  const std::string art = TestTempPath("plain.xaot");
  ASSERT_EQ(RunCommand(RunCompile, {hlo, "-o", art, "--elided_constants=random", "--host_cpu_variants=none"}).code,
            kExitOk);
  EXPECT_FALSE(absl::StrContains(RunCommand(RunInspect, {art}).out, "invented"));
  CliResult r = RunCommand(RunRun, {art, "--random_inputs", "--reference=" + hlo});
  EXPECT_EQ(r.code, kExitOk) << r.err;
  EXPECT_FALSE(absl::StrContains(r.err, "warning")) << r.err;
}

}  // namespace
}  // namespace xla::cli
