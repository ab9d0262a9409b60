#include "xla/tools/compile_command.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/tools/eval_command.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/inspect_command.h"
#include "xla/tools/run_command.h"

namespace xla::cli {
namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result RunCompileCli(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = RunCompile(args, out, err);
  return {code, out.str(), err.str()};
}

std::string TempPath(const std::string& name) { return std::string(std::getenv("TEST_TMPDIR")) + "/" + name; }

std::string WriteModule(const std::string& name, const std::string& text) {
  std::string path = TempPath(name);
  std::ofstream(path) << text;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A .npy file of f32[n] holding 0.5 * i - 3.25.
std::string WriteNpyF32(const std::string& name, int n) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(n) +
                       ",), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  for (int i = 0; i < n; ++i) {
    const float v = 0.5f * static_cast<float>(i) - 3.25f;
    bytes.append(reinterpret_cast<const char*>(&v), 4);
  }
  const std::string path = TempPath(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

constexpr char kModule[] = R"(
HloModule m
ENTRY e {
  p = f32[33] parameter(0)
  c1 = f32[] constant(3)
  c2 = f32[] constant(4)
  c3 = f32[] add(c1, c2)
  b = f32[33] broadcast(c3), dimensions={}
  n1 = f32[33] negate(p)
  n2 = f32[33] negate(n1)
  dead = f32[33] exponential(p)
  ROOT r = f32[33] multiply(n2, b)
})";

TEST(CompileCommand, WritesOptimizedModuleAndTimings) {
  const std::string dir = TempPath("compile_out");
  Result r = RunCompileCli({WriteModule("m.hlo", kModule), "--dump_dir=" + dir, "--dump_passes"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(absl::StartsWith(r.out, "compile: ")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "9 -> ")) << r.out;
  // The summary names the files it wrote: no artifact, so no timing tables.
  EXPECT_TRUE(absl::StrContains(r.out, dir + "/{after_optimizations.hlo,")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, ",passes/}")) << r.out;
  EXPECT_FALSE(absl::StrContains(r.out, "compile_timings.txt")) << r.out;
  EXPECT_FALSE(absl::StrContains(r.out, "kernel_timings.txt")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "kernels=1 ")) << r.out;
  const std::string hlo = ReadFile(dir + "/after_optimizations.hlo");
  EXPECT_TRUE(ParseHloModule(hlo).ok()) << hlo;
  EXPECT_TRUE(absl::StrContains(hlo, "constant(7)")) << hlo;
  EXPECT_TRUE(absl::StrContains(hlo, "is_scheduled=true")) << hlo;
  EXPECT_TRUE(absl::StrContains(hlo, "fusion(")) << hlo;
  EXPECT_FALSE(absl::StrContains(hlo, "negate")) << hlo;
  EXPECT_FALSE(absl::StrContains(hlo, "dead")) << hlo;
  const std::string timings = ReadFile(dir + "/pass_timings.txt");
  EXPECT_TRUE(absl::StrContains(timings, "simplify.1/algebraic-simplifier")) << timings;
  EXPECT_TRUE(absl::StrContains(timings, "total")) << timings;
  EXPECT_TRUE(std::filesystem::exists(dir + "/passes/00-inline/01.inline.call-inliner.hlo"));
  EXPECT_TRUE(absl::StrContains(timings, "fusion/fusion")) << timings;
  EXPECT_TRUE(absl::StrContains(timings, "buffers/assign")) << timings;
  const std::string schedule = ReadFile(dir + "/schedule.txt");
  EXPECT_TRUE(absl::StrContains(schedule, "ENTRY") || absl::StrContains(schedule, "e")) << schedule;
  const std::string buffers = ReadFile(dir + "/buffer_assignment.txt");
  EXPECT_TRUE(absl::StrContains(buffers, "parameter")) << buffers;
  EXPECT_TRUE(absl::StrContains(buffers, "output")) << buffers;
}

