// Dot precision end to end (issue 29): f32 dots compiled for sm_90 with
// DEFAULT precision become GEMM thunks with allow_tf32 and, run on the fake
// CUDA driver and fake cuBLASLt, give the product of the TF32-rounded
// operands; HIGHEST dots, --gpu_f32_dot_precision=highest and the host
// target keep exact f32 and match the evaluator on the original inputs.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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

constexpr int64_t kM = 5, kK = 33, kN = 7;

std::string DotModule(const std::string& attrs) {
  return absl::StrCat(R"(
HloModule f32_dot
ENTRY main {
  a = f32[5,33] parameter(0)
  b = f32[33,7] parameter(1)
  ROOT d = f32[5,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0})",
                      attrs, "\n}\n");
}

// A 3x3 convolution that runs as im2col + GEMM, with `attrs`.
std::string ConvModule(const std::string& attrs) {
  return absl::StrCat(R"(
HloModule f32_conv
ENTRY main {
  x = f32[1,9,9,5] parameter(0)
  w = f32[3,3,5,7] parameter(1)
  ROOT c = f32[1,9,9,7] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f)",
                      attrs, "\n}\n");
}

CompileOptions Options(const std::string& target,
                       DotPrecision precision = DotPrecision::kDefault) {
  CompileOptions options;
  options.target = target;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-02T00:00:00Z";
  options.gpu_f32_dot_precision = precision;
  return options;
}

// allow_tf32 of every GEMM thunk in the artifact's top level.
std::vector<bool> Tf32Flags(const std::string& hlo, const CompileOptions& options) {
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, options);
  EXPECT_TRUE(proto.ok()) << proto.status();
  std::vector<bool> flags;
  if (!proto.ok()) return flags;
  for (const gpu::ThunkProto& t : proto->payload().thunks()) {
    if (t.has_gemm()) flags.push_back(t.gemm().allow_tf32());
  }
  return flags;
}

TEST(DotPrecisionTest, CompilerSetsAllowTf32ByXlasRule) {
  EXPECT_EQ(Tf32Flags(DotModule(""), Options("sm_90")), std::vector<bool>{true});
  EXPECT_EQ(Tf32Flags(DotModule(""), Options("sm_80")), std::vector<bool>{true});
  EXPECT_EQ(Tf32Flags(DotModule(", operand_precision={high,default}"), Options("sm_90")),
            std::vector<bool>{true});
  EXPECT_EQ(Tf32Flags(DotModule(", operand_precision={default,highest}"), Options("sm_90")),
            std::vector<bool>{false});
  EXPECT_EQ(Tf32Flags(DotModule(""), Options("sm_90", DotPrecision::kHighest)),
            std::vector<bool>{false});
  EXPECT_EQ(Tf32Flags(DotModule(", operand_precision={high,high}"),
                      Options("sm_90", DotPrecision::kHighest)),
            std::vector<bool>{true});
  // The host computes f32 dots in f32, as XLA:CPU does.
  EXPECT_EQ(Tf32Flags(DotModule(""), Options("host")), std::vector<bool>{false});
  // A convolution that becomes a GEMM keeps its precision.
  EXPECT_EQ(Tf32Flags(ConvModule(""), Options("sm_90")), std::vector<bool>{true});
  EXPECT_EQ(Tf32Flags(ConvModule(", operand_precision={highest,highest}"), Options("sm_90")),
            std::vector<bool>{false});
}

TEST(DotPrecisionTest, Bf16DotsNeverCarryTheFlag) {
  const std::string bf16 = R"(
HloModule bf16_dot
ENTRY main {
  a = bf16[5,33] parameter(0)
  b = bf16[33,7] parameter(1)
  ROOT d = bf16[5,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})";
  EXPECT_EQ(Tf32Flags(bf16, Options("sm_90")), std::vector<bool>{false});
}

