// FP8 GEMMs through cuBLASLt end to end (issue 25): fp8 dots compiled for
// sm_90 with --fp8_gemm=cublaslt keep their fp8 operands (GemmThunkProto
// lhs_type / rhs_type, runtime feature "gemm.fp8"), and the artifact, run
// on the fake CUDA driver (an sm_90 device) with the fake cuBLASLt, matches
// the reference evaluator on values near the fp8 limits. Without the flag,
// on another target, or with sizes cuBLASLt refuses, the dot is widened as
// before and the artifact needs no new feature. Per-tensor scales around the
// dot (fp8-gemm-scale-folder) travel as cuBLASLt's A/B scale pointers
// (GemmThunkProto lhs_scale / rhs_scale).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/literal_execution.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/stream_executor/cuda/cublaslt_api.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/fake_cublaslt.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/types/float_format.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;

// m=16, n=48, k=32; rhs stored [n,k] (cuBLASLt's TN form as it is).
constexpr char kFp8Dot[] = R"(
HloModule fp8_dot
ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e5m2[48,32] parameter(1)
  ROOT d = bf16[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
)";

// Batched, f8e4m3fn x f8e4m3fn -> f32.
constexpr char kFp8BatchDot[] = R"(
HloModule fp8_batch_dot
ENTRY main {
  a = f8e4m3fn[3,16,32] parameter(0)
  b = f8e4m3fn[3,32,32] parameter(1)
  ROOT d = f32[3,16,32] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={2}
}
)";

// n = 17: cuBLASLt refuses it; widened.
constexpr char kOddFp8Dot[] = R"(
HloModule fp8_odd_dot
ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[17,32] parameter(1)
  ROOT d = bf16[16,17] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
)";

// The Llama 3.1 fp8 steps' spelling: a bf16 dot of fp8 values (here with a
// 3-d result, as dot-canonicalizer reshapes it), then one bf16 multiply by
// the broadcast product of the two f32 scales rounded to bf16.
constexpr char kLlamaScaledDot[] = R"(
HloModule fp8_llama_scaled_dot
ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e5m2[32,3,16] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  d = bf16[16,3,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  s = f32[] multiply(sa, sb)
  s16 = bf16[] convert(s)
  bs = bf16[16,3,16] broadcast(s16), dimensions={}
  ROOT r = bf16[16,3,16] multiply(d, bs)
}
)";

// XLA's dequantizing spelling: each operand converted and scaled, an f32
// result. Compiles to the GEMM alone (the fake driver runs no kernels).
constexpr char kOperandScaledDot[] = R"(
HloModule fp8_operand_scaled_dot
ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[48,32] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  ca = f32[16,32] convert(a)
  ba = f32[16,32] broadcast(sa), dimensions={}
  xa = f32[16,32] multiply(ca, ba)
  cb = f32[48,32] convert(b)
  bb = f32[48,32] broadcast(sb), dimensions={}
  xb = f32[48,32] multiply(bb, cb)
  ROOT d = f32[16,48] dot(xa, xb), lhs_contracting_dims={1}, rhs_contracting_dims={1}
}
)";

// Both scales after an f32 dot, then a convert to bf16 that the GEMM writes
// itself. Also the GEMM alone. (A reshaped result is covered by the pass
// test: a reshape at the root becomes a copy kernel, which the fake driver
// cannot run.)
constexpr char kResultScaledDot[] = R"(
HloModule fp8_result_scaled_dot
ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e5m2[48,32] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  d = f32[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ba = f32[16,48] broadcast(sa), dimensions={}
  m1 = f32[16,48] multiply(d, ba)
  bb = f32[16,48] broadcast(sb), dimensions={}
  m2 = f32[16,48] multiply(m1, bb)
  ROOT r = bf16[16,48] convert(m2)
}
)";

// One scale after the dot (sb unused): the rhs scale is a constant 1 in the
// artifact.
constexpr char kOneScaleDot[] = R"(
HloModule fp8_one_scale_dot
ENTRY main {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[48,32] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  d = f32[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  ba = f32[16,48] broadcast(sa), dimensions={}
  ROOT m = f32[16,48] multiply(ba, d)
}
)";