// -o writes an artifact that `xla_aot run` loads and executes; the result
// matches the module's meaning: r = (-(-p)) * (3 + 4) = 7p.
TEST(CompileCommand, WritesAnArtifactThatRuns) {
  const std::string artifact = TempPath("m.xaot");
  Result r = RunCompileCli({WriteModule("m_art.hlo", kModule), "-o", artifact});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "wrote " + artifact)) << r.out;
  ASSERT_TRUE(std::filesystem::exists(artifact));
  // With --dump_dir too: every stage, down to LLVM IR and the thunk tree.
  const std::string dumps = TempPath("m_art_dumps");
  Result d = RunCompileCli({WriteModule("m_art2.hlo", kModule), "-o", TempPath("m2.xaot"),
                            "--dump_dir=" + dumps});
  ASSERT_EQ(d.code, kExitOk) << d.err;
  // The summary names every file written, each of which exists.
  for (const std::string file : {"compile_timings.txt", "kernel_timings.txt",
                                 "llvm_ir.after_optimizations.ll", "thunks.txt"}) {
    EXPECT_TRUE(absl::StrContains(d.out, file)) << file << "\n" << d.out;
    EXPECT_TRUE(std::filesystem::exists(dumps + "/" + file)) << file;
  }
  EXPECT_TRUE(absl::StrContains(ReadFile(dumps + "/llvm_ir.before_optimizations.ll"), "define"));
  const std::string after = ReadFile(dumps + "/llvm_ir.after_optimizations.ll");
  EXPECT_TRUE(absl::StrContains(after, "define")) << after;
  EXPECT_NE(after, ReadFile(dumps + "/llvm_ir.before_optimizations.ll"));
  const std::string thunks = ReadFile(dumps + "/thunks.txt");
  EXPECT_TRUE(absl::StrContains(thunks, "kernel")) << thunks;
  EXPECT_TRUE(std::filesystem::exists(dumps + "/buffer_assignment.txt"));
  // Per-phase compile timings, in order, in the dump and the summary line.
  const std::string timings = ReadFile(dumps + "/compile_timings.txt");
  for (const char* phase : {"middle_end", "thunk_emission", "llvm_optimize", "machine_code",
                            "link", "total"}) {
    EXPECT_TRUE(absl::StrContains(timings, phase)) << phase << "\n" << timings;
  }
  EXPECT_LT(timings.find("middle_end"), timings.find("llvm_optimize")) << timings;
  // Per-kernel timings: the module's one fusion, a loop kernel, then the
  // total (the fields: fusion kind hlo llvm emit_s part p_krnl optimize_s
  // codegen_s est_s).
  const std::string kernels = ReadFile(dumps + "/kernel_timings.txt");
  std::vector<std::vector<std::string>> rows;
  for (absl::string_view line : absl::StrSplit(kernels, '\n', absl::SkipEmpty())) {
    if (line.front() != '#') rows.push_back(absl::StrSplit(line, ' ', absl::SkipEmpty()));
  }
  ASSERT_EQ(rows.size(), 3u) << kernels;
  ASSERT_EQ(rows[1].size(), 10u) << kernels;
  EXPECT_TRUE(absl::StartsWith(rows[1][0], "fusion")) << kernels;
  EXPECT_EQ(rows[1][1], "loop") << kernels;
  EXPECT_EQ(rows[2][0], "total") << kernels;
  EXPECT_EQ(rows[2][6], "1") << kernels;
  for (int column = 4; column < 10; ++column) {
    if (column == 5 || column == 6) continue;
    double row_value = -1, total_value = -1;
    ASSERT_TRUE(absl::SimpleAtod(rows[1][column], &row_value)) << kernels;
    ASSERT_TRUE(absl::SimpleAtod(rows[2][column], &total_value)) << kernels;
    EXPECT_GE(row_value, 0) << kernels;
    EXPECT_EQ(row_value, total_value) << column << "\n" << kernels;  // one kernel, one part
  }
  // The summary line leaves out phases under 0.5 ms (this module's middle
  // end in an optimized build), so only the section itself is certain.
  EXPECT_TRUE(absl::StrContains(d.out, "; phases: ")) << d.out;
  const std::string out_dir = TempPath("m_run");
  std::ostringstream out, err;
  ASSERT_EQ(RunRun({artifact, "--input=" + WriteNpyF32("p.npy", 33), "--output_dir=" + out_dir},
                   out, err),
            kExitOk)
      << err.str();
  const std::string npy = ReadFile(out_dir + "/out0.npy");
  ASSERT_GE(npy.size(), 33u * 4);
  const char* data = npy.data() + npy.size() - 33 * 4;
  for (int i = 0; i < 33; ++i) {
    float v;
    std::memcpy(&v, data + 4 * i, 4);
    EXPECT_EQ(v, 7.0f * (0.5f * static_cast<float>(i) - 3.25f)) << i;
  }
}