// Values with all 23 mantissa bits in use, so that TF32 rounding shows.
Literal Values(std::vector<int64_t> dims, int salt) {
  Literal l(Shape::Array(PrimitiveType::F32, dims));
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  for (int64_t i = 0; i < n; ++i) {
    const double x = std::sin(0.37 * static_cast<double>(i + 1) + salt) * (1.0 + (i % 5) / 3.0);
    l.SetDouble(i, static_cast<float>(x));
  }
  return l;
}

// Runs `hlo` compiled with `options` on the fake driver (an sm_90 device)
// and the fake cuBLASLt; returns the one result.
Literal RunOnFakeCuda(const std::string& hlo, const CompileOptions& options,
                      const std::vector<Literal>& args) {
  absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, options);
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return Literal();
  se::cuda::FakeCudaDriver::Options device;
  device.attributes = {{CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 9},
                       {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0}};
  se::cuda::FakeCudaDriver driver(device);
  se::cuda::FakeCublasLt lt(driver.api());
  se::cuda::SetCublasLtApiForTesting(&lt.api());
  Literal result;
  {
    se::cuda::CudaPlatform platform(&driver.api());
    absl::StatusOr<se::StreamExecutor*> gpu = platform.GetDevice(0);
    EXPECT_TRUE(gpu.ok()) << gpu.status();
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
    EXPECT_TRUE(exe.ok()) << exe.status();
    if (gpu.ok() && exe.ok()) {
      absl::StatusOr<std::vector<Literal>> out = ExecuteOnLiterals(**exe, *gpu, args);
      EXPECT_TRUE(out.ok()) << out.status();
      if (out.ok() && out->size() == 1) result = std::move((*out)[0]);
    }
    const std::vector<se::cuda::FakeCublasLtMatmul> calls = lt.matmuls();
    EXPECT_EQ(calls.size(), 1u);
  }
  se::cuda::SetCublasLtApiForTesting(nullptr);
  return result;
}

TEST(DotPrecisionTest, FakeCublasLtRunsDefaultInTf32AndHighestInF32) {
  std::vector<Literal> args;
  args.push_back(Values({kM, kK}, 1));
  args.push_back(Values({kK, kN}, 2));
  // The oracle for TF32: each product of TF32-rounded operands, summed in
  // double and rounded once (the fake's accumulation), written out here.
  std::vector<float> tf32(kM * kN);
  for (int64_t i = 0; i < kM; ++i) {
    for (int64_t j = 0; j < kN; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < kK; ++l) {
        sum += static_cast<double>(RoundToTf32(static_cast<float>(args[0].GetDouble(i * kK + l)))) *
               RoundToTf32(static_cast<float>(args[1].GetDouble(l * kN + j)));
      }
      tf32[i * kN + j] = static_cast<float>(sum);
    }
  }
  const Literal fast = RunOnFakeCuda(DotModule(""), Options("sm_90"), args);
  ASSERT_EQ(fast.element_count(), kM * kN);
  for (int64_t i = 0; i < kM * kN; ++i) {
    EXPECT_EQ(static_cast<float>(fast.GetDouble(i)), tf32[i]) << "element " << i;
  }

  // HIGHEST (and DEFAULT read as highest) match the evaluator on the
  // original inputs, and not the TF32 products.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(DotModule(""));
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Literal> want = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(want.ok()) << want.status();
  for (const CompileOptions& exact :
       {Options("sm_90", DotPrecision::kHighest)}) {
    const Literal full = RunOnFakeCuda(DotModule(""), exact, args);
    EXPECT_TRUE(CompareOutputLeaf(*want, full).ok()) << CompareOutputLeaf(*want, full);
  }
  const Literal highest =
      RunOnFakeCuda(DotModule(", operand_precision={highest,highest}"), Options("sm_90"), args);
  EXPECT_TRUE(CompareOutputLeaf(*want, highest).ok()) << CompareOutputLeaf(*want, highest);
  double gap = 0;
  for (int64_t i = 0; i < kM * kN; ++i) {
    gap = std::max(gap, std::abs(highest.GetDouble(i) - fast.GetDouble(i)));
  }
  EXPECT_GT(gap, 1e-4) << "TF32 and f32 results should differ visibly";
}

}  // namespace
}  // namespace xla::aot
