// xla::aot::Compile: the same bytes as the target compilers it calls, the
// CLI's error messages, the middle-end-only mode and the dump files.
#include "xla/aot/compile.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/backends/gpu/compiler/gpu_compiler.h"
#include "xla/backends/gpu/compiler/host_compiler.h"
#include "xla/util/proto_util.h"
#include "xla/util/subprocess.h"

namespace xla::aot {
namespace {

constexpr char kAddExp[] = R"(
HloModule add_exp

ENTRY main {
  a = f32[33] parameter(0)
  b = f32[33] parameter(1)
  s = f32[33] add(a, b)
  ROOT e = f32[33] exponential(s)
}
)";

constexpr char kDate[] = "2026-01-01T00:00:00Z";

CompileOptions FastOptions(const std::string& target = "host") {
  CompileOptions options;
  options.target = target;
  options.production_date = kDate;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  return options;
}

TEST(CompileTest, HostBytesAreTheHostCompilers) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(kAddExp, FastOptions());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  gpu::HostCompilerOptions host;
  host.production_date = kDate;
  host.object.opt_level = 1;
  absl::StatusOr<std::string> expected = gpu::CompileHloToHostArtifact(kAddExp, host);
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_EQ(compiled->bytes, *expected);
  EXPECT_TRUE(Executable::LoadFromBytes(compiled->bytes).ok());
}

TEST(CompileTest, HostCpuVariantsAreStored) {
  CompileOptions options = FastOptions();
  options.host_cpu_variants = {"x86-64-v3"};
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(kAddExp, options);
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(proto->payload().host_object_variants_size(), 1);
  EXPECT_EQ(proto->header().target(), "host");
}

TEST(CompileTest, NvptxBytesAreTheGpuCompilers) {
  CompileOptions options = FastOptions("sm_90");
  options.emit_cubin_with_ptx = true;
  absl::StatusOr<CompiledArtifact> compiled = Compile(kAddExp, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  gpu::GpuCompilerOptions gpu;
  gpu.production_date = kDate;
  gpu.spec = gpu::NvptxSpecChoice::kCubinWithPtx;
  absl::StatusOr<std::string> expected = gpu::CompileHloToGpuArtifact(kAddExp, "sm_90", gpu);
  ASSERT_TRUE(expected.ok()) << expected.status();
  EXPECT_EQ(compiled->bytes, *expected);
}

TEST(CompileTest, ProtoIsTheBytesParsed) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(kAddExp, FastOptions());
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(kAddExp, FastOptions());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(SerializeDeterministically(*proto), compiled->bytes);
}

TEST(CompileTest, ChecksumOptionReachesTheHeader) {
  CompileOptions options = FastOptions();
  options.checksum = PayloadChecksum::kCrc32c;
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(kAddExp, options);
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(proto->header().checksum_algorithm(), gpu::CHECKSUM_ALGORITHM_CRC32C);
}

TEST(CompileTest, UnknownTargetListsTheKnownOnes) {
  EXPECT_TRUE(CheckTarget("host").ok());
  EXPECT_TRUE(CheckTarget("sm_90").ok());
  absl::Status bad = CheckTarget("sm_12");
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(bad.message(), "sm_90")) << bad;
  EXPECT_TRUE(absl::StrContains(bad.message(), "or host")) << bad;
  absl::StatusOr<CompiledArtifact> compiled = Compile(kAddExp, FastOptions("sm_12"));
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(CompileTest, ParseErrorNamesSourceLineAndColumn) {
  CompileOptions options = FastOptions();
  options.source_name = "model.hlo";
  absl::StatusOr<CompiledArtifact> compiled =
      Compile("HloModule m\n\nENTRY main {\n  ROOT p = f32[2] bogus(1)\n}\n", options);
  ASSERT_FALSE(compiled.ok());
  EXPECT_TRUE(absl::StrContains(compiled.status().message(), "model.hlo:4:")) << compiled.status();
}

TEST(CompileTest, VerifierErrorNamesSource) {
  CompileOptions options = FastOptions();
  options.source_name = "model.hlo";
  absl::StatusOr<CompiledArtifact> compiled = Compile(R"(
HloModule m
ENTRY main {
  a = f32[2] parameter(0)
  b = f32[3] parameter(1)
  ROOT s = f32[2] add(a, b)
}
)",
                                                      options);
  ASSERT_FALSE(compiled.ok());
  // file:line:col of `s` (the text starts with a newline; the name is
  // after "  ROOT ").
  EXPECT_TRUE(absl::StartsWith(compiled.status().message(), "model.hlo:6:8: instruction 's' (add)"))
      << compiled.status();
}