// run --reference evaluates the HLO on the same inputs: PASS against the
// module itself, FAIL (exit 3) against one that computes 6p instead of 7p.
TEST(CompileCommand, RunComparesWithAReference) {
  const std::string module = WriteModule("m_ref.hlo", kModule);
  const std::string artifact = TempPath("m_ref.xaot");
  ASSERT_EQ(RunCompileCli({module, "-o", artifact}).code, kExitOk);
  std::ostringstream out, err;
  EXPECT_EQ(RunRun({artifact, "--random_inputs", "--seed=4", "--reference=" + module}, out, err),
            kExitOk)
      << err.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "out0 f32[33]: max_abs_err=0 max_rel_err=0 PASS"))
      << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "PASS: 1 outputs")) << out.str();
  const std::string six = WriteModule(
      "m_six.hlo", "HloModule six\nENTRY e {\n  p = f32[33] parameter(0)\n  c = f32[] constant(6)\n"
                   "  b = f32[33] broadcast(c), dimensions={}\n  ROOT r = f32[33] multiply(p, b)\n}\n");
  std::ostringstream out6, err6;
  EXPECT_EQ(RunRun({artifact, "--random_inputs", "--seed=4", "--reference=" + six}, out6, err6),
            kExitMismatch)
      << err6.str();
  EXPECT_TRUE(absl::StrContains(out6.str(), "FAIL")) << out6.str();
}

// Complex outputs: the reported errors are moduli of the difference, so a
// reference that differs by i everywhere reports max_abs_err=1 (the check
// once printed 0 for every complex output, whatever it compared).
TEST(CompileCommand, RunReportsComplexErrorsAsModuli) {
  const std::string module = WriteModule(
      "m_c64.hlo", "HloModule sq\nENTRY e {\n  p = c64[7] parameter(0)\n"
                   "  ROOT r = c64[7] multiply(p, p)\n}\n");
  const std::string shifted = WriteModule(
      "m_c64_shift.hlo", "HloModule sq_i\nENTRY e {\n  p = c64[7] parameter(0)\n"
                         "  m = c64[7] multiply(p, p)\n  c = c64[] constant((0, 1))\n"
                         "  b = c64[7] broadcast(c), dimensions={}\n  ROOT r = c64[7] add(m, b)\n}\n");
  const std::string artifact = TempPath("m_c64.xaot");
  ASSERT_EQ(RunCompileCli({module, "-o", artifact}).code, kExitOk);
  std::ostringstream out, err;
  EXPECT_EQ(RunRun({artifact, "--random_inputs", "--seed=4", "--reference=" + module}, out, err), kExitOk)
      << err.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "out0 c64[7]: max_abs_err=")) << out.str();
  std::ostringstream out_i, err_i;
  EXPECT_EQ(RunRun({artifact, "--random_inputs", "--seed=4", "--reference=" + shifted}, out_i, err_i),
            kExitMismatch)
      << err_i.str();
  EXPECT_TRUE(absl::StrContains(out_i.str(), "out0 c64[7]: max_abs_err=1 ")) << out_i.str();
}

// run --expected compares with outputs `xla_aot eval --output_dir` wrote for
// the same seed (how the GPU check carries its reference to a device
// machine): PASS for the module's own outputs, FAIL for 6p, and clear errors
// for a directory with too few or too many outputs.
TEST(CompileCommand, RunComparesWithExpectedOutputs) {
  const std::string module = WriteModule("m_exp.hlo", kModule);
  const std::string artifact = TempPath("m_exp.xaot");
  ASSERT_EQ(RunCompileCli({module, "-o", artifact}).code, kExitOk);
  auto eval_into = [](const std::string& hlo, const std::string& dir) {
    std::filesystem::create_directories(dir);
    std::ostringstream out, err;
    return RunEval({hlo, "--random_inputs", "--seed=4", "--output_dir=" + dir}, out, err);
  };
  auto run = [&](std::vector<std::string> extra, std::string* out_text, std::string* err_text) {
    std::vector<std::string> args = {artifact, "--random_inputs", "--seed=4"};
    args.insert(args.end(), extra.begin(), extra.end());
    std::ostringstream out, err;
    const int code = RunRun(args, out, err);
    *out_text = out.str();
    *err_text = err.str();
    return code;
  };
  std::string out, err;
  const std::string dir = TempPath("exp_seven");
  ASSERT_EQ(eval_into(module, dir), kExitOk);
  EXPECT_EQ(run({"--expected=" + dir}, &out, &err), kExitOk) << err;
  EXPECT_TRUE(absl::StrContains(out, "out0 f32[33]: max_abs_err=0 max_rel_err=0 PASS")) << out;
  EXPECT_TRUE(absl::StrContains(out, "PASS: 1 outputs against " + dir)) << out;

  const std::string six = WriteModule(
      "m_exp6.hlo", "HloModule six\nENTRY e {\n  p = f32[33] parameter(0)\n  c = f32[] constant(6)\n"
                    "  b = f32[33] broadcast(c), dimensions={}\n  ROOT r = f32[33] multiply(p, b)\n}\n");
  const std::string dir6 = TempPath("exp_six");
  ASSERT_EQ(eval_into(six, dir6), kExitOk);
  EXPECT_EQ(run({"--expected=" + dir6}, &out, &err), kExitMismatch) << err;
  EXPECT_TRUE(absl::StrContains(out, "FAIL")) << out;
  // A different seed draws other inputs: the stored outputs no longer match.
  {
    std::ostringstream seed5_out, seed5_err;
    EXPECT_EQ(RunRun({artifact, "--random_inputs", "--seed=5", "--expected=" + dir}, seed5_out,
                     seed5_err),
              kExitMismatch)
        << seed5_err.str();
  }

  const std::string empty = TempPath("exp_empty");
  std::filesystem::create_directories(empty);
  EXPECT_EQ(run({"--expected=" + empty}, &out, &err), kExitBadInput);
  EXPECT_TRUE(absl::StrContains(err, "the artifact has 1 outputs but " + empty + "/out0.npy"))
      << err;
  EXPECT_TRUE(absl::StrContains(err, "xla_aot eval FILE.hlo --output_dir=" + empty)) << err;

  std::filesystem::copy_file(dir + "/out0.npy", dir6 + "/out1.npy");
  EXPECT_EQ(run({"--expected=" + dir6}, &out, &err), kExitBadInput);
  EXPECT_TRUE(absl::StrContains(err, "holds " + dir6 + "/out1.npy but the artifact has only 1"))
      << err;

  EXPECT_EQ(run({"--expected=" + dir, "--reference=" + module}, &out, &err), kExitUsage);
  EXPECT_TRUE(absl::StrContains(err, "two oracles")) << err;
}

