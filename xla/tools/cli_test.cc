#include "xla/tools/cli.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

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

TEST(Cli, VerifierRejectsShapeMismatchUnlessDisabled) {
  std::string wrong = WriteTemp(
      "wrong.hlo", "ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[5] negate(p)\n}\n");
  Result r = RunCli({"parse", wrong});
  EXPECT_EQ(r.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(r.err, "f32[5]")) << r.err;
  EXPECT_EQ(RunCli({"parse", "--no_verify", wrong}).code, kExitOk);
}

}  // namespace
}  // namespace xla::cli