// Sharding annotations (as JAX leaves them) are identities on one
// partition: the program compiles for both targets and computes tanh; on
// eight partitions it is refused, naming the annotation.
TEST(CompileTest, ShardingAnnotationsAreIdentitiesOnOnePartition) {
  const std::string text = R"(
HloModule annotated
ENTRY e {
  p = f32[5,9] parameter(0)
  s = f32[5,9] custom-call(p), custom_call_target="Sharding", sharding={replicated}
  full = f32[5,9] custom-call(s), custom_call_target="SPMDFullToShardShape", sharding={manual}
  t = f32[5,9] tanh(full)
  ROOT back = f32[5,9] custom-call(t), custom_call_target="SPMDShardToFullShape", sharding={replicated}
}
)";
  for (const char* target : {"host", "sm_90"}) {
    CompileOptions options;
    options.target = target;
    options.host_cpu_variants = {};
    absl::StatusOr<CompiledArtifact> compiled = Compile(text, options);
    ASSERT_TRUE(compiled.ok()) << target << ": " << compiled.status();
  }
  CompileOptions host;
  host.host_cpu_variants = {};
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(Compile(text, host)->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  Literal x(Shape::Array(PrimitiveType::F32, {5, 9}));
  for (int64_t i = 0; i < 45; ++i) x.SetDouble(i, 0.1 * i - 2.2);
  absl::StatusOr<std::vector<Literal>> out = ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), {x});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int64_t i = 0; i < 45; ++i) EXPECT_NEAR((*out)[0].GetDouble(i), std::tanh(0.1 * i - 2.2), 2e-6) << i;

  std::string eight = text;
  eight.replace(eight.find("HloModule annotated"), 19, "HloModule annotated, num_partitions=8");
  absl::Status refused = Compile(eight, host).status();
  EXPECT_TRUE(absl::StrContains(refused.message(), "s: custom-call Sharding is a sharding annotation")) << refused;
  EXPECT_TRUE(absl::StrContains(refused.message(), "no SPMD partitioner")) << refused;
}

// A dumped SPMD program keeps no device counts in its header; the options
// give them, and its replica groups are then checked against them.
TEST(CompileTest, DeviceCountsAreCompileOptions) {
  const std::string text = R"(
HloModule headerless_counts
add { a = f32[] parameter(0)  b = f32[] parameter(1)  ROOT s = f32[] add(a, b) }
ENTRY e {
  p = f32[3,5] parameter(0)
  ROOT r = f32[3,5] all-reduce(p), replica_groups={{0,1,2,3},{4,5,6,7}}, use_global_device_ids=true, channel_id=1, to_apply=add
}
)";
  CompileOptions options;
  options.host_cpu_variants = {};
  options.emit_collectives = true;
  absl::Status without = Compile(text, options).status();
  EXPECT_TRUE(absl::StrContains(without.message(), "out of range [0, 1)")) << without;
  options.num_partitions = 8;
  absl::StatusOr<gpu::GpuExecutableProto> artifact = CompileToProto(text, options);
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  bool found = false;
  for (const gpu::ThunkProto& t : artifact->payload().thunks()) {
    if (t.has_collective()) {
      EXPECT_EQ(t.collective().num_partitions(), 8);
      found = true;
    }
  }
  EXPECT_TRUE(found);
  options.num_partitions = 4;  // device 7 does not exist on 4
  EXPECT_TRUE(absl::StrContains(Compile(text, options).status().message(), "out of range [0, 4)"));
  options.num_partitions = 0;
  EXPECT_TRUE(absl::StrContains(Compile(text, options).status().message(), "num_partitions must be at least 1"));
}

// A while loop whose body repeats the add-exp block, then the same block
// outside it: every copy at one shape launches one compiled kernel.
constexpr char kRepeated[] = R"(
HloModule repeated