// The GPU check's carry-along case: eval --save_inputs writes the inputs it
// drew, run replays them with --input and checks --expected. A bf16 output
// travels as f32 in the .npy and is converted back before the comparison.
TEST(CompileCommand, EvalSavesInputsThatRunReplaysAgainstExpected) {
  const std::string module = WriteModule(
      "m_bf16.hlo", "HloModule sq\nENTRY e {\n  p = bf16[9] parameter(0)\n"
                    "  q = bf16[9] parameter(1)\n  ROOT r = bf16[9] multiply(p, q)\n}\n");
  const std::string artifact = TempPath("m_bf16.xaot");
  ASSERT_EQ(RunCompileCli({module, "-o", artifact}).code, kExitOk);
  const std::string expected = TempPath("bf16_expected"), inputs = TempPath("bf16_inputs");
  std::filesystem::create_directories(expected);
  std::filesystem::create_directories(inputs);
  std::ostringstream eval_out, eval_err;
  ASSERT_EQ(RunEval({module, "--random_inputs", "--seed=9", "--output_dir=" + expected,
                     "--save_inputs=" + inputs},
                    eval_out, eval_err),
            kExitOk)
      << eval_err.str();
  ASSERT_TRUE(std::filesystem::exists(inputs + "/in0.npy"));
  ASSERT_TRUE(std::filesystem::exists(inputs + "/in1.npy"));
  EXPECT_FALSE(std::filesystem::exists(inputs + "/in2.npy"));
  std::ostringstream out, err;
  EXPECT_EQ(RunRun({artifact, "--input=" + inputs + "/in0.npy", "--input=" + inputs + "/in1.npy",
                    "--expected=" + expected},
                   out, err),
            kExitOk)
      << err.str() << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "out0 bf16[9]: max_abs_err=0 max_rel_err=0 PASS"))
      << out.str();
  // The first input twice is another product: FAIL.
  std::ostringstream out2, err2;
  EXPECT_EQ(RunRun({artifact, "--input=" + inputs + "/in0.npy", "--input=" + inputs + "/in0.npy",
                    "--expected=" + expected},
                   out2, err2),
            kExitMismatch)
      << err2.str() << out2.str();
  std::ostringstream out3, err3;
  EXPECT_EQ(RunEval({module, "--random_inputs", "--save_inputs=" + TempPath("no/such/dir")}, out3,
                    err3),
            kExitBadInput);
  EXPECT_TRUE(absl::StrContains(err3.str(), "--save_inputs")) << err3.str();
  EXPECT_EQ(RunEval({module, "--random_inputs", "--replicas=2", "--save_inputs=" + inputs}, out3,
                    err3),
            kExitUsage);
}

