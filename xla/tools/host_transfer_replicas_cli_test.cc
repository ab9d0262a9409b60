// Host transfers in replicated runs through the CLI: `xla_aot eval
// --replicas=3` and `xla_aot run --replicas=3` give every participant its
// own host side. Participant d's recv reads slice d of the --host_recv file
// (or its own draws), its send (recv + replica id, so each participant's
// differs) is printed naming it and written stacked under --host_send_dir,
// and `run --reference` compares each participant's sends with the
// replicated evaluator's. Checked against hand-computed values; a reference
// whose sends differ on some participants, or go to another channel, gives
// FAIL lines naming the participant; a recv file without a leading
// dimension of 3 is refused naming the file, the channel and 3. A corpus
// module with a token parameter (send x, recv y, return y) runs replicated
// with files and draws.
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

constexpr int kN = 3;  // replicas: odd, so a reversed or shifted slice shows
constexpr int kLen = 7;

// recv y on channel 3; send y + `id_scale` * replica-id on channel
// `send_channel`; return x * y + (the sum of x over all replicas).
std::string Module(int id_scale, int send_channel = 2) {
  return absl::StrCat(R"(HloModule hr, replica_count=3

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[7] parameter(0)
  tok = token[] after-all()
  r = (f32[7], u32[], token[]) recv(tok), channel_id=3, is_host_transfer=true, frontend_attributes={_xla_host_transfer_rendezvous="y_htod"}
  rd = (f32[7], token[]) recv-done(r), channel_id=3, is_host_transfer=true
  y = f32[7] get-tuple-element(rd), index=0
  t = token[] get-tuple-element(rd), index=1
  id = u32[] replica-id()
  c = f32[] convert(id)
  k = f32[] constant()", id_scale, R"()
  ck = f32[] multiply(c, k)
  b = f32[7] broadcast(ck), dimensions={}
  v = f32[7] add(y, b)
  s = (f32[7], u32[], token[]) send(v, t), channel_id=)", send_channel,
                      R"(, is_host_transfer=true, frontend_attributes={_xla_host_transfer_rendezvous="x_dtoh"}
  sd = token[] send-done(s), channel_id=)", send_channel, R"(, is_host_transfer=true
  ar = f32[7] all-reduce(x), replica_groups={}, to_apply=add
  m = f32[7] multiply(x, y)
  ROOT o = f32[7] add(m, ar)
})");
}

float X(int d, int i) { return 0.25f * i - d; }
float Y(int d, int i) { return 1.5f * i + 10.0f * d - 3; }

// f32[rows, kLen] with row d = f(d, i).
Literal Stacked(int rows, float (*f)(int, int)) {
  Literal l(Shape::Array(PrimitiveType::F32, {rows, kLen}));
  float* v = reinterpret_cast<float*>(l.mutable_data().data());
  for (int d = 0; d < rows; ++d) {
    for (int i = 0; i < kLen; ++i) v[d * kLen + i] = f(d, i);
  }
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
                                        "--emit_collectives", "--host_cpu_variants=none"});
  EXPECT_EQ(c.code, kExitOk) << c.err;
  return artifact;
}

// Reads `path`, an f32[kN, kLen] array.
std::vector<float> ReadStacked(const std::string& path) {
  absl::StatusOr<Literal> file = ReadNpyFile(path);
  EXPECT_TRUE(file.ok()) << file.status();
  if (!file.ok()) return {};
  EXPECT_EQ(file->shape().ToString(false), "f32[3,7]");
  const float* v = reinterpret_cast<const float*>(file->data().data());
  return std::vector<float>(v, v + file->element_count());
}

// The stacked sends of the hand-computed run: row d = Y(d, i) + d.
void ExpectHandSends(const std::string& path) {
  const std::vector<float> sent = ReadStacked(path);
  ASSERT_EQ(sent.size(), kN * kLen);
  for (int d = 0; d < kN; ++d) {
    for (int i = 0; i < kLen; ++i) EXPECT_FLOAT_EQ(sent[d * kLen + i], Y(d, i) + d) << d << "," << i;
  }
}

void ExpectSendLines(const std::string& err) {
  for (int d = 0; d < kN; ++d) {
    EXPECT_TRUE(absl::StrContains(
        err, absl::StrCat("host send: participant ", d, " channel 2 rendezvous \"x_dtoh\" f32[7]")))
        << err;
  }
}

class HostTransferReplicasCli : public ::testing::Test {
 protected:
  void SetUp() override {
    hlo_ = WriteTestFile("hr.hlo", Module(1));
    x_ = "--input=" + WriteNpy("hr_x.npy", Stacked(kN, X));
    y_ = "--host_recv=3=" + WriteNpy("hr_y.npy", Stacked(kN, Y));
  }
  std::string hlo_, x_, y_;
};

