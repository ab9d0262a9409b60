// The NVPTX compiler end to end without a GPU: HLO text -> sm_80 / sm_90
// artifact; checks the header, the kernel table (PTX for the right target,
// accepted by ptxas into a cubin), the thunk tree (GEMM thunks, launch
// dimensions within the target's limits) and that the runtime's loader
// validates the artifact and refuses a non-CUDA device.
#include "xla/backends/gpu/compiler/gpu_compiler.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/executable.h"
#include "xla/backends/gpu/codegen/nvptx/nvptx_target.h"
#include "xla/backends/gpu/runtime/artifact_header.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"

namespace xla::gpu {
namespace {

constexpr char kSoftmax[] = R"(
HloModule jit_softmax, entry_computation_layout={(f32[7,129]{1,0})->f32[7,129]{1,0}}

region_0.4 {
  Arg_0.5 = f32[] parameter(0)
  Arg_1.6 = f32[] parameter(1)
  ROOT maximum.7 = f32[] maximum(Arg_0.5, Arg_1.6)
}

region_1.15 {
  Arg_0.16 = f32[] parameter(0)
  Arg_1.17 = f32[] parameter(1)
  ROOT add.18 = f32[] add(Arg_0.16, Arg_1.17)
}

ENTRY main.26 {
  Arg_0.1 = f32[7,129]{1,0} parameter(0)
  constant.3 = f32[] constant(-inf)
  reduce.8 = f32[7]{0} reduce(Arg_0.1, constant.3), dimensions={1}, to_apply=region_0.4
  broadcast.12 = f32[7,129]{1,0} broadcast(reduce.8), dimensions={0}
  subtract.13 = f32[7,129]{1,0} subtract(Arg_0.1, broadcast.12)
  exponential.14 = f32[7,129]{1,0} exponential(subtract.13)
  constant.2 = f32[] constant(0)
  reduce.19 = f32[7]{0} reduce(exponential.14, constant.2), dimensions={1}, to_apply=region_1.15
  broadcast.23 = f32[7,129]{1,0} broadcast(reduce.19), dimensions={0}
  ROOT divide.24 = f32[7,129]{1,0} divide(exponential.14, broadcast.23)
}
)";

constexpr char kElementwise[] = R"(
HloModule chain
ENTRY e {
  a = f32[37,5] parameter(0)
  b = f32[37,5] parameter(1)
  m = f32[37,5] multiply(a, b)
  t = f32[37,5] tanh(m)
  c = f32[] constant(0.5)
  cb = f32[37,5] broadcast(c), dimensions={}
  s = f32[37,5] add(t, cb)
  ROOT x = f32[37,5] exponential(s)
}
)";

constexpr char kDotBiasTanh[] = R"(
HloModule dense
ENTRY e {
  x = f32[9,33] parameter(0)
  w = f32[33,17] parameter(1)
  b = f32[17] parameter(2)
  d = f32[9,17] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[9,17] broadcast(b), dimensions={1}
  s = f32[9,17] add(d, bb)
  ROOT t = f32[9,17] tanh(s)
}
)";

constexpr char kWhile[] = R"(
HloModule loop
cond {
  p = (s32[], f32[13]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[13]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  v = f32[13] get-tuple-element(p), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  c = f32[] constant(1.5)
  cb = f32[13] broadcast(c), dimensions={}
  v2 = f32[13] multiply(v, cb)
  v3 = f32[13] sine(v2)
  ROOT t = (s32[], f32[13]) tuple(i2, v3)
}
ENTRY e {
  x = f32[13] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[13]) tuple(z, x)
  w = (s32[], f32[13]) while(t), condition=cond, body=body
  ROOT r = f32[13] get-tuple-element(w), index=1
}
)";

