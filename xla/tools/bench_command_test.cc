// `xla_aot bench` on a small host artifact: the report has every section,
// the thunk kinds and executions the artifact implies, and byte / FLOP
// counts computed by hand from its slices and GEMM config.
#include "xla/tools/bench_command.h"

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "xla/tools/bench_command_test_artifact.h"
#include "xla/tools/exit_codes.h"
#include "xla/types/npy.h"

namespace xla::cli {
namespace {

struct Result {
  int code;
  std::string out, err;
};

Result Bench(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = RunBench(args, out, err);
  return {code, out.str(), err.str()};
}

// The line of `text` containing `needle` ("" when none).
std::string LineWith(const std::string& text, absl::string_view needle) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StrContains(line, needle)) return std::string(line);
  }
  return "";
}

TEST(BenchCommand, ReportsSpreadKindsAndRates) {
  const std::string artifact = testing::WriteObservabilityArtifact();
  Result r = Bench({artifact, "--iterations=5", "--warmup=1", "--seed=2"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "(obs) on host:0, 1 warm-up, 5 timed and 5 traced runs")) << r.out;
  // Which host code ran: the artifact has one build of its kernels.
  EXPECT_TRUE(absl::StrContains(r.out, "host code: kernels the baseline build, GEMM ")) << r.out;
  const std::string spread = LineWith(r.out, "median");
  for (const char* s : {"median ", "min ", "p10 ", "p90 ", "max "}) {
    EXPECT_TRUE(absl::StrContains(spread, s)) << s << "\n" << r.out;
  }
  // Every kind the artifact runs has a line with a share.
  for (const char* kind : {"  kernel ", "  gemm ", "  memset ", "  while "}) {
    EXPECT_TRUE(absl::StrContains(LineWith(r.out, kind), "%")) << kind << "\n" << r.out;
  }
  // add.1 touches 3 x 24 bytes; acc.3 2 x 24, three times per run; the GEMM
  // 24 + 24 + 16 bytes and 2*2*2*3 = 24 FLOPs.
  const std::string add = LineWith(r.out, "\"add.1\"");
  EXPECT_TRUE(absl::StrContains(add, "x1 ")) << add;
  EXPECT_TRUE(absl::StrContains(add, " 72 bytes -> ")) << add;
  EXPECT_TRUE(absl::StrContains(add, "FLOP/s not counted")) << add;
  const std::string acc = LineWith(r.out, "\"acc.3\"");
  EXPECT_TRUE(absl::StrContains(acc, "x3 ")) << acc;
  EXPECT_TRUE(absl::StrContains(acc, " 48 bytes -> ")) << acc;
  const std::string dot = LineWith(r.out, "\"dot.2\"");
  EXPECT_TRUE(absl::StrContains(dot, " 64 bytes -> ")) << dot;
  EXPECT_TRUE(absl::StrContains(dot, "24 FLOP -> ")) << dot;
  EXPECT_TRUE(absl::StrContains(dot, "FLOP/s")) << dot;
  // Memset and while are not listed among kernels, GEMMs and copies.
  EXPECT_EQ(LineWith(r.out, "\"zero\""), "");
}

// One parameter of 5 x 7 f32 (140 bytes) copied to the output.
constexpr char kCopyArtifact[] = R"pb(
header { compiler_version: "test 1.0" production_date: "2026-11-30T00:00:00Z" }
payload {
  module_name: "copy"
  program_shape {
    parameters { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 dimensions: 7 }
    result { element_type: PRIMITIVE_TYPE_F32 dimensions: 5 dimensions: 7 }
  }
  allocations { index: 0 size: 140 is_parameter: true parameter_number: 0 }
  allocations { index: 1 size: 140 is_output: true }
  outputs { slice { allocation: 1 size: 140 } }
  thunks { profile_annotation: "p.copy" copy { source { allocation: 0 size: 140 }
                                              destination { allocation: 1 size: 140 } } }
}
)pb";

