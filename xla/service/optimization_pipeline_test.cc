#include "xla/service/optimization_pipeline.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/transforms/literal_compare.h"

namespace xla {
namespace {

constexpr char kModule[] = R"(
HloModule m
scale {
  x = f32[33] parameter(0)
  two = f32[] constant(2)
  b = f32[33] broadcast(two), dimensions={}
  ROOT d = f32[33] divide(x, b)
}
cond {
  s = (s32[], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] constant(6)
  ROOT c = pred[] compare(i, k), direction=LT
}
body {
  s = (s32[], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[33] get-tuple-element(s), index=1
  w = f32[33] get-tuple-element(s), index=2
  ew = f32[33] exponential(w)
  acc2 = f32[33] add(acc, ew)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[33], f32[33]) tuple(i2, acc2, w)
}
ENTRY e {
  a = f32[33] parameter(0)
  b = f32[33] parameter(1)
  c1 = f32[] constant(3)
  c2 = f32[] constant(4)
  c3 = f32[] add(c1, c2)
  bc = f32[33] broadcast(c3), dimensions={}
  a2 = f32[33] call(a), to_apply=scale
  a3 = f32[33] multiply(a2, bc)
  z = s32[] constant(0)
  t = (s32[], f32[33], f32[33]) tuple(z, a3, b)
  w = (s32[], f32[33], f32[33]) while(t), condition=cond, body=body
  ROOT r = f32[33] get-tuple-element(w), index=1
})";

TEST(OptimizeModule, OptimizesAndKeepsResults) {
  absl::StatusOr<std::unique_ptr<HloModule>> original = ParseHloModule(kModule);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(kModule);
  ASSERT_TRUE(original.ok() && module.ok());
  OptimizeOptions options;
  options.verify_after_each = true;
  options.dump_dir = std::string(std::getenv("TEST_TMPDIR")) + "/dumps";
  absl::StatusOr<OptimizeResult> result = OptimizeModule(module->get(), options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->changed);
  const std::string text = PrintModule(**module);
  EXPECT_FALSE(absl::StrContains(text, "call(")) << text;
  EXPECT_FALSE(absl::StrContains(text, "divide(")) << text;
  EXPECT_TRUE(absl::StrContains(text, "c3 = f32[] constant(7)")) << text;
  EXPECT_TRUE(absl::StrContains(text, R"(backend_config={"known_trip_count":{"n":"6"}})")) << text;
  EXPECT_FALSE(absl::StrContains(text, "scale (")) << text;  // inlined, then removed
  ASSERT_TRUE(ParseHloModule(text).ok());
  for (uint64_t seed : {1, 2}) {
    absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**original, seed);
    ASSERT_TRUE(args.ok());
    absl::StatusOr<Literal> before = HloEvaluator().Evaluate(**original, *args);
    absl::StatusOr<Literal> after = HloEvaluator().Evaluate(**module, *args);
    ASSERT_TRUE(before.ok() && after.ok());
    EXPECT_TRUE(CompareLiterals(*before, *after).ok());
  }
  const std::string report = result->TimingsReport();
  for (const char* pass : {"inline/call-inliner", "simplify.1/algebraic-simplifier",
                           "loops/while-loop-invariant-code-motion",
                           "annotate/while-loop-trip-count-annotator", "total"}) {
    EXPECT_TRUE(absl::StrContains(report, pass)) << report;
  }
  EXPECT_GE(result->simplify_iterations, 2);
  EXPECT_TRUE(std::filesystem::exists(options.dump_dir + "/00-inline/01.inline.call-inliner.hlo"));
}

TEST(OptimizeModule, UnchangedModuleStaysUnchanged) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
})");
  ASSERT_TRUE(module.ok());
  const std::string before = PrintModule(**module);
  absl::StatusOr<OptimizeResult> result = OptimizeModule(module->get(), OptimizeOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_FALSE(result->changed);
  EXPECT_EQ(PrintModule(**module), before);
  EXPECT_EQ(result->simplify_iterations, 1);
}

}  // namespace
}  // namespace xla