body {
  p = (s32[], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  n = s32[] add(i, one)
  a = f32[33] get-tuple-element(p), index=1
  b = f32[33] get-tuple-element(p), index=2
  s = f32[33] add(a, b)
  e = f32[33] exponential(s)
  ROOT t = (s32[], f32[33], f32[33]) tuple(n, e, b)
}

cond {
  p = (s32[], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  three = s32[] constant(3)
  ROOT lt = pred[] compare(i, three), direction=LT
}

ENTRY main {
  a = f32[33] parameter(0)
  b = f32[33] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[33], f32[33]) tuple(zero, a, b)
  w = (s32[], f32[33], f32[33]) while(init), condition=cond, body=body
  x = f32[33] get-tuple-element(w), index=1
  s = f32[33] add(x, b)
  ROOT e = f32[33] exponential(s)
}
)";

TEST(CompileTest, StatisticsCountKernelThunksAndCompiledKernels) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(kRepeated, FastOptions());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const CompileStatistics& s = compiled->statistics;
  EXPECT_GT(s.kernel_thunks, s.compiled_kernels) << s.kernel_thunks << " " << s.compiled_kernels;
  EXPECT_GT(s.compiled_kernels, 0);
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(kRepeated, FastOptions());
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(proto->payload().kernels_size(), s.compiled_kernels);
}

TEST(CompileTest, MiddleEndOnlyMakesStatisticsButNoBytes) {
  CompileOptions options = FastOptions();
  options.middle_end_only = true;
  absl::StatusOr<CompiledArtifact> compiled = Compile(kAddExp, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_TRUE(compiled->bytes.empty());
  EXPECT_EQ(compiled->statistics.instructions_before, 4);
  EXPECT_GT(compiled->statistics.passes, 0);
  EXPECT_TRUE(compiled->statistics.phases.empty());
  EXPECT_FALSE(CompileToProto(kAddExp, options).ok());
}

TEST(CompileTest, DumpDirGetsTheDocumentedFiles) {
  const std::string dir = std::string(getenv("TEST_TMPDIR")) + "/dumps";
  CompileOptions options = FastOptions();
  options.dump_dir = dir;
  absl::StatusOr<CompiledArtifact> compiled = Compile(kAddExp, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  for (const char* name :
       {"after_optimizations.hlo", "schedule.txt", "buffer_assignment.txt", "pass_timings.txt",
        "compile_timings.txt", "kernel_timings.txt", "llvm_ir.before_optimizations.ll",
        "llvm_ir.after_optimizations.ll"}) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/" + name)) << name;
  }
  EXPECT_FALSE(compiled->statistics.phases.empty());
}

// Three kernels with fusion off: a loop (exponential), a transpose and a
// row reduction.
constexpr char kThreeKernels[] = R"(
HloModule three_kernels

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[33,17] parameter(0)
  ex = f32[33,17] exponential(p)
  tr = f32[17,33] transpose(ex), dimensions={1,0}
  zero = f32[] constant(0)
  r = f32[33] reduce(ex, zero), dimensions={1}, to_apply=add
  ROOT t = (f32[17,33], f32[33]) tuple(tr, r)
}
)";

// The whitespace-separated fields of each non-comment line of `text`.
std::vector<std::vector<std::string>> Fields(const std::string& text) {
  std::vector<std::vector<std::string>> out;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (line.front() == '#') continue;
    out.push_back(absl::StrSplit(line, ' ', absl::SkipEmpty()));
  }
  return out;
}

double Number(const std::string& field) {
  double value = -1;
  EXPECT_TRUE(absl::SimpleAtod(field, &value)) << field;
  return value;
}

// compile_timings.txt's seconds for `phase` (0 when absent).
double PhaseSeconds(const std::string& timings, absl::string_view phase) {
  for (const std::vector<std::string>& row : Fields(timings)) {
    if (row.size() == 2 && row[0] == phase) return Number(row[1]);
  }
  return 0;
}

