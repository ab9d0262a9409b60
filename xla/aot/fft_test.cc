// fft end to end (issue 28): modules with fft compiled with --emit_fft for
// the host, run on the host platform (Eigen's FFT) and compared with the
// reference evaluator (a direct DFT in double), for every fft_type, 1 to 3
// dimensions, odd and non-power-of-two lengths, batches, f32 and f64; the
// same modules compile for sm_90 into fft thunks; without the flag, or for
// a runtime from before the feature, compilation fails naming why.
#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/aot/compile.h"
#include "xla/aot/executable.h"
#include "xla/aot/fft_test_util.h"
#include "xla/aot/literal_execution.h"
#include "xla/backends/gpu/runtime/runtime_test_util.h"
#include "xla/hlo/evaluator/evaluator_test_util.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla::aot {
namespace {

using testing::FftCase;
using testing::FftModule;
using testing::IsSinglePrecision;
using testing::WorstRelativeError;

CompileOptions Options(const std::string& target = "host", bool emit_fft = true) {
  CompileOptions options;
  options.target = target;
  options.opt_level = 1;
  options.host_cpu_variants.clear();
  options.production_date = "2026-12-02T00:00:00Z";
  options.emit_fft = emit_fft;
  return options;
}

std::vector<Literal> RandomArgs(const std::string& hlo) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  EXPECT_TRUE(module.ok()) << module.status();
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 11);
  EXPECT_TRUE(args.ok()) << args.status();
  return args.ok() ? std::move(*args) : std::vector<Literal>();
}

// Compiles `hlo` for the host with --emit_fft, checks it has `ffts` fft
// thunks, runs it and compares with the evaluator.
void CheckOnHost(const std::string& hlo, double tolerance, int ffts = 1) {
  SCOPED_TRACE(hlo);
  const std::vector<Literal> args = RandomArgs(hlo);
  absl::StatusOr<Literal> want = evaluator_test::EvalText(hlo, args);
  ASSERT_TRUE(want.ok()) << want.status();
  absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, Options());
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(std::count_if(proto->payload().thunks().begin(), proto->payload().thunks().end(),
                          [](const gpu::ThunkProto& t) { return t.has_fft(); }),
            ffts);
  const auto& features = proto->header().required_runtime_features();
  EXPECT_EQ(std::count(features.begin(), features.end(), "fft"), 1);
  absl::StatusOr<CompiledArtifact> compiled = Compile(hlo, Options());
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<std::unique_ptr<Executable>> exe = Executable::LoadFromBytes(compiled->bytes);
  ASSERT_TRUE(exe.ok()) << exe.status();
  absl::StatusOr<std::vector<Literal>> out =
      ExecuteOnLiterals(**exe, gpu::testing::HostExecutor(), args);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_LE(WorstRelativeError((*out)[0], *want), tolerance);
}

// Every type, 1 to 3 dimensions, odd and non-power-of-two lengths, with
// and without batch dimensions, in f32 and f64.
constexpr FftCase kCases[] = {
    {"c64[3,15]", "c64[3,15]", "FFT", "15"},
    {"c64[2,1000]", "c64[2,1000]", "FFT", "1000"},
    {"c64[4,5,33]", "c64[4,5,33]", "IFFT", "33"},
    {"c64[2,3,5,33]", "c64[2,3,5,33]", "FFT", "5,33"},
    {"c64[2,3,4,7]", "c64[2,3,4,7]", "IFFT", "3,4,7"},
    {"c128[3,33]", "c128[3,33]", "IFFT", "33"},
    {"c128[6,5,12]", "c128[6,5,12]", "FFT", "6,5,12"},
    {"f32[3,15]", "c64[3,8]", "RFFT", "15"},
    {"f32[2,1000]", "c64[2,501]", "RFFT", "1000"},
    {"f32[2,7,33]", "c64[2,7,17]", "RFFT", "7,33"},
    {"f64[3,4,5,6]", "c128[3,4,5,4]", "RFFT", "4,5,6"},
    {"c64[3,8]", "f32[3,15]", "IRFFT", "15"},       // odd output length
    {"c64[3,8]", "f32[3,14]", "IRFFT", "14"},       // even, same input
    {"c64[2,5,17]", "f32[2,5,33]", "IRFFT", "5,33"},
    {"c128[2,3,4,4]", "f64[2,3,4,7]", "IRFFT", "3,4,7"},
    {"c128[501]", "f64[1000]", "IRFFT", "1000"},
};

TEST(FftTest, EveryTypeAndRankMatchesTheEvaluatorOnTheHost) {
  for (const FftCase& c : kCases) {
    CheckOnHost(FftModule(c), IsSinglePrecision(c) ? 2e-6 : 1e-13);
  }
}

// An RFFT, an IFFT over two of its dimensions and an IRFFT back, fused
// elementwise work in between (real arithmetic only).
TEST(FftTest, AChainWithKernelsBetweenMatchesTheEvaluator) {
  const std::string hlo = R"(HloModule chain

ENTRY main {
  p = f32[2,6,15,33] parameter(0)
  two = f32[] constant(2)
  b = f32[2,6,15,33] broadcast(two), dimensions={}
  m = f32[2,6,15,33] multiply(p, b)
  r = c64[2,6,15,17] fft(m), fft_type=RFFT, fft_length={6,15,33}
  i = c64[2,6,15,17] fft(r), fft_type=IFFT, fft_length={15,17}
  ROOT x = f32[2,6,15,32] fft(i), fft_type=IRFFT, fft_length={6,15,32}
})";
  CheckOnHost(hlo, 2e-6, 3);
}

TEST(FftTest, CompilesForSm90IntoFftThunks) {
  for (const FftCase& c : kCases) {
    const std::string hlo = FftModule(c);
    absl::StatusOr<gpu::GpuExecutableProto> proto = CompileToProto(hlo, Options("sm_90"));
    ASSERT_TRUE(proto.ok()) << hlo << proto.status();
    ASSERT_EQ(proto->payload().thunks_size(), 1) << hlo;
    const gpu::FftThunkProto& fft = proto->payload().thunks(0).fft();
    EXPECT_EQ(fft.workspace().size() > 0, std::string(c.type) == "IRFFT") << hlo;
  }
}

TEST(FftTest, WithoutTheFlagOrForAnOlderRuntimeCompilationFailsNamingWhy) {
  const std::string hlo = FftModule({"c64[4]", "c64[4]", "FFT", "4"});
  for (const std::string target : {"host", "sm_90"}) {
    absl::StatusOr<CompiledArtifact> off = Compile(hlo, Options(target, false));
    ASSERT_FALSE(off.ok());
    EXPECT_TRUE(absl::StrContains(off.status().message(), "--emit_fft")) << off.status();
    EXPECT_TRUE(absl::StrContains(off.status().message(), "'f'")) << off.status();
    CompileOptions old = Options(target);
    old.target_runtime = "2026-12-01";
    absl::StatusOr<CompiledArtifact> older = Compile(hlo, old);
    ASSERT_FALSE(older.ok());
    EXPECT_TRUE(absl::StrContains(older.status().message(), "runtime feature `fft`"))
        << older.status();
  }
}

}  // namespace
}  // namespace xla::aot
