// Host transfers through the CLI's oracle paths: `xla_aot eval` serves them
// from --host_recv files (or --random_inputs draws) and prints the sends,
// `xla_aot run --reference` gives the evaluator the same recv data as the
// artifact and compares their sends like outputs (channel and count on a
// mismatch), a wrong recv file and a channel without data fail naming the
// channel, and `run --reference --random_inputs` passes on the four corpus
// modules with host transfers.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/testing/corpus.h"
#include "xla/tools/cli_test_util.h"
#include "xla/tools/compile_command.h"
#include "xla/tools/eval_command.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/run_command.h"
#include "xla/types/npy.h"

namespace xla::cli {
namespace {

// send x on channel 2, recv y on channel 3, return x * y + 1 (odd size).
// `send_scale` scales what is sent (1: the module the artifact is built
// from; 2: a reference whose send differs and whose output does not).
std::string Module(int send_scale) {
  return absl::StrCat(R"(HloModule xy
ENTRY main {
  x = f32[37] parameter(0)
  tok = token[] parameter(1)
  k = f32[] constant()", send_scale, R"()
  kb = f32[37] broadcast(k), dimensions={}
  xs = f32[37] multiply(x, kb)
  s = (f32[37], u32[], token[]) send(xs, tok), channel_id=2, is_host_transfer=true, frontend_attributes={_xla_host_transfer_rendezvous="x_dtoh"}
  sd = token[] send-done(s), channel_id=2, is_host_transfer=true
  r = (f32[37], u32[], token[]) recv(sd), channel_id=3, is_host_transfer=true, frontend_attributes={_xla_host_transfer_rendezvous="y_htod"}
  rd = (f32[37], token[]) recv-done(r), channel_id=3, is_host_transfer=true
  y = f32[37] get-tuple-element(rd), index=0
  m = f32[37] multiply(x, y)
  one = f32[] constant(1)
  ob = f32[37] broadcast(one), dimensions={}
  ROOT o = f32[37] add(m, ob)
})");
}

Literal Vector(int n, float a, float b) {
  Literal l(Shape::Array(PrimitiveType::F32, {n}));
  float* v = reinterpret_cast<float*>(l.mutable_data().data());
  for (int i = 0; i < n; ++i) v[i] = a * i + b;
  return l;
}

std::string WriteNpy(const std::string& name, const Literal& value) {
  const std::string path = TestTempPath(name);
  EXPECT_TRUE(WriteNpyFile(path, value).ok());
  return path;
}

std::string Compile(const std::string& hlo, const std::string& name) {
  const std::string artifact = TestTempPath(name);
  CliResult c = RunCommand(RunCompile, {hlo, "-o", artifact, "--emit_host_transfers",
                              "--host_cpu_variants=none"});
  EXPECT_EQ(c.code, kExitOk) << c.err;
  return artifact;
}

TEST(HostTransferCli, EvalServesRecvFromItsFileAndWritesTheSends) {
  const std::string hlo = WriteTestFile("eval.hlo", Module(1));
  const Literal x = Vector(37, 0.25f, -3.0f);
  const Literal y = Vector(37, -0.5f, 7.0f);
  const std::string dir = TestTempPath("eval_sends");
  ASSERT_EQ(std::system(("mkdir -p " + dir).c_str()), 0);
  CliResult r = RunCommand(RunEval, {hlo, "--input=" + WriteNpy("x.npy", x), "--host_recv=3=" + WriteNpy("y.npy", y),
                           "--host_send_dir=" + dir, "--output_dir=" + TestTempPath("eval_out")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "host send: channel 2 rendezvous \"x_dtoh\" f32[37]")) << r.err;
  absl::StatusOr<Literal> out = ReadNpyFile(TestTempPath("eval_out/out0.npy"));
  ASSERT_TRUE(out.ok()) << out.status();
  const float* o = reinterpret_cast<const float*>(out->data().data());
  for (int i = 0; i < 37; ++i) {
    const float xi = 0.25f * i - 3.0f, yi = -0.5f * i + 7.0f;
    EXPECT_FLOAT_EQ(o[i], xi * yi + 1) << i;
  }
  absl::StatusOr<Literal> sent = ReadNpyFile(dir + "/send_2_0.npy");
  ASSERT_TRUE(sent.ok()) << sent.status();
  EXPECT_EQ(sent->data(), x.data());
}

TEST(HostTransferCli, EvalRefusesAMissingChannelAndAWrongFile) {
  const std::string hlo = WriteTestFile("refuse.hlo", Module(1));
  const std::string x = WriteNpy("rx.npy", Vector(37, 1, 0));
  CliResult missing = RunCommand(RunEval, {hlo, "--input=" + x});
  EXPECT_EQ(missing.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(missing.err, "no data for the host recv on channel 3 rendezvous "
                                             "\"y_htod\" f32[37]: pass --host_recv=3=FILE.npy"))
      << missing.err;
  CliResult wrong = RunCommand(RunEval, {hlo, "--input=" + x, "--host_recv=3=" + WriteNpy("short.npy", Vector(36, 1, 0))});
  EXPECT_EQ(wrong.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(wrong.err, "the host recv on channel 3 rendezvous \"y_htod\" f32[37] "
                                           "from --host_recv=3="))
      << wrong.err;
  CliResult gone = RunCommand(RunEval, {hlo, "--input=" + x, "--host_recv=3=" + TestTempPath("absent.npy")});
  EXPECT_EQ(gone.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(gone.err, "absent.npy")) << gone.err;
}

TEST(HostTransferCli, RunReferenceFeedsTheSameRecvsAndComparesTheSends) {
  const std::string hlo = WriteTestFile("run.hlo", Module(1));
  const std::string artifact = Compile(hlo, "run.xaot");
  for (const std::vector<std::string>& inputs :
       {std::vector<std::string>{"--random_inputs", "--seed=5"},
        std::vector<std::string>{"--input=" + WriteNpy("run_x.npy", Vector(37, 0.125f, -2)),
                                 "--host_recv=3=" + WriteNpy("run_y.npy", Vector(37, 0.75f, 1))}}) {
    std::vector<std::string> args = {artifact, "--reference=" + hlo};
    args.insert(args.end(), inputs.begin(), inputs.end());
    CliResult r = RunCommand(RunRun, args);
    EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
    EXPECT_TRUE(absl::StrContains(r.out, "send channel 2 #0 f32[37]: PASS")) << r.out;
    EXPECT_TRUE(absl::StrContains(r.out, "PASS: 1 host sends against the reference's 1")) << r.out;
  }
  // The drawn recv data depends on the seed: eval with the same seed gives
  // the run's output, with another seed not.
  CliResult same = RunCommand(RunEval, {hlo, "--random_inputs", "--seed=5", "--output_dir=" + TestTempPath("e5")});
  ASSERT_EQ(same.code, kExitOk) << same.err;
  CliResult vs_eval = RunCommand(RunRun, {artifact, "--random_inputs", "--seed=5", "--expected=" + TestTempPath("e5")});
  EXPECT_EQ(vs_eval.code, kExitOk) << vs_eval.out << vs_eval.err;
  CliResult vs_other = RunCommand(RunRun, {artifact, "--random_inputs", "--seed=6", "--expected=" + TestTempPath("e5")});
  EXPECT_EQ(vs_other.code, kExitMismatch) << vs_other.out << vs_other.err;
}

TEST(HostTransferCli, RunReferenceNamesTheSendThatDiffers) {
  const std::string artifact = Compile(WriteTestFile("send1.hlo", Module(1)), "send1.xaot");
  const std::string twice = WriteTestFile("send2.hlo", Module(2));
  CliResult r = RunCommand(RunRun, {artifact, "--random_inputs", "--reference=" + twice});
  EXPECT_EQ(r.code, kExitMismatch) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "PASS: 1 outputs against")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "send channel 2 #0 f32[37]: FAIL (")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "FAIL: 1 host sends against the reference's 1")) << r.out;
}