TEST_F(HostTransferReplicasCli, EvalServesEachParticipantItsSlice) {
  const std::string sends = TestTempPath("eval_sends");
  WriteTestFile("eval_sends/.keep", "");
  CliResult r = RunCommand(RunEval, {hlo_, "--replicas=3", x_, y_, "--host_send_dir=" + sends,
                                     "--output_dir=" + TestTempPath("eval_out")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  ExpectSendLines(r.err);
  ExpectHandSends(sends + "/send_2_0.npy");
  const std::vector<float> out = ReadStacked(TestTempPath("eval_out/out0.npy"));
  ASSERT_EQ(out.size(), kN * kLen);
  for (int d = 0; d < kN; ++d) {
    for (int i = 0; i < kLen; ++i) {
      const float sum = X(0, i) + X(1, i) + X(2, i);
      EXPECT_FLOAT_EQ(out[d * kLen + i], X(d, i) * Y(d, i) + sum) << d << "," << i;
    }
  }
}

TEST_F(HostTransferReplicasCli, RunMatchesHandValuesAndComparesEachParticipantsSends) {
  const std::string artifact = Compile(hlo_, "hr.xaot");
  const std::string sends = TestTempPath("run_sends");
  WriteTestFile("run_sends/.keep", "");
  CliResult r = RunCommand(RunRun, {artifact, "--replicas=3", x_, y_, "--host_send_dir=" + sends,
                                    "--reference=" + hlo_});
  ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
  ExpectSendLines(r.err);
  ExpectHandSends(sends + "/send_2_0.npy");
  for (int d = 0; d < kN; ++d) {
    EXPECT_TRUE(
        absl::StrContains(r.out, absl::StrCat("send participant ", d, " channel 2 #0 f32[7]: PASS")))
        << r.out;
  }
  EXPECT_TRUE(absl::StrContains(r.out, "PASS: 1 outputs against")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "PASS: 3 host sends against the reference's 3")) << r.out;
}

// Draws: each participant's recv data comes from its own seed, the same in
// eval and run, so their stacked sends agree row by row, and the rows are
// not one draw repeated.
TEST_F(HostTransferReplicasCli, RandomRecvsDrawPerParticipantAlikeInEvalAndRun) {
  const std::string artifact = Compile(hlo_, "hr_random.xaot");
  WriteTestFile("rand_eval/.keep", "");
  WriteTestFile("rand_run/.keep", "");
  CliResult e = RunCommand(RunEval, {hlo_, "--replicas=3", "--random_inputs", "--seed=4",
                                     "--host_send_dir=" + TestTempPath("rand_eval")});
  ASSERT_EQ(e.code, kExitOk) << e.err;
  CliResult r = RunCommand(RunRun, {artifact, "--replicas=3", "--random_inputs", "--seed=4",
                                    "--host_send_dir=" + TestTempPath("rand_run"),
                                    "--reference=" + hlo_});
  ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "PASS: 3 host sends against the reference's 3")) << r.out;
  const std::vector<float> from_eval = ReadStacked(TestTempPath("rand_eval/send_2_0.npy"));
  const std::vector<float> from_run = ReadStacked(TestTempPath("rand_run/send_2_0.npy"));
  ASSERT_EQ(from_eval.size(), kN * kLen);
  EXPECT_EQ(from_eval, from_run);
  // Rows minus their replica id: distinct draws per participant.
  int same = 0;
  for (int i = 0; i < kLen; ++i) same += from_eval[i] == from_eval[kLen + i] - 1;
  EXPECT_LT(same, kLen);
}

TEST_F(HostTransferReplicasCli, RunReferenceNamesTheParticipantWhoseSendDiffers) {
  const std::string artifact = Compile(hlo_, "hr_diff.xaot");
  // Sends y + 2 * id: the same as the artifact's for participant 0 only.
  CliResult r = RunCommand(RunRun, {artifact, "--replicas=3", x_, y_,
                                    "--reference=" + WriteTestFile("hr2.hlo", Module(2))});
  EXPECT_EQ(r.code, kExitMismatch) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "PASS: 1 outputs against")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "send participant 0 channel 2 #0 f32[7]: PASS")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "send participant 1 channel 2 #0 f32[7]: FAIL (")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "send participant 2 channel 2 #0 f32[7]: FAIL (")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "FAIL: 3 host sends against the reference's 3")) << r.out;
  // A reference that sends on channel 5: every send is only one side's.
  CliResult other = RunCommand(RunRun, {artifact, "--replicas=3", x_, y_,
                                        "--reference=" + WriteTestFile("hr5.hlo", Module(1, 5))});
  EXPECT_EQ(other.code, kExitMismatch) << other.out << other.err;
  for (int d = 0; d < kN; ++d) {
    EXPECT_TRUE(absl::StrContains(
        other.out, absl::StrCat("send participant ", d,
                                " channel 2 #0 f32[7]: FAIL (the artifact sent it, the reference "
                                "did not)")))
        << other.out;
    EXPECT_TRUE(absl::StrContains(
        other.out, absl::StrCat("send participant ", d,
                                " channel 5 #0 f32[7]: FAIL (the reference sent it, the artifact "
                                "did not)")))
        << other.out;
  }
}

