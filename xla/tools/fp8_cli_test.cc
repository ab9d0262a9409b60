// End to end through the CLI: FP8 (f8e4m3fn, f8e5m2) converts and dots are
// compiled for host and run against the reference evaluator (`run
// --reference`), and compiled for sm_90 (every kernel must come out as a
// cubin, i.e. ptxas accepted the PTX, and the dot must be a GEMM thunk).
//
// Converts are checked bit for bit (outputs are bitcast to integers, which
// `--reference` compares exactly): every one of the 256 encodings of both
// formats decoded to f32, bf16 and f16, and f32 values near the limits, every
// representable value, every midpoint and one f32 ulp around it encoded from
// f32, bf16 and f16. A few encodings are also checked against hand-computed
// bits (the evaluator is the oracle, so it gets an independent check too).
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/tools/cli_test_util.h"
#include "xla/tools/compile_command.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/inspect_command.h"
#include "xla/tools/run_command.h"
#include "xla/types/float_format.h"
#include "xla/types/literal.h"
#include "xla/types/npy.h"

namespace xla::cli {
namespace {

std::string WriteText(const std::string& name, const std::string& text) {
  const std::string path = TestTempPath(name);
  std::ofstream(path) << text;
  return path;
}

std::string WriteNpy(const std::string& name, const Literal& value) {
  const std::string path = TestTempPath(name);
  const absl::Status s = WriteNpyFile(path, value);
  EXPECT_TRUE(s.ok()) << s;
  return path;
}

Literal F32Literal(const std::vector<int64_t>& dims, const std::vector<double>& values) {
  Literal l(Shape::Array(PrimitiveType::F32, dims));
  EXPECT_EQ(l.element_count(), static_cast<int64_t>(values.size()));
  for (int64_t i = 0; i < l.element_count(); ++i) l.SetDouble(i, values[i]);
  return l;
}

// `count` values drawn uniformly from [-limit, limit] (past the fp8 range,
// so the modules' clamps matter), deterministic.
std::vector<double> Uniform(int64_t count, double limit, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-limit, limit);
  std::vector<double> v(count);
  for (double& x : v) x = static_cast<float>(d(rng));
  return v;
}

// Compiles `hlo` for host, runs it on `inputs` against the evaluator, and
// checks that every dot became a GEMM thunk; then compiles it for sm_90 and
// checks that every kernel has a cubin. `run_flags` are extra `run` flags.
void CompileAndCheck(const std::string& hlo, const std::string& tag,
                     const std::vector<std::string>& inputs, bool expect_gemm,
                     const std::vector<std::string>& run_flags = {}) {
  const std::string host = TestTempPath(tag + "_host.xaot");
  CliResult c = RunCommand(RunCompile, {hlo, "-o", host, "--target=host"});
  ASSERT_EQ(c.code, kExitOk) << c.err;
  std::vector<std::string> run = {host, "--reference=" + hlo};
  for (const std::string& in : inputs) run.push_back("--input=" + in);
  run.insert(run.end(), run_flags.begin(), run_flags.end());
  CliResult r = RunCommand(RunRun, run);
  EXPECT_EQ(r.code, kExitOk) << r.err << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "PASS: ")) << r.out;
  EXPECT_FALSE(absl::StrContains(r.out, "FAIL")) << r.out;
  CliResult ih = RunCommand(RunInspect, {host});
  ASSERT_EQ(ih.code, kExitOk) << ih.err;
  EXPECT_EQ(absl::StrContains(ih.out, "gemm ["), expect_gemm) << ih.out;

  const std::string gpu = TestTempPath(tag + "_sm90.xaot");
  CliResult g = RunCommand(RunCompile, {hlo, "-o", gpu, "--target=sm_90"});
  ASSERT_EQ(g.code, kExitOk) << g.err;
  CliResult ig = RunCommand(RunInspect, {gpu});
  ASSERT_EQ(ig.code, kExitOk) << ig.err;
  EXPECT_EQ(absl::StrContains(ig.out, "gemm ["), expect_gemm) << ig.out;
  // Every line of the kernel table names a cubin (ptxas accepted the PTX).
  std::istringstream lines(ig.out);
  int kernels = 0;
  bool in_table = false;
  for (std::string line; std::getline(lines, line);) {
    if (absl::StartsWith(line, "kernels (")) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (!absl::StartsWith(line, "  [")) break;
    ++kernels;
    EXPECT_TRUE(absl::StrContains(line, ": cubin")) << line;
  }
  EXPECT_GT(kernels, 0) << ig.out;
}

// ---------------------------------------------------------------- converts