CompileOptions Options(const std::string& target, Fp8Gemm mode) {
  CompileOptions options;
  options.target = target;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-02T00:00:00Z";
  options.fp8_gemm = mode;
  return options;
}

// Odd values near the limits of `type` (e4m3fn: 448; e5m2: 57344), signed.
Literal Fp8Values(PrimitiveType type, std::vector<int64_t> dims, int salt) {
  static constexpr double kE4m3[] = {448, -416, 0.001953125, -0.013671875, 1.125, -240,
                                     3.5, 0.0625, -18, 96, -0.5, 2.75, 13};
  static constexpr double kE5m2[] = {57344, -0.25, 0.0000152587890625, -3, 0.75, 10240,
                                     -1.25, 0.375, 6, -28, 2, -0.09375};
  Literal l(Shape::Array(type, dims));
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t j = i * 7 + salt;
    l.SetDouble(i, type == PrimitiveType::F8E5M2 ? kE5m2[j % 12] : kE4m3[j % 13]);
  }
  return l;
}

std::vector<const gpu::GemmThunkProto*> Gemms(const gpu::GpuExecutableProto& artifact) {
  std::vector<const gpu::GemmThunkProto*> out;
  for (const gpu::ThunkProto& t : artifact.payload().thunks()) {
    if (t.has_gemm()) out.push_back(&t.gemm());
  }
  return out;
}

bool NeedsGemmFp8(const gpu::GpuExecutableProto& artifact) {
  const auto& f = artifact.header().required_runtime_features();
  return std::find(f.begin(), f.end(), "gemm.fp8") != f.end();
}

TEST(Fp8GemmTest, Sm90WithTheFlagKeepsFp8OperandsInTheGemmThunk) {
  absl::StatusOr<gpu::GpuExecutableProto> proto =
      CompileToProto(kFp8Dot, Options("sm_90", Fp8Gemm::kCublasLt));
  ASSERT_TRUE(proto.ok()) << proto.status();
  const std::vector<const gpu::GemmThunkProto*> gemms = Gemms(*proto);
  ASSERT_EQ(gemms.size(), 1u);
  EXPECT_EQ(gemms[0]->lhs_type(), PRIMITIVE_TYPE_F8E4M3FN);
  EXPECT_EQ(gemms[0]->rhs_type(), PRIMITIVE_TYPE_F8E5M2);
  EXPECT_EQ(gemms[0]->element_type(), PRIMITIVE_TYPE_BF16);
  EXPECT_FALSE(gemms[0]->transpose_lhs());
  EXPECT_TRUE(gemms[0]->transpose_rhs());
  EXPECT_EQ(gemms[0]->lhs().size(), 16 * 32);  // 1 byte per element
  EXPECT_EQ(gemms[0]->rhs().size(), 48 * 32);
  EXPECT_TRUE(NeedsGemmFp8(*proto));
}

TEST(Fp8GemmTest, WithoutTheFlagOnOtherTargetsOrOddSizesItIsWidened) {
  struct Case {
    const char* hlo;
    const char* target;
    Fp8Gemm mode;
  };
  const Case cases[] = {{kFp8Dot, "sm_90", Fp8Gemm::kWiden},
                        {kFp8Dot, "sm_80", Fp8Gemm::kCublasLt},
                        {kFp8Dot, "host", Fp8Gemm::kCublasLt},
                        {kOddFp8Dot, "sm_90", Fp8Gemm::kCublasLt}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.target);
    absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(c.hlo, Options(c.target, c.mode));
    ASSERT_TRUE(proto.ok()) << proto.status();
    const std::vector<const gpu::GemmThunkProto*> gemms = Gemms(*proto);
    ASSERT_EQ(gemms.size(), 1u);
    EXPECT_FALSE(gemms[0]->has_lhs_type());
    EXPECT_FALSE(gemms[0]->has_rhs_type());
    EXPECT_EQ(gemms[0]->element_type(), PRIMITIVE_TYPE_BF16);
    EXPECT_FALSE(NeedsGemmFp8(*proto));
  }
}