TEST_F(HostTransferReplicasCli, ARecvFileWithoutTheParticipantsLeadingDimensionIsNamed) {
  const std::string artifact = Compile(hlo_, "hr_bad.xaot");
  const std::string two = WriteNpy("hr_y2.npy", Stacked(2, Y));
  for (const bool eval : {true, false}) {
    SCOPED_TRACE(eval ? "eval" : "run");
    CliResult r = eval ? RunCommand(RunEval, {hlo_, "--replicas=3", x_, "--host_recv=3=" + two})
                       : RunCommand(RunRun, {artifact, "--replicas=3", x_, "--host_recv=3=" + two});
    EXPECT_EQ(r.code, kExitBadInput) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, two + " has shape f32[2,7], but with 3 participants the "
                                               "host recv on channel 3"))
        << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "needs a leading dimension of 3")) << r.err;
  }
}

// import_emit_stablehlo part 104: (x f32[3,4], token) -> send x on channel
// 1, recv y on channel 2, return y. Replicated, the stacked send file is
// the stacked x and the stacked output is the stacked y, row by row.
TEST(HostTransferReplicasCorpus, ATokenParameterModuleRunsReplicated) {
  absl::StatusOr<std::string> dir = FindHloCorpusDir();
  ASSERT_TRUE(dir.ok()) << dir.status();
  const std::string hlo = absl::StrCat(
      *dir, "/xla/hlo__translate__hlo_to_mhlo__tests__import_emit_stablehlo__part104.hlo");
  const std::string artifact = Compile(hlo, "part104.xaot");
  Literal x(Shape::Array(PrimitiveType::F32, {kN, 3, 4}));
  Literal y(Shape::Array(PrimitiveType::F32, {kN, 3, 4}));
  for (int k = 0; k < kN * 12; ++k) {
    x.SetDouble(k, 0.75 * k - 9);
    y.SetDouble(k, 100 - 1.25 * k);
  }
  const std::vector<std::string> files = {"--input=" + WriteNpy("p104_x.npy", x),
                                          "--host_recv=2=" + WriteNpy("p104_y.npy", y)};
  for (const bool eval : {true, false}) {
    SCOPED_TRACE(eval ? "eval" : "run");
    const std::string tag = eval ? "eval" : "run";
    WriteTestFile("p104_" + tag + "_sends/.keep", "");
    std::vector<std::string> args = {eval ? hlo : artifact, "--replicas=3",
                                     "--output_dir=" + TestTempPath("p104_" + tag + "_out"),
                                     "--host_send_dir=" + TestTempPath("p104_" + tag + "_sends")};
    args.insert(args.end(), files.begin(), files.end());
    if (!eval) args.push_back("--reference=" + hlo);
    CliResult r = RunCommand(eval ? RunEval : RunRun, args);
    ASSERT_EQ(r.code, kExitOk) << r.out << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "host send: participant 2 channel 1 rendezvous "
                                         "\"channel_dtoh_0\" f32[3,4]"))
        << r.err;
    if (!eval) {
      EXPECT_TRUE(absl::StrContains(r.out, "PASS: 3 host sends against the reference's 3")) << r.out;
    }
    absl::StatusOr<Literal> sent = ReadNpyFile(TestTempPath("p104_" + tag + "_sends/send_1_0.npy"));
    ASSERT_TRUE(sent.ok()) << sent.status();
    EXPECT_EQ(*sent, x);
    absl::StatusOr<Literal> out = ReadNpyFile(TestTempPath("p104_" + tag + "_out/out0.npy"));
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(*out, y);
  }
  CliResult drawn = RunCommand(RunRun, {artifact, "--replicas=3", "--random_inputs", "--seed=9",
                                        "--reference=" + hlo});
  EXPECT_EQ(drawn.code, kExitOk) << drawn.out << drawn.err;
  EXPECT_TRUE(absl::StrContains(drawn.out, "PASS: 3 host sends against the reference's 3"))
      << drawn.out;
}

}  // namespace
}  // namespace xla::cli