TEST(BenchCommand, CopiesAreListedWithTheirBandwidth) {
  const std::string artifact = testing::TmpPath("copy.xaot");
  std::ofstream(artifact, std::ios::binary)
      << gpu::testing::SerializeArtifact(gpu::testing::MakeArtifact(kCopyArtifact));
  Result r = Bench({artifact, "--iterations=3", "--warmup=1"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  // Read 140 bytes, write 140 bytes.
  const std::string copy = LineWith(r.out, "\"p.copy\"");
  EXPECT_TRUE(absl::StartsWith(copy, "  copy ")) << r.out;
  EXPECT_TRUE(absl::StrContains(copy, " 280 bytes -> ")) << copy;
  EXPECT_TRUE(absl::StrContains(copy, "(source read + destination written)")) << copy;
  EXPECT_FALSE(absl::StrContains(r.out, "(none)")) << r.out;
}

TEST(BenchCommand, NpyInputsAndErrors) {
  const std::string artifact = testing::WriteObservabilityArtifact();
  Literal x(Shape::Array(PrimitiveType::F32, {2, 3}));
  for (int i = 0; i < 6; ++i) x.SetDouble(i, i - 2.5);
  ASSERT_TRUE(WriteNpyFile(testing::TmpPath("bx.npy"), x).ok());
  const std::string in = "--input=" + testing::TmpPath("bx.npy");
  EXPECT_EQ(Bench({artifact, in, in, "--iterations=1", "--warmup=0"}).code, kExitOk);
  Result one = Bench({artifact, in, "--iterations=1"});
  EXPECT_EQ(one.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(one.err, "takes 2 parameters but 1 --input")) << one.err;
  EXPECT_EQ(Bench({}).code, kExitUsage);
  EXPECT_EQ(Bench({artifact, "--iterations=0"}).code, kExitUsage);
  EXPECT_EQ(Bench({artifact, "--warmup=-1"}).code, kExitUsage);
  EXPECT_EQ(Bench({artifact, "--print"}).code, kExitUsage);
  EXPECT_EQ(Bench({artifact, "--bogus"}).code, kExitUsage);
  EXPECT_EQ(Bench({testing::TmpPath("missing.xaot")}).code, kExitBadInput);
}

TEST(BenchCommand, DeviceRunnerRejectsWrongInputs) {
  const std::string artifact = testing::WriteObservabilityArtifact();
  std::vector<Literal> inputs;
  inputs.emplace_back(Shape::Array(PrimitiveType::F32, {3, 2}));
  inputs.emplace_back(Shape::Array(PrimitiveType::F32, {2, 3}));
  absl::StatusOr<DeviceRunner> r = DeviceRunner::Create(artifact, inputs);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "input 0 has shape f32[3,2]")) << r.status();
}

// --cuda_graphs: the host has no graphs, and says so; off says who turned
// them off; a bad value is a usage error.
TEST(BenchCommand, ReportsCudaGraphs) {
  const std::string artifact = testing::WriteObservabilityArtifact();
  Result on = Bench({artifact, "--iterations=1", "--warmup=0"});
  ASSERT_EQ(on.code, kExitOk) << on.err;
  EXPECT_TRUE(absl::StrContains(LineWith(on.out, "cuda graphs:"), "cuda graphs: off (")) << on.out;
  Result off = Bench({artifact, "--iterations=1", "--warmup=0", "--cuda_graphs=off"});
  ASSERT_EQ(off.code, kExitOk) << off.err;
  EXPECT_EQ(LineWith(off.out, "cuda graphs:"), "cuda graphs: off (--cuda_graphs=off)") << off.out;
  Result bad = Bench({artifact, "--cuda_graphs=maybe"});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_TRUE(absl::StrContains(bad.err, "bad --cuda_graphs value 'maybe' (on or off)")) << bad.err;
}

}  // namespace
}  // namespace xla::cli