// A GPU artifact compiles here (ptxas is in CI); running it needs a GPU, so
// `run` on this machine fails with a message naming the target's platform.
TEST(CompileCommand, GpuTargetsCompileAndUnknownOnesAreRefused) {
  const std::string artifact = TempPath("g.xaot");
  Result r = RunCompileCli({WriteModule("m_gpu.hlo", kModule), "-o", artifact, "--target=sm_90"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "wrote " + artifact)) << r.out;
  std::ostringstream out, err;
  EXPECT_NE(RunRun({artifact, "--random_inputs"}, out, err), kExitOk);
  EXPECT_TRUE(absl::StrContains(err.str(), "cuda")) << err.str();
  Result bad = RunCompileCli({WriteModule("m_gpu2.hlo", kModule), "-o", TempPath("g2.xaot"),
                              "--target=sm_75"});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_TRUE(absl::StrContains(bad.err, "sm_80, sm_86, sm_89, sm_90")) << bad.err;
}

TEST(CompileCommand, NoPassDumpsWithoutTheFlag) {
  const std::string dir = TempPath("compile_plain");
  Result r = RunCompileCli({WriteModule("m2.hlo", kModule), "--dump_dir=" + dir});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/passes"));
  EXPECT_FALSE(absl::StrContains(r.out, "passes/")) << r.out;
}

// --checksum=crc32c (stage 1 of payload_checksum.crc32c): the artifact
// lists the feature, inspect names the algorithm, and it runs; an older
// --target_runtime gets FNV-1a; a bad value is a usage error.
TEST(CompileCommand, Crc32cChecksumIsOptInAndLoweredForOlderRuntimes) {
  const std::string hlo = WriteModule("crc.hlo", kModule);
  const std::string artifact = TempPath("crc.xaot");
  Result r = RunCompileCli({hlo, "-o", artifact, "--checksum=crc32c"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  std::ostringstream out, err;
  ASSERT_EQ(RunInspect({artifact}, out, err), kExitOk) << err.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "payload_checksum: crc32c 0x")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "payload_checksum.crc32c")) << out.str();
  std::ostringstream run_out, run_err;
  EXPECT_EQ(RunRun({artifact, "--input=" + WriteNpyF32("crc_p.npy", 33)}, run_out, run_err),
            kExitOk)
      << run_err.str();
  const std::string old = TempPath("crc_old.xaot");
  ASSERT_EQ(RunCompileCli({hlo, "-o", old, "--checksum=crc32c", "--target_runtime=2026-11-29"})
                .code,
            kExitOk);
  std::ostringstream old_out, old_err;
  ASSERT_EQ(RunInspect({old}, old_out, old_err), kExitOk) << old_err.str();
  EXPECT_TRUE(absl::StrContains(old_out.str(), "payload_checksum: fnv1a64 0x")) << old_out.str();
  Result bad = RunCompileCli({hlo, "-o", TempPath("crc_bad.xaot"), "--checksum=md5"});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_TRUE(absl::StrContains(bad.err, "fnv1a64 or crc32c")) << bad.err;
}

// By default an artifact carries the x86-64-v4 (AVX-512) and x86-64-v3
// (AVX2) builds beside the portable one, widest first;
// --host_cpu_variants=none leaves them out, a list asks for others, and an
// unknown CPU is a clear error.
TEST(CompileCommand, HostKernelsGetX8664V4AndV3BuildsByDefault) {
  const std::string hlo = WriteModule("variants.hlo", kModule);
  auto inspect = [&](const std::vector<std::string>& flags) {
    const std::string artifact = TempPath("variants.xaot");
    std::vector<std::string> args = {hlo, "-o", artifact};
    args.insert(args.end(), flags.begin(), flags.end());
    Result r = RunCompileCli(args);
    EXPECT_EQ(r.code, kExitOk) << r.err;
    std::ostringstream out, err;
    EXPECT_EQ(RunInspect({artifact}, out, err), kExitOk) << err.str();
    return out.str();
  };
  // The line inspect prints for host_object_variants[i].
  auto variant_line = [](const std::string& text, int i) {
    const std::string key = absl::StrCat("host_object_variants[", i, "]: ");
    const size_t at = text.find(key);
    if (at == std::string::npos) return std::string();
    return text.substr(at, text.find('\n', at) - at);
  };
  const std::string by_default = inspect({});
  EXPECT_TRUE(absl::StrContains(by_default, "host_cpu_features: [sse3, ssse3, cx16, sse4.1")) << by_default;
  const std::string v4 = variant_line(by_default, 0);
  const std::string v3 = variant_line(by_default, 1);
  EXPECT_TRUE(absl::StrContains(v4, ", avx2, ")) << by_default;
  EXPECT_TRUE(absl::StrContains(v4, ", avx512f, ")) << by_default;
  EXPECT_TRUE(absl::StrContains(v4, ", avx512vl, ")) << by_default;
  EXPECT_TRUE(absl::StrContains(v3, ", avx2, ")) << by_default;
  EXPECT_FALSE(absl::StrContains(v3, "avx512")) << by_default;
  EXPECT_FALSE(absl::StrContains(by_default, "host_object_variants[2]")) << by_default;
  EXPECT_FALSE(absl::StrContains(inspect({"--host_cpu_variants=none"}), "host_object_variants"));
  const std::string one = inspect({"--host_cpu_variants=x86-64-v3"});
  EXPECT_TRUE(absl::StrContains(variant_line(one, 0), ", avx2, ")) << one;
  EXPECT_FALSE(absl::StrContains(one, "host_object_variants[1]")) << one;
  const std::string two = inspect({"--host_cpu_variants=x86-64-v3,x86-64-v4"});
  EXPECT_TRUE(absl::StrContains(two, "host_object_variants[1]")) << two;
  Result bad = RunCompileCli({hlo, "-o", TempPath("variants_bad.xaot"), "--host_cpu_variants=i486x"});
  EXPECT_EQ(bad.code, kExitBadInput) << bad.err;
  EXPECT_TRUE(absl::StrContains(bad.err, "unknown host CPU 'i486x'")) << bad.err;
}