constexpr char kDecodeModule[] = R"(HloModule fp8_decode
ENTRY e {
  p = u8[256] parameter(0)
  a = f8e4m3fn[256] bitcast-convert(p)
  b = f8e5m2[256] bitcast-convert(p)
  af = f32[256] convert(a)
  ab = bf16[256] convert(a)
  ah = f16[256] convert(a)
  bf = f32[256] convert(b)
  bb = bf16[256] convert(b)
  bh = f16[256] convert(b)
  uaf = u32[256] bitcast-convert(af)
  uab = u16[256] bitcast-convert(ab)
  uah = u16[256] bitcast-convert(ah)
  ubf = u32[256] bitcast-convert(bf)
  ubb = u16[256] bitcast-convert(bb)
  ubh = u16[256] bitcast-convert(bh)
  ROOT t = (u32[256], u16[256], u16[256], u32[256], u16[256], u16[256]) tuple(uaf, uab, uah, ubf, ubb, ubh)
}
)";

TEST(Fp8Cli, EveryEncodingDecodesExactlyOnHostAndCompilesForSm90) {
  Literal bits(Shape::Array(PrimitiveType::U8, {256}));
  for (int i = 0; i < 256; ++i) bits.SetInt(i, i);
  CompileAndCheck(WriteText("decode.hlo", kDecodeModule), "decode", {WriteNpy("bits.npy", bits)},
                  /*expect_gemm=*/false);
}

// f32 -> {f32, bf16, f16} -> {f8e4m3fn, f8e5m2}, as bits.
constexpr char kEncodeModule[] = R"(HloModule fp8_encode
ENTRY e {
  x = f32[N] parameter(0)
  xb = bf16[N] convert(x)
  xh = f16[N] convert(x)
  a = f8e4m3fn[N] convert(x)
  ab = f8e4m3fn[N] convert(xb)
  ah = f8e4m3fn[N] convert(xh)
  b = f8e5m2[N] convert(x)
  bb = f8e5m2[N] convert(xb)
  bh = f8e5m2[N] convert(xh)
  ua = u8[N] bitcast-convert(a)
  uab = u8[N] bitcast-convert(ab)
  uah = u8[N] bitcast-convert(ah)
  ub = u8[N] bitcast-convert(b)
  ubb = u8[N] bitcast-convert(bb)
  ubh = u8[N] bitcast-convert(bh)
  ROOT t = (u8[N], u8[N], u8[N], u8[N], u8[N], u8[N]) tuple(ua, uab, uah, ub, ubb, ubh)
}
)";

// Inputs with hand-computed encodings (round to nearest even; f8e4m3fn has
// no inf: past 464 it is NaN 0x7F/0xFF; f8e5m2 overflows to inf at 61440).
struct HandCase {
  double value;
  uint32_t e4m3fn;
  uint32_t e5m2;
};
const HandCase kHandCases[] = {
    {448, 0x7E, 0x5F},
    {464, 0x7E, 0x5F},  // e4m3fn tie between 448 (even) and 480 (NaN slot)
    {465, 0x7F, 0x5F},
    {480, 0x7F, 0x60},  // e5m2 tie between 448 (odd) and 512 (even)
    {-464, 0xFE, 0xDF},
    {57344, 0x7F, 0x7B},
    {61439, 0x7F, 0x7B},
    {61440, 0x7F, 0x7C},  // e5m2 tie between 57344 (odd) and inf
    {-61440, 0xFF, 0xFC},
    {INFINITY, 0x7F, 0x7C},
    {-INFINITY, 0xFF, 0xFC},
    {NAN, 0x7F, 0x7E},
    {0x1p-9, 0x01, 0x18},    // e4m3fn smallest subnormal
    {0x1p-10, 0x00, 0x14},   // e4m3fn tie between 0 and 2^-9
    {0x3p-10, 0x02, 0x1A},   // e4m3fn tie between 1 and 2 quanta
    {0x1p-16, 0x00, 0x01},   // e5m2 smallest subnormal
    {0x1p-17, 0x00, 0x00},   // e5m2 tie between 0 and 2^-16
    {0x3p-17, 0x00, 0x02},   // e5m2 tie between 1 and 2 quanta
    {0x1p-6, 0x08, 0x24},    // e4m3fn smallest normal
    {-0.0, 0x80, 0x80},
    {1.0, 0x38, 0x3C},
    {1.0625, 0x38, 0x3C},    // e4m3fn tie between 1 (even) and 1.125
    {1.1875, 0x3A, 0x3D},    // e4m3fn tie between 1.125 and 1.25 (even)
};