// A scan stacking its carried row into a [9,13] output: the body's
// dynamic-update-slice writes the loop buffer in place (no copy thunk).
constexpr char kStackingScan[] = R"(
HloModule scan
cond {
  p = (s32[], f32[13], f32[9,13]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(9)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], f32[13], f32[9,13]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  h = f32[13] get-tuple-element(p), index=1
  ys = f32[9,13] get-tuple-element(p), index=2
  h2 = f32[13] tanh(h)
  u = f32[1,13] reshape(h2)
  z = s32[] constant(0)
  ys2 = f32[9,13] dynamic-update-slice(ys, u, i, z)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[13], f32[9,13]) tuple(i2, h2, ys2)
}
ENTRY e {
  h = f32[13] parameter(0)
  ys = f32[9,13] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[13], f32[9,13]) tuple(z, h, ys)
  w = (s32[], f32[13], f32[9,13]) while(t), condition=cond, body=body
  ROOT r = f32[9,13] get-tuple-element(w), index=2
}
)";

struct Counts {
  int kernel_thunks = 0;
  int gemm_thunks = 0;
  int while_thunks = 0;
  int body_copy_thunks = 0;
  // Kernels in a while body whose first output is the slice of one of
  // their operands (written in place).
  int body_in_place_kernels = 0;
};

bool SameSlice(const BufferSliceProto& a, const BufferSliceProto& b) {
  return a.allocation() == b.allocation() && a.offset() == b.offset() && a.size() == b.size();
}

// Walks the thunk tree, checking every kernel launch against `target`.
void Walk(const google::protobuf::RepeatedPtrField<ThunkProto>& thunks, const NvptxTarget& target,
          int num_kernels, Counts* counts, bool in_body = false) {
  for (const ThunkProto& t : thunks) {
    if (t.has_copy() && in_body) ++counts->body_copy_thunks;
    if (t.has_kernel()) {
      ++counts->kernel_thunks;
      const KernelThunkProto& k = t.kernel();
      for (int a = 0; in_body && a + 1 < k.args_size(); ++a) {
        if (!SameSlice(k.args(a), k.args(k.args_size() - 1))) continue;
        ++counts->body_in_place_kernels;
        break;
      }
      EXPECT_GE(k.kernel_index(), 0);
      EXPECT_LT(k.kernel_index(), num_kernels);
      EXPECT_GT(k.args_size(), 0) << t.profile_annotation();
      const LaunchDimensionsProto& d = k.launch_dimensions();
      EXPECT_GE(d.grid_x(), 1) << t.profile_annotation();
      EXPECT_LE(d.grid_x(), (int64_t{1} << 31) - 1);
      EXPECT_GE(d.grid_y(), 1);
      EXPECT_LE(d.grid_y(), 65535);
      EXPECT_GE(d.grid_z(), 1);
      EXPECT_LE(d.grid_z(), 65535);
      EXPECT_GE(d.block_x(), 1);
      EXPECT_GE(d.block_y(), 1);
      EXPECT_GE(d.block_z(), 1);
      EXPECT_LE(d.block_x() * d.block_y() * d.block_z(), target.max_threads_per_block)
          << t.profile_annotation();
      EXPECT_GE(d.shared_memory_bytes(), 0);
      EXPECT_LE(d.shared_memory_bytes(), target.max_shared_memory_per_block);
    }
    if (t.has_gemm()) ++counts->gemm_thunks;
    if (t.has_while_()) {
      ++counts->while_thunks;
      Walk(t.while_().condition().thunks(), target, num_kernels, counts, true);
      Walk(t.while_().body().thunks(), target, num_kernels, counts, true);
    }
    if (t.has_sequential()) Walk(t.sequential().thunks(), target, num_kernels, counts, in_body);
    if (t.has_conditional()) {
      for (const auto& b : t.conditional().branches()) {
        Walk(b.thunks(), target, num_kernels, counts, in_body);
      }
    }
  }
}

