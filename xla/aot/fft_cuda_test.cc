// fft end to end on CUDA (issue 28): modules with one fft compiled with
// --emit_fft for sm_90, loaded and run on the fake CUDA driver (an sm_90
// device) with the fake cuFFT (a direct DFT in double, unscaled inverses,
// C2R overwriting its input, as cuFFT), through the real FftThunk,
// CudaExecutor::PrepareFft and CudaFft (plans, the IRFFT input copy, the
// 1/N scale kernel's host stand-in), and compared with the reference
// evaluator for every fft_type, 1 to 3 dimensions, odd lengths, c64 and
// c128.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/fft_test_util.h"
#include "xla/aot/literal_execution.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/stream_executor/cuda/cuda_platform.h"
#include "xla/stream_executor/cuda/cufft_api.h"
#include "xla/stream_executor/cuda/fake_cuda_driver.h"
#include "xla/stream_executor/cuda/fake_cufft.h"

namespace xla::aot {
namespace {

namespace se = ::stream_executor;
using testing::FftCase;
using testing::FftModule;
using testing::IsSinglePrecision;
using testing::WorstRelativeError;

constexpr FftCase kCases[] = {
    {"c64[3,15]", "c64[3,15]", "FFT", "15"},
    {"c64[2,7,9]", "c64[2,7,9]", "FFT", "7,9"},
    {"c64[4,5,7]", "c64[4,5,7]", "IFFT", "7"},
    {"c128[2,3,4,5]", "c128[2,3,4,5]", "IFFT", "3,4,5"},
    {"c128[7,9]", "c128[7,9]", "FFT", "7,9"},
    {"f32[3,15]", "c64[3,8]", "RFFT", "15"},
    {"f64[2,7,9]", "c128[2,7,5]", "RFFT", "7,9"},
    {"c64[3,8]", "f32[3,15]", "IRFFT", "15"},
    {"c64[3,8]", "f32[3,14]", "IRFFT", "14"},
    {"c128[2,7,5]", "f64[2,7,9]", "IRFFT", "7,9"},
    {"c128[2,3,4,4]", "f64[2,3,4,7]", "IRFFT", "3,4,7"},
};

class FftCudaTest : public ::testing::Test {
 protected:
  static se::cuda::FakeCudaDriver::Options Sm90() {
    se::cuda::FakeCudaDriver::Options options;
    options.attributes[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR] = 9;
    options.attributes[CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR] = 0;
    return options;
  }
  void SetUp() override { se::cuda::SetCufftApiForTesting(&cufft_.api()); }
  void TearDown() override { se::cuda::SetCufftApiForTesting(nullptr); }

  se::cuda::FakeCudaDriver driver_{Sm90()};
  se::cuda::FakeCufft cufft_{driver_};
};

TEST_F(FftCudaTest, EveryTypeAndRankMatchesTheEvaluatorOnTheFakeDriver) {
  se::cuda::CudaPlatform platform(&driver_.api());
  absl::StatusOr<se::StreamExecutor*> gpu = platform.GetDevice(0);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  for (const FftCase& c : kCases) {
    const std::string hlo = FftModule(c);
    SCOPED_TRACE(hlo);
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 5);
    ASSERT_TRUE(args.ok()) << args.status();
    absl::StatusOr<Literal> want = evaluator_test::EvalText(hlo, *args);
    ASSERT_TRUE(want.ok()) << want.status();
    CompileOptions options;
    options.target = "sm_90";
    options.production_date = "2026-12-03T00:00:00Z";
    options.emit_fft = true;
    absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, options);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
    ASSERT_TRUE(exe.ok()) << exe.status();
    const size_t execs_before = cufft_.executions().size();
    absl::StatusOr<std::vector<Literal>> out = ExecuteOnLiterals(**exe, *gpu, *args);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(cufft_.executions().size(), execs_before + 1);
    ASSERT_EQ(out->size(), 1u);
    EXPECT_LE(WorstRelativeError((*out)[0], *want), IsSinglePrecision(c) ? 2e-6 : 1e-13);
  }
}

}  // namespace
}  // namespace xla::aot