std::vector<double> EncodeInputs() {
  std::vector<double> in;
  for (const HandCase& h : kHandCases) in.push_back(h.value);
  for (FloatFormatId id : {FloatFormatId::kF8E4M3FN, FloatFormatId::kF8E5M2}) {
    std::vector<double> values;
    for (uint32_t bits = 0; bits < 256; ++bits) {
      const double v = DecodeFloat(id, bits);
      if (std::isfinite(v)) values.push_back(v);
    }
    std::sort(values.begin(), values.end());
    for (size_t i = 0; i < values.size(); ++i) {
      in.push_back(values[i]);
      if (i + 1 == values.size()) continue;
      const float mid = static_cast<float>((values[i] + values[i + 1]) / 2);
      in.push_back(mid);
      in.push_back(std::nextafter(mid, INFINITY));
      in.push_back(std::nextafter(mid, -INFINITY));
    }
  }
  for (double v : {470.0, 500.0, 1e6, 65504.0, 65520.0, 1e-45, -1e-45, 1e-40, 3.0e38}) {
    in.push_back(v);
    in.push_back(-v);
  }
  if (in.size() % 2 == 0) in.push_back(0.3);  // odd size
  return in;
}

TEST(Fp8Cli, EncodingsFromF32Bf16F16MatchTheEvaluatorAndHandValues) {
  const std::vector<double> in = EncodeInputs();
  const int64_t n = static_cast<int64_t>(in.size());
  const std::string hlo = WriteText(
      "encode.hlo", absl::StrReplaceAll(kEncodeModule, {{"[N]", absl::StrCat("[", n, "]")}}));
  const std::string x = WriteNpy("x.npy", F32Literal({n}, in));
  CompileAndCheck(hlo, "encode", {x}, /*expect_gemm=*/false);
  // The compiled f32 -> fp8 path against the hand-computed bits.
  const std::string out_dir = TestTempPath("encode_out");
  CliResult r = RunCommand(RunRun, {TestTempPath("encode_host.xaot"), "--input=" + x, "--output_dir=" + out_dir});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  absl::StatusOr<Literal> e4 = ReadNpyFile(out_dir + "/out0.npy");
  absl::StatusOr<Literal> e5 = ReadNpyFile(out_dir + "/out3.npy");
  ASSERT_TRUE(e4.ok()) << e4.status();
  ASSERT_TRUE(e5.ok()) << e5.status();
  for (size_t i = 0; i < std::size(kHandCases); ++i) {
    EXPECT_EQ(e4->GetInt(i), kHandCases[i].e4m3fn) << "f8e4m3fn(" << kHandCases[i].value << ")";
    EXPECT_EQ(e5->GetInt(i), kHandCases[i].e5m2) << "f8e5m2(" << kHandCases[i].value << ")";
  }
}

// -------------------------------------------------------------------- dots

// The products of two fp8 values are exact in f32 and the GEMM sums in f32,
// so the only differences from the evaluator are summation order and the
// final bf16 rounding (one bf16 ulp, 2^-8 relative): tolerance_scale 0.25
// allows 5e-3 * (|want| + max|want|) for bf16 results.
TEST(Fp8Cli, E4m3fnTimesE5m2DotWithBf16ResultRunsAsAGemm) {
  const std::string hlo = "xla/tools/testdata/fp8_dot.hlo";  // 5x37 @ 37x11
  const std::string a = WriteNpy("dot_a.npy", F32Literal({5, 37}, Uniform(5 * 37, 520, 1)));
  const std::string b = WriteNpy("dot_b.npy", F32Literal({37, 11}, Uniform(37 * 11, 70000, 2)));
  CompileAndCheck(hlo, "dot", {a, b}, /*expect_gemm=*/true, {"--tolerance_scale=0.25"});
}

constexpr char kBatchDotModule[] = R"(HloModule fp8_dot_batch
ENTRY e {
  a = f32[3,5,37] parameter(0)
  b = f32[3,37,11] parameter(1)
  lo5 = f32[] constant(-57344)
  hi5 = f32[] constant(57344)
  lo4 = f32[] constant(-448)
  hi4 = f32[] constant(448)
  lo5b = f32[3,5,37] broadcast(lo5), dimensions={}
  hi5b = f32[3,5,37] broadcast(hi5), dimensions={}
  lo4b = f32[3,37,11] broadcast(lo4), dimensions={}
  hi4b = f32[3,37,11] broadcast(hi4), dimensions={}
  ac = f32[3,5,37] clamp(lo5b, a, hi5b)
  bc = f32[3,37,11] clamp(lo4b, b, hi4b)
  a8 = f8e5m2[3,5,37] convert(ac)
  b8 = f8e4m3fn[3,37,11] convert(bc)
  ROOT d = f32[3,5,11] dot(a8, b8), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}
)";