// Runs `hlo` compiled for sm_90 with the flag on the fake driver (an sm_90
// device) and the fake cuBLASLt, and compares with the evaluator. With
// `scaled`, the matmul must have had both scale pointers set.
void RunOnFakeCudaAndCompare(const char* hlo, std::vector<Literal> args, bool scaled = false) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, Options("sm_90", Fp8Gemm::kCublasLt));
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  se::cuda::FakeCudaDriver::Options device;
  device.attributes = {{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
                       {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0}};
  se::cuda::FakeCudaDriver driver(device);
  se::cuda::FakeCublasLt lt(driver.api());
  se::cuda::SetCublasLtApiForTesting(&lt.api());
  {
    se::cuda::CudaPlatform platform(&driver.api());
    absl::StatusOr<se::StreamExecutor*> gpu = platform.GetDevice(0);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
    ASSERT_TRUE(exe.ok()) << exe.status();
    absl::StatusOr<std::vector<Literal>> out = ExecuteOnLiterals(**exe, *gpu, args);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 1u);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
    ASSERT_TRUE(module.ok()) << module.status();
    HloEvaluator evaluator;
    absl::StatusOr<Literal> want = evaluator.Evaluate(**module, args);
    ASSERT_TRUE(want.ok()) << want.status();
    double largest = 0;
    for (int64_t i = 0; i < want->element_count(); ++i) {
      largest = std::max(largest, std::abs(want->GetDouble(i)));
    }
    EXPECT_GT(largest, 1000.0);  // not a test on zeros
    EXPECT_TRUE(CompareOutputLeaf(*want, (*out)[0]).ok()) << CompareOutputLeaf(*want, (*out)[0]);
    // It ran as one fp8 cuBLASLt matmul.
    const std::vector<se::cuda::FakeCublasLtMatmul> calls = lt.matmuls();
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_TRUE(calls[0].plan.a.type == CUDA_R_8F_E4M3 || calls[0].plan.a.type == CUDA_R_8F_E5M2);
    EXPECT_EQ(calls[0].plan.transa, CUBLAS_OP_T);
    EXPECT_EQ(calls[0].plan.transb, CUBLAS_OP_N);
    EXPECT_EQ(calls[0].a_scale != nullptr, scaled);
    EXPECT_EQ(calls[0].b_scale != nullptr, scaled);
  }
  se::cuda::SetCublasLtApiForTesting(nullptr);
}

TEST(Fp8GemmTest, FakeCublasLtRunMatchesTheEvaluator) {
  std::vector<Literal> args;
  args.push_back(Fp8Values(PrimitiveType::F8E4M3FN, {16, 32}, 1));
  args.push_back(Fp8Values(PrimitiveType::F8E5M2, {48, 32}, 4));
  RunOnFakeCudaAndCompare(kFp8Dot, std::move(args));
}

TEST(Fp8GemmTest, BatchedFakeCublasLtRunMatchesTheEvaluator) {
  std::vector<Literal> args;
  args.push_back(Fp8Values(PrimitiveType::F8E4M3FN, {3, 16, 32}, 2));
  args.push_back(Fp8Values(PrimitiveType::F8E4M3FN, {3, 32, 32}, 5));
  RunOnFakeCudaAndCompare(kFp8BatchDot, std::move(args));
}

// Fp8 values, and scales that are not powers of two.
std::vector<Literal> ScaledArgs(PrimitiveType b_type, std::vector<int64_t> b_dims) {
  std::vector<Literal> args;
  args.push_back(Fp8Values(PrimitiveType::F8E4M3FN, {16, 32}, 3));
  args.push_back(Fp8Values(b_type, std::move(b_dims), 6));
  for (double v : {0.3671875, 3.1}) {
    Literal s(Shape::Array(PrimitiveType::F32, {}));
    s.SetDouble(0, v);
    args.push_back(std::move(s));
  }
  return args;
}