TEST(CompileTest, KernelTimingsHaveOneRowPerKernelAndAddUpToThePhases) {
  // One part (automatic for a module this small), then one part per kernel.
  for (int parts : {0, 3}) {
    SCOPED_TRACE(absl::StrCat("compile_parts=", parts));
    const std::string dir = absl::StrCat(getenv("TEST_TMPDIR"), "/kernel_timings_", parts);
    CompileOptions options = FastOptions();
    options.fusion = false;
    options.compile_parts = parts;
    options.dump_dir = dir;
    ASSERT_TRUE(Compile(kThreeKernels, options).ok());
    const std::string text = ReadFileBytes(dir + "/kernel_timings.txt").value_or("");
    const std::string phases = ReadFileBytes(dir + "/compile_timings.txt").value_or("");
    const std::vector<std::vector<std::string>> rows = Fields(text);
    ASSERT_EQ(rows.size(), 5u) << text;  // header, 3 kernels, total
    ASSERT_EQ(rows[0].size(), 10u) << text;
    EXPECT_EQ(rows[0][0], "fusion");
    std::set<std::string> names;
    std::set<std::string> part_ids;
    double emit = 0, estimated = 0, previous = 1e9;
    for (size_t i = 1; i <= 3; ++i) {
      ASSERT_EQ(rows[i].size(), 10u) << text;
      names.insert(rows[i][0]);
      part_ids.insert(rows[i][5]);
      EXPECT_GT(Number(rows[i][2]), 0) << text;  // HLO instructions
      EXPECT_GT(Number(rows[i][3]), 0) << text;  // LLVM instructions
      for (int column : {4, 7, 8, 9}) EXPECT_GE(Number(rows[i][column]), 0) << text;
      emit += Number(rows[i][4]);
      estimated += Number(rows[i][9]);
      EXPECT_LE(Number(rows[i][9]), previous) << "not slowest first:\n" << text;
      previous = Number(rows[i][9]);
    }
    for (const char* name : {"ex", "tr", "r"}) {
      EXPECT_TRUE(std::any_of(names.begin(), names.end(),
                              [&](const std::string& n) { return absl::StartsWith(n, name); }))
          << name << "\n" << text;
    }
    EXPECT_EQ(part_ids.size(), parts == 0 ? 1u : 3u) << text;
    const std::vector<std::string>& total = rows[4];
    ASSERT_EQ(total[0], "total") << text;
    EXPECT_EQ(total[5], parts == 0 ? "1" : "3") << text;
    EXPECT_EQ(total[6], "3") << text;
    // The total's columns are the rows' sums (4 decimals each) and match
    // compile_timings.txt (3 decimals): emission within thunk_emission,
    // the parts' optimize and codegen equal to the phases.
    EXPECT_NEAR(Number(total[4]), emit, 3e-4) << text;
    EXPECT_NEAR(Number(total[9]), estimated, 3e-4) << text;
    EXPECT_NEAR(Number(total[9]), Number(total[4]) + Number(total[7]) + Number(total[8]), 3e-4)
        << text;
    EXPECT_LE(Number(total[4]), PhaseSeconds(phases, "thunk_emission") + 1e-3) << phases;
    EXPECT_NEAR(Number(total[7]), PhaseSeconds(phases, "llvm_optimize"), 1e-3) << phases << text;
    EXPECT_NEAR(Number(total[8]), PhaseSeconds(phases, "machine_code"), 1e-3) << phases << text;
  }
}