// Compiles `hlo` for `target_name` requiring cubins, checks everything
// target-independent, and returns the thunk counts.
Counts CompileAndCheck(const char* hlo, const std::string& target_name) {
  Counts counts;
  absl::StatusOr<NvptxTarget> target = FindNvptxTarget(target_name);
  EXPECT_TRUE(target.ok()) << target.status();
  if (!target.ok()) return counts;
  GpuCompilerOptions options;
  options.require_cubin = true;
  options.production_date = "2026-01-01T00:00:00Z";
  NvptxFinalizeResult report;
  absl::StatusOr<GpuExecutableProto> artifact =
      CompileHloToGpuArtifactProto(hlo, target_name, options, &report);
  EXPECT_TRUE(artifact.ok()) << artifact.status();
  if (!artifact.ok()) return counts;

  // The bytes parse back and carry the target and driver requirement.
  absl::StatusOr<std::string> bytes = CompileHloToGpuArtifact(hlo, target_name, options);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return counts;
  GpuExecutableProto parsed;
  EXPECT_TRUE(parsed.ParseFromString(*bytes));
  EXPECT_EQ(parsed.header().target(), target_name);
  EXPECT_TRUE(ValidateHeader(parsed.header()).ok());
  EXPECT_EQ(parsed.header().toolchain_requirements_size(), 1);
  if (parsed.header().toolchain_requirements_size() == 1) {
    EXPECT_EQ(parsed.header().toolchain_requirements(0).component(), "cuda_driver");
    absl::StatusOr<std::string> expected =
        RequiredCudaDriverVersion(*target, true, report.ptxas_version);
    EXPECT_TRUE(expected.ok()) << expected.status();
    if (expected.ok()) {
      EXPECT_EQ(parsed.header().toolchain_requirements(0).min_version(), *expected);
    }
  }

  // Every kernel: a cubin with its entry; its PTX targets the right sm.
  const GpuExecutablePayloadProto& payload = parsed.payload();
  EXPECT_EQ(payload.host_shared_object(), "");
  EXPECT_EQ(static_cast<int>(report.kernels.size()), payload.kernels_size());
  for (int i = 0; i < payload.kernels_size(); ++i) {
    const KernelProto& k = payload.kernels(i);
    EXPECT_TRUE(k.has_cubin()) << k.name();
    EXPECT_EQ(k.cubin().entry(), k.name());
    EXPECT_GT(k.cubin().cubin().size(), 64u) << k.name();
    // ELF magic.
    EXPECT_EQ(k.cubin().cubin().substr(0, 4), std::string("\x7f" "ELF", 4)) << k.name();
    if (i < static_cast<int>(report.kernels.size())) {
      const NvptxKernelBuild& b = report.kernels[i];
      EXPECT_EQ(b.name, k.name());
      EXPECT_TRUE(b.has_cubin);
      EXPECT_TRUE(absl::StrContains(b.ptx, absl::StrCat(".target ", target_name))) << b.name;
      EXPECT_TRUE(absl::StrContains(b.ptx, absl::StrCat(".entry ", k.name()))) << b.name;
    }
  }
  Walk(payload.thunks(), *target, payload.kernels_size(), &counts);

  // The runtime validates the whole artifact without a device, then
  // refuses to initialize it on the host platform.
  absl::StatusOr<std::unique_ptr<aot::Executable>> exe = aot::Executable::LoadFromBytes(*bytes);
  EXPECT_TRUE(exe.ok()) << exe.status();
  if (exe.ok()) {
    absl::Status init = (*exe)->Initialize(testing::HostExecutor());
    EXPECT_EQ(init.code(), absl::StatusCode::kFailedPrecondition) << init;
    EXPECT_TRUE(absl::StrContains(init.message(), target_name)) << init;
    EXPECT_TRUE(absl::StrContains(init.message(), "platform host")) << init;
  }
  return counts;
}

class GpuCompilerTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuCompilerTest, Softmax) {
  Counts c = CompileAndCheck(kSoftmax, GetParam());
  EXPECT_GE(c.kernel_thunks, 1);
  EXPECT_EQ(c.gemm_thunks, 0);
}

TEST_P(GpuCompilerTest, ElementwiseChainIsOneKernel) {
  Counts c = CompileAndCheck(kElementwise, GetParam());
  EXPECT_EQ(c.kernel_thunks, 1);
}

TEST_P(GpuCompilerTest, DotBiasTanhKeepsTheGemm) {
  Counts c = CompileAndCheck(kDotBiasTanh, GetParam());
  EXPECT_EQ(c.gemm_thunks, 1);
  EXPECT_GE(c.kernel_thunks, 1);
}

TEST_P(GpuCompilerTest, WhileLoop) {
  Counts c = CompileAndCheck(kWhile, GetParam());
  EXPECT_EQ(c.while_thunks, 1);
  EXPECT_GE(c.kernel_thunks, 2);  // the condition's compare and the body's math
}

// The scan's stacking update and its carried tanh both write their loop
// buffers in place, and ptxas assembles the in-place update kernel.
TEST_P(GpuCompilerTest, ScanUpdatesItsLoopBuffersInPlace) {
  Counts c = CompileAndCheck(kStackingScan, GetParam());
  EXPECT_EQ(c.while_thunks, 1);
  EXPECT_EQ(c.body_copy_thunks, 0);
  EXPECT_GE(c.body_in_place_kernels, 2);  // the update and tanh (and the counter)
}

// A concatenate of `n` odd-sized parameters (one kernel of n + 1 buffers,
// too many to fuse with its consumer) into a temp buffer, then its tanh.
std::string ConcatOf(int n) {
  std::string text = "HloModule wide\nENTRY e {\n", names;
  for (int i = 0; i < n; ++i) {
    absl::StrAppend(&text, "  p", i, " = f32[3] parameter(", i, ")\n");
    absl::StrAppend(&names, i == 0 ? "" : ", ", "p", i);
  }
  absl::StrAppend(&text, "  c = f32[", 3 * n, "] concatenate(", names, "), dimensions={0}\n");
  absl::StrAppend(&text, "  ROOT t = f32[", 3 * n, "] tanh(c)\n}\n");
  return text;
}

// Issue 25: 1,001 pointers are past the kernel-parameter space; the kernel
// takes an argument table that thunk emission reserved past the temp
// buffers, the artifact requires the
// feature, ptxas accepts the kernel and the runtime's loader validates the
// table. The tanh kernel keeps plain parameters.
TEST_P(GpuCompilerTest, AThousandOperandsGoThroughAnArgumentTable) {
  const std::string hlo = ConcatOf(1000);
  Counts c = CompileAndCheck(hlo.c_str(), GetParam());
  EXPECT_EQ(c.kernel_thunks, 2);
  GpuCompilerOptions options;
  options.production_date = "2026-01-01T00:00:00Z";
  absl::StatusOr<GpuExecutableProto> artifact =
      CompileHloToGpuArtifactProto(hlo, GetParam(), options, nullptr);
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  const GpuExecutablePayloadProto& payload = artifact->payload();
  ASSERT_EQ(payload.thunks_size(), 2);
  const KernelThunkProto& k = payload.thunks(0).kernel();
  EXPECT_EQ(k.args_size(), 1001);
  EXPECT_FALSE(payload.thunks(1).kernel().has_argument_table());
  ASSERT_TRUE(k.has_argument_table());
  const BufferAllocationProto& temp = payload.allocations(k.argument_table().allocation());
  EXPECT_TRUE(temp.is_temp());
  // At the end of the temp allocation, past every temp buffer, at a
  // 256-byte boundary (the loader checks that it overlaps no argument).
  EXPECT_EQ(k.argument_table().offset() % 256, 0);
  EXPECT_EQ(k.argument_table().size(), 8 * 1001);
  EXPECT_EQ(temp.size(), k.argument_table().offset() + 8 * 1001);
  for (const BufferSliceProto& arg : k.args()) {
    if (arg.allocation() != k.argument_table().allocation()) continue;
    EXPECT_LE(arg.offset() + arg.size(), k.argument_table().offset());
  }
  const auto& features = artifact->header().required_runtime_features();
  EXPECT_NE(std::find(features.begin(), features.end(), "kernel_argument_table"), features.end());
}