TEST(CompileCommand, ReportsBadUsageAndBadInput) {
  EXPECT_EQ(RunCompileCli({WriteModule("m3.hlo", kModule)}).code, kExitUsage);  // neither -o nor --dump_dir
  EXPECT_EQ(RunCompileCli({"--bogus"}).code, kExitUsage);
  Result level = RunCompileCli({WriteModule("m4.hlo", kModule), "-o", TempPath("m4.xaot"),
                                "--opt_level=4"});
  EXPECT_EQ(level.code, kExitUsage);
  EXPECT_TRUE(absl::StrContains(level.err, "--opt_level")) << level.err;
  Result bad = RunCompileCli({WriteModule("bad.hlo", "HloModule m\nENTRY e {\n ROOT x = f32[] frob()\n}"),
                    "--dump_dir=" + TempPath("bad_out")});
  EXPECT_EQ(bad.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(bad.err, "bad.hlo")) << bad.err;
}

// --allow_custom_calls: refused without it (naming the flag), compiled with
// it (several names, repeated flags), and inspect lists what the runtime
// must register.
TEST(CompileCommand, AllowCustomCallsCompilesTargetsTheRuntimeResolves) {
  const std::string module = WriteModule("cc.hlo", R"(
HloModule cc
ENTRY main {
  x = f32[5]{0} parameter(0)
  y = f32[5]{0} custom-call(x), custom_call_target="acme.one", api_version=API_VERSION_TYPED_FFI, backend_config={k = 3 : i64, on = false}
  ROOT z = f32[5]{0} custom-call(y), custom_call_target="acme.two", backend_config="raw"
}
)");
  const std::string artifact = TempPath("cc.xaot");
  Result refused = RunCompileCli({module, "-o", artifact, "--allow_custom_calls=acme.one"});
  EXPECT_EQ(refused.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(refused.err, "pass --allow_custom_calls=acme.two")) << refused.err;
  Result empty = RunCompileCli({module, "-o", artifact, "--allow_custom_calls="});
  EXPECT_EQ(empty.code, kExitUsage);
  EXPECT_TRUE(absl::StrContains(empty.err, "--allow_custom_calls needs one or more target names")) << empty.err;
  Result ok = RunCompileCli({module, "-o", artifact, "--allow_custom_calls=acme.one,acme.x",
                             "--allow_custom_calls=acme.two"});
  ASSERT_EQ(ok.code, kExitOk) << ok.err;
  std::ostringstream out, err;
  ASSERT_EQ(RunInspect({artifact}, out, err), kExitOk) << err.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "custom_call_targets (2): handlers the runtime must register for platform host\n"
                                           "  acme.one: 1 call(s), not registered in this process (Initialize fails here)\n"
                                           "  acme.two: 1 call(s), not registered")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "'acme.one' TYPED_FFI operands: alloc0[0:20) f32[5]")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "attributes: {k = 3 : i64, on = false}")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "'acme.two' ORIGINAL")) << out.str();
  EXPECT_TRUE(absl::StrContains(out.str(), "opaque: 3 bytes")) << out.str();
}

