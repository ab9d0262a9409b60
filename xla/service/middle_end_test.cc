#include "xla/service/middle_end.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

std::string ReadTestdata(const std::string& name) {
  absl::StatusOr<std::unique_ptr<HloModule>> m =
      ParseHloModuleFile("xla/service/fusion/testdata/" + name);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? PrintModule(**m) : "";
}

struct Compiled {
  std::unique_ptr<HloModule> module;
  MiddleEndResult result;
};

// Runs the middle end on `text` and checks that the result verifies, parses
// back, evaluates like the original on random inputs, and has a complete
// buffer assignment for the entry's outputs.
Compiled CompileAndCheck(const std::string& text) {
  Compiled out;
  absl::StatusOr<std::unique_ptr<HloModule>> original = ParseHloModule(text);
  EXPECT_TRUE(original.ok()) << original.status();
  if (!original.ok()) return out;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  absl::StatusOr<MiddleEndResult> result = RunMiddleEnd(module->get(), MiddleEndOptions());
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok()) return out;
  EXPECT_TRUE(VerifyModule(**module).ok());
  EXPECT_TRUE((*module)->config().is_scheduled.value_or(false));
  const std::string printed = PrintModule(**module);
  EXPECT_TRUE(ParseHloModule(printed).ok()) << printed;
  absl::StatusOr<std::vector<Literal>> inputs = MakeRandomInputs(**original, 1234);
  EXPECT_TRUE(inputs.ok()) << inputs.status();
  absl::StatusOr<Literal> expected = HloEvaluator().Evaluate(**original, *inputs);
  absl::StatusOr<Literal> actual = HloEvaluator().Evaluate(**module, *inputs);
  EXPECT_TRUE(expected.ok() && actual.ok());
  if (expected.ok() && actual.ok()) {
    absl::Status same = CompareLiterals(*expected, *actual);
    EXPECT_TRUE(same.ok()) << same << "\n" << printed;
  }
  EXPECT_FALSE(result->assignment->output_slices().empty());
  EXPECT_FALSE(result->assignment->ToString().empty());
  EXPECT_FALSE(result->schedule.ToString().empty());
  out.module = std::move(*module);
  out.result = std::move(*result);
  return out;
}

TEST(MiddleEnd, SoftmaxIsAtMostTwoKernels) {
  Compiled c = CompileAndCheck(ReadTestdata("softmax.hlo"));
  ASSERT_NE(c.module, nullptr);
  EXPECT_LE(c.result.stats.kernels, 2) << c.result.stats.ToString() << PrintModule(*c.module);
}

TEST(MiddleEnd, LayerNormIsAtMostTwoKernels) {
  Compiled c = CompileAndCheck(ReadTestdata("layer_norm.hlo"));
  ASSERT_NE(c.module, nullptr);
  EXPECT_LE(c.result.stats.kernels, 2) << c.result.stats.ToString() << PrintModule(*c.module);
}

TEST(MiddleEnd, MlpKeepsGemmsOutsideFusions) {
  Compiled c = CompileAndCheck(ReadTestdata("mlp_gelu.hlo"));
  ASSERT_NE(c.module, nullptr);
  EXPECT_GE(c.result.stats.fusions, 1) << c.result.stats.ToString();
  for (const auto& comp : c.module->computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() != HloOpcode::kFusion) continue;
      for (const auto& inner : instr->GetComputation(AttrId::kCalls)->instructions()) {
        EXPECT_NE(inner->opcode(), HloOpcode::kDot) << instr->name();
      }
    }
  }
}

// A dot the GEMM cannot run (s8 x s8 -> s32, batched, odd sizes) becomes one
// reduction kernel that reads the s8 operands: no dot left, no temp buffer
// (neither the b*m*n*k products nor s32 copies of the operands are stored).
TEST(MiddleEnd, IntegerDotIsOneReductionKernelWithoutTemps) {
  Compiled c = CompileAndCheck(R"(
HloModule m
ENTRY e {
  a = s8[3,29,37] parameter(0)
  b = s8[3,37,13] parameter(1)
  ROOT d = s32[3,29,13] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},
      lhs_contracting_dims={2}, rhs_contracting_dims={1}
}
)");
  ASSERT_NE(c.module, nullptr);
  const std::string printed = PrintModule(*c.module);
  EXPECT_EQ(c.result.stats.kernels, 1) << c.result.stats.ToString() << printed;
  EXPECT_EQ(c.result.stats.fusions, 1) << c.result.stats.ToString() << printed;
  EXPECT_EQ(printed.find(" dot("), std::string::npos) << printed;
  EXPECT_NE(printed.find(" reduce("), std::string::npos) << printed;
  EXPECT_EQ(c.result.assignment->total_temp_bytes(), 0) << c.result.assignment->ToString();
}

TEST(MiddleEnd, TimingsNameEveryPhase) {
  Compiled c = CompileAndCheck(ReadTestdata("softmax.hlo"));
  ASSERT_NE(c.module, nullptr);
  const std::string report = c.result.TimingsReport();
  for (const char* step : {"canonicalize/fp8-dot-widener", "canonicalize/dot-canonicalizer",
                           "layout/layout-assignment",
                           "fusion/fusion", "buffers/schedule", "buffers/assign", "buffers/check"}) {
    EXPECT_NE(report.find(step), std::string::npos) << step << "\n" << report;
  }
}

TEST(MiddleEnd, WhileLoopCompilesAndKeepsMeaning) {
  CompileAndCheck(R"(
HloModule loop

cond {
  s = (s32[], f32[9,5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(7)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[9,5]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[9,5] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  half = f32[] constant(0.5)
  hb = f32[9,5] broadcast(half), dimensions={}
  y = f32[9,5] multiply(x, hb)
  z = f32[9,5] tanh(y)
  ROOT t = (s32[], f32[9,5]) tuple(i2, z)
}

ENTRY e {
  p = f32[9,5] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[9,5]) tuple(zero, p)
  w = (s32[], f32[9,5]) while(init), condition=cond, body=body
  ROOT r = f32[9,5] get-tuple-element(w), index=1
}
)");
}

TEST(MiddleEnd, BadModuleErrorsNamePassOrInstruction) {
  // A dynamic-shaped parameter flows everywhere; whatever the middle end
  // cannot do must come back as an error, never a crash.
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m
ENTRY e {
  p = f32[3,5] parameter(0)
  ROOT c = f32[3,5] custom-call(p), custom_call_target="unknown_target"
}
)");
  ASSERT_TRUE(m.ok()) << m.status();
  absl::StatusOr<MiddleEndResult> r = RunMiddleEnd(m->get(), MiddleEndOptions());
  // Custom calls are opaque: the middle end must pass them through.
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GE(r->stats.own_thunks, 1) << r->stats.ToString();
}

}  // namespace
}  // namespace xla