TEST(HostTransferCli, RunWithoutRecvDataOrWithAWrongFileFailsNamingTheChannel) {
  const std::string artifact = Compile(WriteTestFile("norecv.hlo", Module(1)), "norecv.xaot");
  const std::string x = "--input=" + WriteNpy("nx.npy", Vector(37, 1, 2));
  CliResult missing = RunCommand(RunRun, {artifact, x});
  EXPECT_EQ(missing.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(missing.err, "pass --host_recv=3=FILE.npy")) << missing.err;
  CliResult wrong = RunCommand(RunRun, {artifact, x, "--host_recv=3=" + WriteNpy("n5.npy", Vector(5, 1, 2))});
  EXPECT_EQ(wrong.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(wrong.err, "the host recv on channel 3 rendezvous \"y_htod\" f32[37]"))
      << wrong.err;
}

TEST(HostTransferCli, RunReferenceRandomInputsPassesOnTheCorpusModules) {
  absl::StatusOr<std::string> dir = FindHloCorpusDir();
  ASSERT_TRUE(dir.ok()) << dir.status();
  for (const char* part : {"import_async__part000", "import_async__part005", "import_async__part006",
                           "import_emit_stablehlo__part104"}) {
    SCOPED_TRACE(part);
    const std::string hlo =
        absl::StrCat(*dir, "/xla/hlo__translate__hlo_to_mhlo__tests__", part, ".hlo");
    const std::string artifact = Compile(hlo, absl::StrCat(part, ".xaot"));
    CliResult r = RunCommand(RunRun, {artifact, "--random_inputs", "--seed=3", "--reference=" + hlo});
    EXPECT_EQ(r.code, kExitOk) << r.out << r.err;
    EXPECT_TRUE(absl::StrContains(r.out, "PASS: ")) << r.out;
  }
}

}  // namespace
}  // namespace xla::cli