TEST(Fp8Cli, BatchedE5m2TimesE4m3fnDotWithF32ResultRunsAsAGemm) {
  const std::string a = WriteNpy("bdot_a.npy", F32Literal({3, 5, 37}, Uniform(3 * 5 * 37, 70000, 3)));
  const std::string b = WriteNpy("bdot_b.npy", F32Literal({3, 37, 11}, Uniform(3 * 37 * 11, 520, 4)));
  CompileAndCheck(WriteText("bdot.hlo", kBatchDotModule), "bdot", {a, b}, /*expect_gemm=*/true);
}

// The Llama 3.1 fp8 shape family: f8 parameters, several free dims on the
// rhs, a bf16 result.
constexpr char kLlamaDotModule[] = R"(HloModule fp8_dot_llama
ENTRY e {
  a = f8e4m3fn[2,5,37] parameter(0)
  b = f8e4m3fn[37,3,7] parameter(1)
  ROOT d = bf16[2,5,3,7] dot(a, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}
}
)";

TEST(Fp8Cli, LlamaShapedE4m3fnDotRunsAsAGemm) {
  const std::string a = WriteNpy("ldot_a.npy", F32Literal({2, 5, 37}, Uniform(2 * 5 * 37, 448, 5)));
  const std::string b = WriteNpy("ldot_b.npy", F32Literal({37, 3, 7}, Uniform(37 * 3 * 7, 448, 6)));
  CompileAndCheck(WriteText("ldot.hlo", kLlamaDotModule), "ldot", {a, b}, /*expect_gemm=*/true,
                  {"--tolerance_scale=0.25"});
}

// --fp8_gemm=cublaslt (issue 25): on sm_90 a Llama-shaped fp8 dot with
// m, n, k multiples of 16 stays fp8 in the GEMM thunk (TN form; the rhs
// transpose is a kernel ptxas accepts) and needs gemm.fp8; by default, and
// for host, it is widened; a bad value is a usage error.
constexpr char kLlamaDot16Module[] = R"(HloModule fp8_dot_llama16
ENTRY e {
  a = f8e4m3fn[2,16,32] parameter(0)
  b = f8e5m2[32,3,16] parameter(1)
  ROOT d = bf16[2,16,3,16] dot(a, b), lhs_contracting_dims={2}, rhs_contracting_dims={0}
}
)";

TEST(Fp8Cli, Fp8GemmCublasLtKeepsFp8OperandsOnSm90) {
  const std::string hlo = WriteText("ldot16.hlo", kLlamaDot16Module);
  const std::string gpu = TestTempPath("ldot16_sm90.xaot");
  CliResult g = RunCommand(RunCompile, {hlo, "-o", gpu, "--target=sm_90", "--fp8_gemm=cublaslt"});
  ASSERT_EQ(g.code, kExitOk) << g.err;
  CliResult ig = RunCommand(RunInspect, {gpu});
  ASSERT_EQ(ig.code, kExitOk) << ig.err;
  EXPECT_TRUE(absl::StrContains(ig.out, "m=32 n=48 k=32")) << ig.out;
  EXPECT_TRUE(absl::StrContains(ig.out, "lhs_type=f8e4m3fn rhs_type=f8e5m2")) << ig.out;
  EXPECT_TRUE(absl::StrContains(ig.out, "required_runtime_features: [gemm.fp8]")) << ig.out;
  EXPECT_TRUE(absl::StrContains(ig.out, ": cubin")) << ig.out;

  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"--target=sm_90"},
        std::vector<std::string>{"--target=sm_90", "--fp8_gemm=widen"},
        std::vector<std::string>{"--target=host", "--fp8_gemm=cublaslt"}}) {
    const std::string out = TestTempPath("ldot16_widened.xaot");
    std::vector<std::string> args = {hlo, "-o", out};
    args.insert(args.end(), flags.begin(), flags.end());
    CliResult c = RunCommand(RunCompile, args);
    ASSERT_EQ(c.code, kExitOk) << c.err;
    CliResult i = RunCommand(RunInspect, {out});
    ASSERT_EQ(i.code, kExitOk) << i.err;
    EXPECT_TRUE(absl::StrContains(i.out, "gemm [")) << i.out;
    EXPECT_FALSE(absl::StrContains(i.out, "lhs_type=")) << i.out;
    EXPECT_FALSE(absl::StrContains(i.out, "gemm.fp8")) << i.out;
  }
  CliResult bad = RunCommand(RunCompile, {hlo, "-o", gpu, "--fp8_gemm=fast"});
  EXPECT_NE(bad.code, kExitOk);
  EXPECT_TRUE(absl::StrContains(bad.err, "bad --fp8_gemm value 'fast' (widen or cublaslt)"))
      << bad.err;
}

}  // namespace
}  // namespace xla::cli