TEST(CompileTest, NvptxKernelTimingsHaveOneRowPerKernelAndAddUpToThePhases) {
  const std::string dir = absl::StrCat(getenv("TEST_TMPDIR"), "/kernel_timings_sm_90");
  CompileOptions options = FastOptions("sm_90");
  options.fusion = false;
  options.compile_threads = 3;  // the kernels compile on several threads
  options.dump_dir = dir;
  absl::StatusOr<CompiledArtifact> compiled = Compile(kThreeKernels, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  const std::string text = ReadFileBytes(dir + "/kernel_timings.txt").value_or("");
  const std::string phases = ReadFileBytes(dir + "/compile_timings.txt").value_or("");
  const std::vector<std::vector<std::string>> rows = Fields(text);
  // header, one row per compiled kernel, total
  const size_t kernels = static_cast<size_t>(compiled->statistics.compiled_kernels);
  ASSERT_GE(kernels, 3u) << text;
  ASSERT_EQ(rows.size(), kernels + 2) << text;
  ASSERT_EQ(rows[0].size(), 11u) << text;
  EXPECT_EQ(rows[0][9], "ptxas_s");
  std::set<std::string> names, part_ids;
  double emit = 0, optimize = 0, ptx = 0, ptxas = 0, estimated = 0, previous = 1e9;
  for (size_t i = 1; i <= kernels; ++i) {
    ASSERT_EQ(rows[i].size(), 11u) << text;
    names.insert(rows[i][0]);
    part_ids.insert(rows[i][5]);
    EXPECT_EQ(rows[i][6], "1") << text;         // each kernel is a part of its own
    EXPECT_GT(Number(rows[i][2]), 0) << text;   // HLO instructions
    EXPECT_GT(Number(rows[i][3]), 0) << text;   // LLVM instructions
    EXPECT_GT(Number(rows[i][7]), 0) << text;   // optimize: measured, never 0 s
    for (int column : {4, 8, 9, 10}) EXPECT_GE(Number(rows[i][column]), 0) << text;
    // est_s = emit + optimize + codegen + ptxas (4 decimals each)
    EXPECT_NEAR(Number(rows[i][10]),
                Number(rows[i][4]) + Number(rows[i][7]) + Number(rows[i][8]) + Number(rows[i][9]),
                3e-4)
        << text;
    emit += Number(rows[i][4]);
    optimize += Number(rows[i][7]);
    ptx += Number(rows[i][8]);
    ptxas += Number(rows[i][9]);
    estimated += Number(rows[i][10]);
    EXPECT_LE(Number(rows[i][10]), previous) << "not slowest first:\n" << text;
    previous = Number(rows[i][10]);
  }
  EXPECT_EQ(names.size(), kernels) << text;
  EXPECT_EQ(part_ids.size(), kernels) << text;
  for (const char* name : {"ex", "tr", "r"}) {
    EXPECT_TRUE(std::any_of(names.begin(), names.end(),
                            [&](const std::string& n) { return absl::StartsWith(n, name); }))
        << name << "\n" << text;
  }
  const std::vector<std::string>& total = rows.back();
  ASSERT_EQ(total[0], "total") << text;
  EXPECT_EQ(total[5], absl::StrCat(kernels)) << text;
  EXPECT_EQ(total[6], absl::StrCat(kernels)) << text;
  // The total is the rows' sums and compile_timings.txt's phases (3
  // decimals there): emission within thunk_emission; optimize, PTX and
  // ptxas equal to llvm_optimize, ptx_codegen and ptxas.
  const double slack = 3e-4 * static_cast<double>(kernels);
  EXPECT_NEAR(Number(total[4]), emit, slack) << text;
  EXPECT_NEAR(Number(total[7]), optimize, slack) << text;
  EXPECT_NEAR(Number(total[8]), ptx, slack) << text;
  EXPECT_NEAR(Number(total[9]), ptxas, slack) << text;
  EXPECT_NEAR(Number(total[10]), estimated, slack) << text;
  EXPECT_LE(Number(total[4]), PhaseSeconds(phases, "thunk_emission") + 1e-3) << phases;
  EXPECT_NEAR(Number(total[7]), PhaseSeconds(phases, "llvm_optimize"), 1e-3) << phases << text;
  EXPECT_NEAR(Number(total[8]), PhaseSeconds(phases, "ptx_codegen"), 1e-3) << phases << text;
  EXPECT_NEAR(Number(total[9]), PhaseSeconds(phases, "ptxas"), 1e-3) << phases << text;
  // With ptxas on this machine every kernel got a cubin and its run was
  // timed; without it the column is 0.
  if (gpu::FindPtxas(gpu::NvptxCompileOptions{}).ok()) {
    EXPECT_GT(Number(total[9]), 0) << text;
  } else {
    EXPECT_EQ(Number(total[9]), 0) << text;
  }
  for (const char* phase : {"middle_end", "nvptx_parallel_wall", "finalize"}) {
    EXPECT_TRUE(absl::StrContains(phases, phase)) << phase << "\n" << phases;
  }
}

TEST(CompileTest, ProgressLinesArePrefixed) {
  CompileOptions options = FastOptions();
  std::string lines;
  options.progress = [&lines](absl::string_view line) { absl::StrAppend(&lines, line); };
  ASSERT_TRUE(Compile(kAddExp, options).ok());
  EXPECT_TRUE(absl::StartsWith(lines, "compile: ")) << lines;
  EXPECT_TRUE(absl::StrContains(lines, "[finalize]")) << lines;
}

}  // namespace
}  // namespace xla::aot