TEST(CompileCommand, VerboseReportsPhasesInOrderAndThreadsKeepTheBytes) {
  const std::string module = WriteModule("m_v.hlo", kModule);
  Result quiet = RunCompileCli({module, "-o", TempPath("v1.xaot"), "--no_fusion",
                                "--compile_parts=2", "--compile_threads=1"});
  ASSERT_EQ(quiet.code, kExitOk) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  Result r = RunCompileCli({module, "-o", TempPath("v2.xaot"), "-v", "--no_fusion",
                            "--compile_parts=2", "--compile_threads=2"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  const size_t middle = r.err.find("[middle_end]");
  const size_t emission = r.err.find("[thunk_emission]");
  const size_t kernels = r.err.find("[kernel_compilation]");
  const size_t finalize = r.err.find("[finalize]");
  ASSERT_NE(middle, std::string::npos) << r.err;
  ASSERT_NE(finalize, std::string::npos) << r.err;
  EXPECT_LT(middle, emission) << r.err;
  EXPECT_LT(emission, kernels) << r.err;
  EXPECT_LT(kernels, finalize) << r.err;
  // The last kernel count is the total: "kernels N/N (100%)".
  EXPECT_NE(r.err.find("(100%)"), std::string::npos) << r.err;
  // The header's date differs between runs; the shared object does not.
  const std::string a = ReadFile(TempPath("v1.xaot"));
  const std::string b = ReadFile(TempPath("v2.xaot"));
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a.size(), b.size());
  Result bad = RunCompileCli({module, "-o", TempPath("v3.xaot"), "--compile_threads=-2"});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_NE(bad.err.find("--compile_threads"), std::string::npos) << bad.err;
}

TEST(CompileCommand, HelpNamesOutputAndTarget) {
  Result help = RunCompileCli({"--help"});
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_TRUE(absl::StrContains(help.out, "-o OUT.xaot"));
  EXPECT_TRUE(absl::StrContains(help.out, "--target=host"));
  EXPECT_TRUE(absl::StrContains(help.out, "--dump_passes"));
}

}  // namespace
}  // namespace xla::cli

namespace xla::cli {
namespace {

constexpr char kOffloadModule[] = R"(
HloModule offload_cli
ENTRY main {
  p = f32[9,5] parameter(0)
  e = f32[9,5] exponential(p)
  off = f32[9,5] custom-call(e), custom_call_target="MoveToHost"
  n = f32[9,5] negate(e)
  back = f32[9,5] custom-call(off), custom_call_target="MoveToDevice"
  ROOT r = f32[9,5] multiply(n, back)
}
)";

// The memory report after the summary line, by hand: parameter 180 bytes,
// output 180, device temps 256 (e, 180 bytes rounded to 256; fusion
// recomputes e for n, and back lives in the output), offloaded 256; and
// --device_memory refusing one
// byte below the peak (exit 1, each part named), accepting the peak.
// The per-device peak in bytes from the memory report after the summary.
int64_t ReportedPeak(const std::string& out) {
  const size_t at = out.find("device memory per device: peak ");
  if (at == std::string::npos) return -1;
  const std::string line = out.substr(at, out.find('\n', at) - at);
  const size_t open = line.find('(');
  return std::stoll(open == std::string::npos ? line.substr(line.find("peak ") + 5)
                                              : line.substr(open + 1));
}

// b (16 KiB) is read early by x and late by s, across y (64 KiB): with a
// --device_memory below the plain peak, b is recomputed before s and the
// program fits (rematerialization.h; its test has the hand-computed
// schedule figures).
constexpr char kLateUseModule[] = R"(
HloModule late_use
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY e {
  p = f32[64] parameter(0)
  c = f32[] constant(0)
  b = f32[64,64] broadcast(p), dimensions={1}
  x = f32[64,64] exponential(b)
  y = f32[4,64,64] broadcast(x), dimensions={1,2}
  r = f32[64,64] reduce(y, c), dimensions={0}, to_apply=add
  ROOT s = f32[64,64] multiply(r, b)
}
)";

TEST(CompileCommand, DeviceMemoryLimitRematerializesToFit) {
  const std::string module = WriteModule("late_use.hlo", kLateUseModule);
  const std::string artifact = TempPath("late_use.xaot");
  Result plain = RunCompileCli({module, "-o", artifact, "--host_cpu_variants=none", "--no_fusion"});
  ASSERT_EQ(plain.code, kExitOk) << plain.err;
  const int64_t peak = ReportedPeak(plain.out);
  ASSERT_GT(peak, 0) << plain.out;
  Result fitted = RunCompileCli({module, "-o", artifact, "--host_cpu_variants=none", "--no_fusion",
                                 "-v", "--device_memory=" + std::to_string(peak - 1)});
  ASSERT_EQ(fitted.code, kExitOk) << fitted.err;
  EXPECT_TRUE(absl::StrContains(fitted.err, "compile: rematerialized 1 value(s); schedule peak "
                                            "(parameters not counted) 112.0 KiB (114688 bytes) -> "
                                            "96.0 KiB (98304 bytes)"))
      << fitted.err;
  EXPECT_LE(ReportedPeak(fitted.out), peak - 16384) << fitted.out;
}

