#include "xla/tools/cli.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/types/npy.h"

namespace xla::cli {
namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result RunCli(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = RunXlaAot(args, out, err);
  return {code, out.str(), err.str()};
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

const char kExample[] = "xla/tools/testdata/example.hlo";

TEST(Cli, HelpListsEverySubcommandAndFlag) {
  Result r = RunCli({"--help"});
  EXPECT_EQ(r.code, kExitOk);
  EXPECT_TRUE(absl::StrContains(r.out, "parse"));
  EXPECT_TRUE(absl::StrContains(r.out, "--check"));
  EXPECT_TRUE(absl::StrContains(r.out, "--no_verify"));
  EXPECT_TRUE(absl::StrContains(r.out, "Exit codes"));
}

TEST(Cli, BadUsage) {
  EXPECT_EQ(RunCli({}).code, kExitUsage);
  EXPECT_EQ(RunCli({"frobnicate"}).code, kExitUsage);
  EXPECT_EQ(RunCli({"parse"}).code, kExitUsage);
  EXPECT_EQ(RunCli({"parse", "--colour", kExample}).code, kExitUsage);
  EXPECT_EQ(RunCli({"parse", kExample, kExample}).code, kExitUsage);
}

TEST(Cli, ParsePrintsCanonicalTextThatParsesAgain) {
  Result r = RunCli({"parse", kExample});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "ROOT row_sum = f32[3]{0} reduce(relu, zero)"));
  std::string again_path = WriteTemp("again.hlo", r.out);
  Result again = RunCli({"parse", again_path});
  ASSERT_EQ(again.code, kExitOk) << again.err;
  EXPECT_EQ(again.out, r.out);
}

TEST(Cli, BadFileGivesLocationAndExitOne) {
  std::string bad = WriteTemp("bad.hlo", "ENTRY e {\n  p = f32[] parameter(0)\n  q = f32[] frob(p)\n}\n");
  Result r = RunCli({"parse", bad});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(r.err, "bad.hlo:3:13: unknown opcode 'frob'")) << r.err;
  Result missing = RunCli({"parse", "/nonexistent/x.hlo"});
  EXPECT_EQ(missing.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(missing.err, "/nonexistent/x.hlo")) << missing.err;
}

TEST(Cli, CheckCountsFailures) {
  std::string bad = WriteTemp("bad2.hlo", "ENTRY e {\n");
  Result r = RunCli({"parse", "--check", kExample, bad, kExample});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(r.out, "FAIL ")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "2 of 3 files OK, 1 failed")) << r.out;
  Result ok = RunCli({"parse", "--check", kExample});
  EXPECT_EQ(ok.code, kExitOk);
}

TEST(Cli, ParseDeviceCountsPrintsTheFlagsTheCollectivesNeed) {
  std::string permute = WriteTemp(
      "permute.hlo",
      "HloModule m, replica_count=2\nENTRY e {\n  p = f32[4] parameter(0)\n"
      "  ROOT c = f32[4] collective-permute(p), channel_id=1, source_target_pairs={{0,2},{2,0}}\n}\n");
  Result r = RunCli({"parse", "--device_counts", permute});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_EQ(r.out, "--num_replicas=2 --num_partitions=3\n");
  Result plain = RunCli({"parse", "--device_counts", kExample});
  ASSERT_EQ(plain.code, kExitOk) << plain.err;
  EXPECT_EQ(plain.out, "--num_replicas=1 --num_partitions=1\n");
  EXPECT_EQ(RunCli({"parse", "--check", "--device_counts", kExample}).code, kExitUsage);
}

TEST(Cli, VerifierRejectsShapeMismatchUnlessDisabled) {
  std::string wrong = WriteTemp(
      "wrong.hlo", "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[5] negate(p)\n}\n");
  Result r = RunCli({"parse", wrong});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(r.err, "f32[5]")) << r.err;
  EXPECT_EQ(RunCli({"parse", "--no_verify", wrong}).code, kExitOk);
}

std::string WriteNpy(const std::string& name, const Literal& value) {
  std::string path = std::string(getenv("TEST_TMPDIR")) + "/" + name;
  EXPECT_TRUE(WriteNpyFile(path, value).ok());
  return path;
}

TEST(Cli, EvalWritesOneNpyPerResultLeaf) {
  // example.hlo: row_sum(relu(x + broadcast(bias))) for x f32[3,5], bias f32[5].
  Literal x(Shape::Array(PrimitiveType::F32, {3, 5}));
  Literal bias(Shape::Array(PrimitiveType::F32, {5}));
  for (int i = 0; i < 15; ++i) x.SetDouble(i, (i % 4) - 1.5);  // -1.5 -0.5 0.5 1.5 ...
  for (int j = 0; j < 5; ++j) bias.SetDouble(j, 0.25 * j);
  std::string dir = std::string(getenv("TEST_TMPDIR")) + "/eval_out";
  Result r = RunCli({"eval", kExample, "--input=" + WriteNpy("x.npy", x),
                     "--input=" + WriteNpy("bias.npy", bias), "--output_dir=" + dir});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  absl::StatusOr<Literal> out = ReadNpyFile(dir + "/out0.npy");
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->shape().ToString(false), "f32[3]");
  for (int row = 0; row < 3; ++row) {
    double expected = 0;
    for (int j = 0; j < 5; ++j) expected += std::max(0.0, ((row * 5 + j) % 4) - 1.5 + 0.25 * j);
    EXPECT_DOUBLE_EQ(out->GetDouble(row), expected) << row;
  }
}

TEST(Cli, EvalInputErrorsNameTheParameter) {
  Literal wrong(Shape::Array(PrimitiveType::F32, {5, 3}));
  Literal bias(Shape::Array(PrimitiveType::F32, {5}));
  Result r = RunCli({"eval", kExample, "--input=" + WriteNpy("w.npy", wrong),
                     "--input=" + WriteNpy("b.npy", bias)});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(r.err, "parameter 0 ('x')")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "expects f32[3,5]")) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "shape (5, 3)")) << r.err;
  EXPECT_EQ(RunCli({"eval", kExample, "--input=" + WriteNpy("only.npy", bias)}).code, kExitBadInput);
  EXPECT_EQ(RunCli({"eval", kExample, "--random_inputs", "--input=x.npy"}).code, kExitUsage);
}

TEST(Cli, EvalRandomInputsPrint) {
  Result r = RunCli({"eval", kExample, "--random_inputs", "--seed=3", "--print"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_TRUE(absl::StartsWith(r.out, "out0: f32[3] {")) << r.out;
  EXPECT_EQ(RunCli({"eval", kExample, "--random_inputs", "--seed=3", "--print"}).out, r.out);
}

}  // namespace
}  // namespace xla::cli