// A plain kernel has no table and the artifact does not require the
// feature (nothing that compiled before changes).
TEST_P(GpuCompilerTest, SmallKernelsNeedNoArgumentTable) {
  absl::StatusOr<GpuExecutableProto> artifact =
      CompileHloToGpuArtifactProto(kElementwise, GetParam(), GpuCompilerOptions(), nullptr);
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  for (const ThunkProto& t : artifact->payload().thunks()) EXPECT_FALSE(t.kernel().has_argument_table());
  for (const std::string& f : artifact->header().required_runtime_features()) {
    EXPECT_NE(f, "kernel_argument_table");
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, GpuCompilerTest, ::testing::Values("sm_90", "sm_80"));

TEST(GpuCompiler, PtxSpecWhenAskedAndDriverMinimumFromPtxIsa) {
  GpuCompilerOptions options;
  options.spec = NvptxSpecChoice::kPtx;
  absl::StatusOr<GpuExecutableProto> artifact =
      CompileHloToGpuArtifactProto(kElementwise, "sm_86", options, nullptr);
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  ASSERT_EQ(artifact->payload().kernels_size(), 1);
  const KernelProto& k = artifact->payload().kernels(0);
  ASSERT_TRUE(k.has_ptx());
  EXPECT_EQ(k.ptx().entry(), k.name());
  EXPECT_TRUE(absl::StrContains(k.ptx().ptx(), ".target sm_86"));
  EXPECT_TRUE(absl::StrContains(k.ptx().ptx(), ".version 7.8"));
  ASSERT_EQ(artifact->header().toolchain_requirements_size(), 1);
  EXPECT_EQ(artifact->header().toolchain_requirements(0).min_version(), "11.8");
}

TEST(GpuCompiler, RequiredCudaDriverVersion) {
  absl::StatusOr<NvptxTarget> t = FindNvptxTarget("sm_90");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*RequiredCudaDriverVersion(*t, true, "13.0.88"), "13.0");
  EXPECT_EQ(*RequiredCudaDriverVersion(*t, true, "12.4"), "12.4");
  EXPECT_EQ(*RequiredCudaDriverVersion(*t, false, ""), "11.8");
  EXPECT_FALSE(RequiredCudaDriverVersion(*t, true, "garbage").ok());
}

TEST(GpuCompiler, UnknownTargetListsSupported) {
  absl::StatusOr<std::string> r = CompileHloToGpuArtifact(kElementwise, "sm_70", {});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "sm_90")) << r.status();
}

TEST(GpuCompiler, RequireCubinFailsWithoutPtxasSayingWhereItLooked) {
  GpuCompilerOptions options;
  options.require_cubin = true;
  options.nvptx.ptxas = "/nonexistent/ptxas";
  absl::StatusOr<std::string> r = CompileHloToGpuArtifact(kElementwise, "sm_90", options);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "ptxas")) << r.status();
}

TEST(GpuCompiler, UnsupportedOpIsUnimplementedNamingIt) {
  // (A complex cholesky, rng-get-and-update-state, a complex tan, then a
  // complex logistic were the example until ComplexExpander and the RNG
  // state emitter lowered them. Complex asin, atan and the inverse
  // hyperbolic functions are still refused.)
  constexpr char kComplexAsin[] = R"(
HloModule s
ENTRY e {
  p = c64[3] parameter(0)
  ROOT my_asin = c64[3] asin(p)
}
)";
  absl::StatusOr<std::string> r = CompileHloToGpuArtifact(kComplexAsin, "sm_90", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnimplemented) << r.status();
  // The op with no real form, not the fusion around it.
  EXPECT_TRUE(absl::StrContains(r.status().message(), "my_asin, a asin")) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "sm_90")) << r.status();
}

