// --input_ranges and MODULE.inputs.json: the file's parsing and its errors,
// draws in range, and eval / run --reference / run --expected on a program
// whose index parameter (a dynamic-slice start) gives another result out of
// the file's range.
#include "xla/tools/input_ranges.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/tools/cli_test_util.h"
#include "xla/tools/compile_command.h"
#include "xla/tools/eval_command.h"
#include "xla/tools/exit_codes.h"
#include "xla/tools/run_command.h"
#include "xla/types/npy.h"

namespace xla::cli {
namespace {

// Slices 5 of x's 67 elements from i and scales them by w: i drawn in
// [0, 8) (run's default) and in the file's [40, 48) pick other elements.
constexpr char kModule[] = R"(HloModule ranged
ENTRY e {
  x = f32[67] parameter(0)
  i = s32[] parameter(1)
  w = f32[5] parameter(2)
  d = f32[5] dynamic-slice(x, i), dynamic_slice_sizes={5}
  ROOT r = f32[5] multiply(d, w)
}
)";
constexpr char kRanges[] =
    R"({"params": [null, {"low": 40, "high": 48}, {"low": -0.125, "high": 0.125}]})";

TEST(InputRangesTest, ReadsTheFileAndNamesWhatIsWrong) {
  absl::StatusOr<InputRanges> ok = ReadInputRanges(WriteTestFile("ok.inputs.json", kRanges));
  ASSERT_TRUE(ok.ok()) << ok.status();
  ASSERT_EQ(ok->size(), 3u);
  EXPECT_FALSE((*ok)[0].has_value());
  EXPECT_EQ((*ok)[1]->low, 40);
  EXPECT_EQ((*ok)[2]->high, 0.125);
  const std::pair<const char*, const char*> bad[] = {
      {"{not json", "not a JSON object"},
      {R"({"ranges": []})", "no \"params\" list"},
      {R"({"params": [3]})", "params[0] is neither null nor"},
      {R"({"params": [null, {"low": 1}]})", "params[1] has no number \"high\""},
      {R"({"params": [{"low": 2, "high": 2}]})", "params[0] has low 2 >= high 2"},
  };
  for (const auto& [text, message] : bad) {
    const std::string path = WriteTestFile("bad.json", text);
    absl::StatusOr<InputRanges> r = ReadInputRanges(path);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_TRUE(absl::StrContains(r.status().message(), path)) << r.status();
    EXPECT_TRUE(absl::StrContains(r.status().message(), message)) << r.status();
  }
  EXPECT_FALSE(ReadInputRanges(TestTempPath("absent.json")).ok());
}

TEST(InputRangesTest, FindsTheFileBesideTheFirstModuleThatHasOne) {
  const std::string dir = TestTempPath("find");
  WriteTestFile("find/a.inputs.json", kRanges);
  EXPECT_EQ(FindInputRangesFile("", {"", dir + "/b.hlo", dir + "/a.xaot"}), dir + "/a.inputs.json");
  EXPECT_EQ(FindInputRangesFile("", {dir + "/b.hlo"}), "");
  EXPECT_EQ(FindInputRangesFile("none", {dir + "/a.hlo"}), "");
  EXPECT_EQ(FindInputRangesFile("x.json", {dir + "/a.hlo"}), "x.json");
}

TEST(InputRangesTest, DrawsInRangeAndRefusesWhatDoesNotFit) {
  std::vector<Literal> inputs;
  inputs.emplace_back(Shape::Array(PrimitiveType::S32, {33}));
  inputs.emplace_back(Shape::Array(PrimitiveType::F32, {257}));
  inputs.emplace_back(Shape::Array(PrimitiveType::U8, {9}));
  const InputRanges ranges = {InputRange{-3, 4}, InputRange{2.5, 2.75}, std::nullopt};
  ASSERT_TRUE(ApplyInputRanges(ranges, "r.json", 7, &inputs).ok());
  std::set<int64_t> seen;
  for (int64_t k = 0; k < 33; ++k) {
    const int64_t v = inputs[0].GetInt(k);
    EXPECT_GE(v, -3);
    EXPECT_LE(v, 3);
    seen.insert(v);
  }
  EXPECT_GE(seen.size(), 4u);  // not one value
  for (int64_t k = 0; k < 257; ++k) {
    EXPECT_GE(inputs[1].GetDouble(k), 2.5);
    EXPECT_LT(inputs[1].GetDouble(k), 2.75);
  }
  const absl::Status count = ApplyInputRanges({std::nullopt}, "r.json", 7, &inputs);
  EXPECT_TRUE(absl::StrContains(count.message(),
                                "r.json gives 1 parameter ranges but the program takes 3 parameters"))
      << count;
  const absl::Status no_int =
      ApplyInputRanges({InputRange{0.25, 0.75}, std::nullopt, std::nullopt}, "r.json", 7, &inputs);
  EXPECT_TRUE(absl::StrContains(no_int.message(), "params[0] for parameter 0 (s32[33]): no integer in"))
      << no_int;
  const absl::Status wide =
      ApplyInputRanges({std::nullopt, std::nullopt, InputRange{0, 300}}, "r.json", 7, &inputs);
  EXPECT_TRUE(absl::StrContains(wide.message(), "do not fit u8")) << wide;
}

Literal ReadNpy(const std::string& path) {
  absl::StatusOr<Literal> l = ReadNpyFile(path);
  EXPECT_TRUE(l.ok()) << path << ": " << l.status();
  return l.ok() ? *std::move(l) : Literal(Shape::Array(PrimitiveType::F32, {0}));
}

TEST(InputRangesTest, EvalAndRunHonourTheFileBesideTheModule) {
  const std::string hlo = WriteTestFile("m/ranged.hlo", kModule);
  WriteTestFile("m/ranged.inputs.json", kRanges);
  // eval: the index in [40, 48), the weights in [-0.125, 0.125).
  const std::string ranged = TestTempPath("ranged_eval");
  std::filesystem::create_directories(ranged);
  CliResult e = RunCommand(RunEval, {hlo, "--random_inputs", "--seed=3", "--save_inputs=" + ranged,
                           "--output_dir=" + ranged});
  ASSERT_EQ(e.code, kExitOk) << e.err;
  EXPECT_TRUE(absl::StrContains(e.err, "random inputs: ranges from " + TestTempPath("m/ranged.inputs.json")))
      << e.err;
  const int64_t index = ReadNpy(ranged + "/in1.npy").GetInt(0);
  EXPECT_GE(index, 40);
  EXPECT_LT(index, 48);
  const Literal w = ReadNpy(ranged + "/in2.npy");
  for (int64_t k = 0; k < 5; ++k) EXPECT_LT(std::abs(w.GetDouble(k)), 0.125);
  // --input_ranges=none: the evaluator's index draw, [0, 62].
  const std::string plain = TestTempPath("plain_eval");
  std::filesystem::create_directories(plain);
  CliResult p = RunCommand(RunEval, {hlo, "--random_inputs", "--seed=3", "--save_inputs=" + plain,
                           "--input_ranges=none"});
  ASSERT_EQ(p.code, kExitOk) << p.err;
  EXPECT_NE(ReadNpy(plain + "/in1.npy").GetInt(0), index);

  // run: the file beside the reference applies to the artifact's draws, so
  // the run matches eval's outputs for the same seed; without it, not.
  const std::string artifact = TestTempPath("ranged.xaot");
  CliResult c = RunCommand(RunCompile, {hlo, "-o", artifact, "--host_cpu_variants=none"});
  ASSERT_EQ(c.code, kExitOk) << c.err;
  CliResult ref = RunCommand(RunRun, {artifact, "--random_inputs", "--seed=3", "--reference=" + hlo});
  EXPECT_EQ(ref.code, kExitOk) << ref.out << ref.err;
  CliResult expected = RunCommand(RunRun, {artifact, "--random_inputs", "--seed=3", "--expected=" + ranged,
                                 "--input_ranges=" + TestTempPath("m/ranged.inputs.json")});
  EXPECT_EQ(expected.code, kExitOk) << expected.out << expected.err;
  CliResult none = RunCommand(RunRun, {artifact, "--random_inputs", "--seed=3", "--expected=" + ranged,
                             "--input_ranges=none"});
  EXPECT_EQ(none.code, kExitMismatch) << none.out << none.err;
  // Usage and file errors.
  EXPECT_EQ(RunCommand(RunRun, {artifact, "--input_ranges=x.json"}).code, kExitUsage);
  EXPECT_EQ(RunCommand(RunEval, {hlo, "--input_ranges="}).code, kExitUsage);
  CliResult two = RunCommand(RunEval, {hlo, "--random_inputs",
                             "--input_ranges=" + WriteTestFile("two.json", R"({"params": [null, null]})")});
  EXPECT_EQ(two.code, kExitBadInput);
  EXPECT_TRUE(absl::StrContains(two.err, "gives 2 parameter ranges but the program takes 3")) << two.err;
}

}  // namespace
}  // namespace xla::cli