TEST(Fp8GemmTest, ScalesBecomeTheGemmThunksScaleSlices) {
  for (const char* hlo : {kLlamaScaledDot, kOperandScaledDot, kResultScaledDot}) {
    SCOPED_TRACE(hlo);
    absl::StatusOr<gpu::GpuExecutableProto> proto =
        CompileToProto(hlo, Options("sm_90", Fp8Gemm::kCublasLt));
    ASSERT_TRUE(proto.ok()) << proto.status();
    const std::vector<const gpu::GemmThunkProto*> gemms = Gemms(*proto);
    ASSERT_EQ(gemms.size(), 1u);
    EXPECT_EQ(gemms[0]->lhs_type(), PRIMITIVE_TYPE_F8E4M3FN);
    ASSERT_TRUE(gemms[0]->has_lhs_scale());
    ASSERT_TRUE(gemms[0]->has_rhs_scale());
    EXPECT_EQ(gemms[0]->lhs_scale().size(), 4);
    EXPECT_EQ(gemms[0]->rhs_scale().size(), 4);
    EXPECT_EQ(gemms[0]->m(), 16);
    EXPECT_TRUE(NeedsGemmFp8(*proto));
  }
}

TEST(Fp8GemmTest, WithoutTheFlagScalesStayElementwise) {
  absl::StatusOr<gpu::GpuExecutableProto> proto =
      CompileToProto(kOperandScaledDot, Options("sm_90", Fp8Gemm::kWiden));
  ASSERT_TRUE(proto.ok()) << proto.status();
  const std::vector<const gpu::GemmThunkProto*> gemms = Gemms(*proto);
  ASSERT_EQ(gemms.size(), 1u);
  EXPECT_FALSE(gemms[0]->has_lhs_scale());
  EXPECT_FALSE(gemms[0]->has_lhs_type());
  EXPECT_FALSE(NeedsGemmFp8(*proto));
}

// The scales matter: with both at 1 (what a missing scale pointer gives)
// the evaluator's result is far from the scaled one, so the comparison in
// RunOnFakeCudaAndCompare fails when a pointer is missing or wrong.
void ExpectScalesMatter(const char* hlo, std::vector<Literal> args) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  HloEvaluator evaluator;
  absl::StatusOr<Literal> scaled = evaluator.Evaluate(**module, args);
  ASSERT_TRUE(scaled.ok()) << scaled.status();
  args[2].SetDouble(0, 1);
  args[3].SetDouble(0, 1);
  absl::StatusOr<Literal> unscaled = evaluator.Evaluate(**module, args);
  ASSERT_TRUE(unscaled.ok()) << unscaled.status();
  EXPECT_FALSE(CompareOutputLeaf(*scaled, *unscaled).ok());
}

TEST(Fp8GemmTest, ScaledFakeCublasLtRunsMatchTheEvaluator) {
  ExpectScalesMatter(kResultScaledDot, ScaledArgs(PrimitiveType::F8E5M2, {48, 32}));
  RunOnFakeCudaAndCompare(kResultScaledDot, ScaledArgs(PrimitiveType::F8E5M2, {48, 32}),
                          /*scaled=*/true);
  ExpectScalesMatter(kOneScaleDot, ScaledArgs(PrimitiveType::F8E4M3FN, {48, 32}));
  RunOnFakeCudaAndCompare(kOneScaleDot, ScaledArgs(PrimitiveType::F8E4M3FN, {48, 32}),
                          /*scaled=*/true);
  ExpectScalesMatter(kOperandScaledDot, ScaledArgs(PrimitiveType::F8E4M3FN, {48, 32}));
  RunOnFakeCudaAndCompare(kOperandScaledDot, ScaledArgs(PrimitiveType::F8E4M3FN, {48, 32}),
                          /*scaled=*/true);
}

}  // namespace
}  // namespace xla::aot