TEST(GpuCompiler, DeterministicBytes) {
  GpuCompilerOptions options;
  options.production_date = "2026-01-01T00:00:00Z";
  absl::StatusOr<std::string> a = CompileHloToGpuArtifact(kSoftmax, "sm_90", options);
  absl::StatusOr<std::string> b = CompileHloToGpuArtifact(kSoftmax, "sm_90", options);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(*a, *b);
}

// Kernels compile on several threads (each in its own LLVM context); the
// artifact is the same for any thread count.
TEST(GpuCompiler, BytesDoNotDependOnCompileThreads) {
  constexpr char kThreeKernels[] = R"(
HloModule three
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY main {
  x = f32[37,129] parameter(0)
  e = f32[37,129] exponential(x)
  z = f32[] constant(0)
  r = f32[37] reduce(e, z), dimensions={1}, to_apply=add
  t = f32[129,37] transpose(x), dimensions={1,0}
  n = f32[129,37] negate(t)
  ROOT out = (f32[37], f32[129,37], f32[37,129]) tuple(r, n, e)
}
)";
  GpuCompilerOptions options;
  options.production_date = "2026-01-01T00:00:00Z";
  NvptxFinalizeResult report;
  options.nvptx.threads = 1;
  absl::StatusOr<GpuExecutableProto> one =
      CompileHloToGpuArtifactProto(kThreeKernels, "sm_90", options, &report);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_GE(report.kernels.size(), 2u) << "the test needs several kernels";
  options.nvptx.threads = 3;
  absl::StatusOr<GpuExecutableProto> three =
      CompileHloToGpuArtifactProto(kThreeKernels, "sm_90", options, nullptr);
  ASSERT_TRUE(three.ok()) << three.status();
  EXPECT_EQ(one->SerializeAsString(), three->SerializeAsString());
}

// f64 sine, cosine and power call libdevice's out-of-line slow paths, so
// their PTX has call sequences; LLVM 16 numbers those with one counter per
// process. A PTX artifact must still be the same when compiled again in the
// same process and on any number of threads (RenumberCallSequences).
TEST(GpuCompiler, PtxWithCallsDoesNotDependOnEarlierCompiles) {
  constexpr char kCalls[] = R"(
HloModule calls
ENTRY main {
  x = f64[33] parameter(0)
  y = f64[257] parameter(1)
  s = f64[33] sine(x)
  c = f64[33] cosine(s)
  p = f64[257] power(y, y)
  ROOT out = (f64[33], f64[257]) tuple(c, p)
}
)";
  GpuCompilerOptions options;
  options.production_date = "2026-01-01T00:00:00Z";
  options.spec = NvptxSpecChoice::kPtx;
  options.nvptx.threads = 1;
  absl::StatusOr<GpuExecutableProto> first = CompileHloToGpuArtifactProto(kCalls, "sm_90", options, nullptr);
  ASSERT_TRUE(first.ok()) << first.status();
  bool has_calls = false;
  for (const KernelProto& k : first->payload().kernels()) {
    has_calls = has_calls || k.ptx().ptx().find("// callseq 0") != std::string::npos;
  }
  ASSERT_TRUE(has_calls) << "the test needs a kernel with a call sequence";
  for (int threads : {1, 2}) {
    options.nvptx.threads = threads;
    absl::StatusOr<GpuExecutableProto> again =
        CompileHloToGpuArtifactProto(kCalls, "sm_90", options, nullptr);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(first->SerializeAsString(), again->SerializeAsString()) << threads << " threads";
  }
}

}  // namespace
}  // namespace xla::gpu
