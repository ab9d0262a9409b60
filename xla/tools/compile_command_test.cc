#include "xla/tools/compile_command.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/tools/exit_codes.h"

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
  EXPECT_TRUE(std::filesystem::exists(dir + "/passes/00-inline/00.inline.call-inliner.hlo"));
  EXPECT_TRUE(absl::StrContains(timings, "fusion/fusion")) << timings;
  EXPECT_TRUE(absl::StrContains(timings, "buffers/assign")) << timings;
  const std::string schedule = ReadFile(dir + "/schedule.txt");
  EXPECT_TRUE(absl::StrContains(schedule, "ENTRY") || absl::StrContains(schedule, "e")) << schedule;
  const std::string buffers = ReadFile(dir + "/buffer_assignment.txt");
  EXPECT_TRUE(absl::StrContains(buffers, "parameter")) << buffers;
  EXPECT_TRUE(absl::StrContains(buffers, "output")) << buffers;
}

TEST(CompileCommand, NoPassDumpsWithoutTheFlag) {
  const std::string dir = TempPath("compile_plain");
  Result r = RunCompileCli({WriteModule("m2.hlo", kModule), "--dump_dir=" + dir});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/passes"));
}

TEST(CompileCommand, ReportsBadUsageAndBadInput) {
  EXPECT_EQ(RunCompileCli({WriteModule("m3.hlo", kModule)}).code, kExitUsage);  // no --dump_dir
  EXPECT_EQ(RunCompileCli({"--bogus"}).code, kExitUsage);
  Result bad = RunCompileCli({WriteModule("bad.hlo", "HloModule m\nENTRY e {\n ROOT x = f32[] frob()\n}"),
                    "--dump_dir=" + TempPath("bad_out")});
  EXPECT_EQ(bad.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(bad.err, "bad.hlo")) << bad.err;
}

TEST(CompileCommand, HelpSaysMiddleEndOnly) {
  Result help = RunCompileCli({"--help"});
  EXPECT_EQ(help.code, kExitOk);
  EXPECT_TRUE(absl::StrContains(help.out, "MIDDLE END ONLY"));
  EXPECT_TRUE(absl::StrContains(help.out, "--dump_passes"));
}

}  // namespace
}  // namespace xla::cli