TEST(CompileCommand, MemoryReportAndDeviceMemoryLimit) {
  const std::string module = WriteModule("offload_cli.hlo", kOffloadModule);
  const std::string artifact = TempPath("offload_cli.xaot");
  Result ok = RunCompileCli({module, "-o", artifact, "--host_cpu_variants=none", "-v"});
  ASSERT_EQ(ok.code, kExitOk) << ok.err;
  for (const char* want : {"compile: device memory per device: peak",
                           "compile:   parameters 180 bytes, outputs 180 bytes, temporaries",
                           "compile: host memory (offloaded): 256 bytes"}) {
    EXPECT_TRUE(absl::StrContains(ok.out, want)) << want << "\n" << ok.out;
  }
  EXPECT_TRUE(absl::StrContains(ok.err, "compile: offloaded to host memory: 256 bytes")) << ok.err;
  // inspect prints the same figures.
  std::ostringstream inspected, ignored;
  ASSERT_EQ(RunInspect({artifact}, inspected, ignored), kExitOk) << ignored.str();
  const size_t at = ok.out.find("device memory per device: peak ");
  ASSERT_NE(at, std::string::npos);
  const std::string peak_line = ok.out.substr(at, ok.out.find('\n', at) - at);
  EXPECT_TRUE(absl::StrContains(inspected.str(), peak_line)) << peak_line << "\n" << inspected.str();
  EXPECT_TRUE(absl::StrContains(inspected.str(), "temp host_memory")) << inspected.str();
  // The peak in bytes, from the line "peak N bytes" or "peak X KiB (N bytes)".
  const size_t open = peak_line.find('(');
  const std::string digits = open == std::string::npos
                                 ? peak_line.substr(peak_line.find("peak ") + 5)
                                 : peak_line.substr(open + 1);
  const int64_t peak = std::stoll(digits);
  EXPECT_EQ(peak, 180 + 180 + 256) << peak_line;
  Result fits = RunCompileCli({module, "-o", artifact, "--host_cpu_variants=none",
                               "--device_memory=" + std::to_string(peak)});
  EXPECT_EQ(fits.code, kExitOk) << fits.err;
  Result refused = RunCompileCli({module, "-o", artifact, "--host_cpu_variants=none",
                                  "--device_memory=" + std::to_string(peak - 1)});
  EXPECT_EQ(refused.code, kExitBadInput);
  for (const char* want : {"needs", "parameters 180 bytes", "outputs 180 bytes",
                           "temporaries 256 bytes", "constants 0 bytes",
                           "host-offloaded 256 bytes", "the device has 615 bytes"}) {
    EXPECT_TRUE(absl::StrContains(refused.err, want)) << want << "\n" << refused.err;
  }
  Result bad = RunCompileCli({module, "-o", artifact, "--device_memory=80XB"});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_TRUE(absl::StrContains(bad.err, "bad memory size '80XB'")) << bad.err;
  Result gib = RunCompileCli({module, "-o", artifact, "--host_cpu_variants=none",
                              "--device_memory=80GiB"});
  EXPECT_EQ(gib.code, kExitOk) << gib.err;
}

// A 160 GB temporary (more than the machine has) fails the run with exit 1
// and a message naming the allocation and its size, not std::bad_alloc.
TEST(CompileCommand, RunWithAnAllocationThatCannotBeHadFailsNamingIt) {
  const std::string module = WriteModule("huge_temp.hlo", R"(
HloModule huge_temp
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
ENTRY main {
  a = f32[200000] parameter(0)
  e = f32[200000] exponential(a)
  big = f32[200000,200000] broadcast(e), dimensions={0}
  kept = f32[200000,200000] opt-barrier(big)
  zero = f32[] constant(0)
  ROOT m = f32[] reduce(kept, zero), dimensions={0,1}, to_apply=add
}
)");
  const std::string artifact = TempPath("huge_temp.xaot");
  Result compiled = RunCompileCli({module, "-o", artifact, "--host_cpu_variants=none"});
  ASSERT_EQ(compiled.code, kExitOk) << compiled.err;
  std::ostringstream out, err;
  const int code = RunRun({artifact, "--random_inputs"}, out, err);
  EXPECT_EQ(code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(err.str(), "(temp, 160000000000 bytes)")) << err.str();
  EXPECT_TRUE(absl::StrContains(err.str(), "cannot allocate allocation")) << err.str();
}

}  // namespace
}  // namespace xla::cli
