#include "xla/service/canonicalize/fp8_gemm_scale_folder.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/proto/gemm_custom_call.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/service/canonicalize/dot_canonicalizer.h"
#include "xla/service/canonicalize/fp8_dot_widener.h"
#include "xla/service/canonicalize/gemm_config.h"
#include "xla/service/hlo_pass_pipeline.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;
using pass_test::Lacks;
using Stage = Fp8GemmScaleFolder::Stage;

// Signed values near the limits of f8e4m3fn (448) and f8e5m2 (57344), and
// small ones, in every fp8 input; scales that are not powers of two (so a
// lost or doubled scale changes the result).
void NearFp8Limits(std::vector<Literal>* inputs) {
  static constexpr double kE4m3[] = {448, -416, 0.001953125, -0.013671875, 1.125, -240,
                                     3.5, 0.0625, -18, 96, -0.5, 2.75, 13};
  static constexpr double kE5m2[] = {57344, -0.25, 0.0000152587890625, -3, 0.75, 10240,
                                     -1.25, 0.375, 6, -28, 2, -0.09375};
  int salt = 0;
  for (Literal& l : *inputs) {
    const PrimitiveType t = l.shape().element_type();
    ++salt;
    for (int64_t i = 0; i < l.element_count(); ++i) {
      const int64_t j = i * 7 + salt;
      if (t == PrimitiveType::F8E4M3FN) l.SetDouble(i, kE4m3[j % 13]);
      if (t == PrimitiveType::F8E5M2) l.SetDouble(i, kE5m2[j % 12]);
    }
    if (l.shape().rank() == 0) l.SetDouble(0, salt % 2 ? 0.3671875 : 3.125);
  }
}

pass_test::CheckOptions NearLimits() {
  pass_test::CheckOptions options;
  options.adjust_inputs = NearFp8Limits;
  options.output_scale_tolerance = true;  // the fold rounds once where the input rounds twice
  return options;
}

// The FP8 GEMM calls of `module`, each checked to be one the thunk emitter
// takes (IsScaledFp8GemmCall, TN form).
int64_t CountScaledGemms(const HloModule& module) {
  int64_t n = 0;
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->instructions()) {
      if (!IsScaledFp8GemmCall(*instr)) continue;
      absl::StatusOr<GemmConfig> config = GetGemmConfig(*instr, /*require_row_major=*/false);
      EXPECT_TRUE(config.ok()) << config.status();
      if (config.ok()) {
        EXPECT_TRUE(IsCublasLtFp8Gemm(*config)) << instr->name();
      }
      ++n;
    }
  }
  return n;
}

// The Llama 3.1 fp8 spelling after dot-canonicalizer: a bf16 dot of fp8
// values, a reshape, one bf16 multiply by a broadcast bf16 scalar.
TEST(Fp8GemmScaleFolder, ResultScaleThroughAReshapeBecomesTheLhsScale) {
  Fp8GemmScaleFolder pass(Stage::kFoldIntoGemm);
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e5m2[48,32] parameter(1)
  s = bf16[] parameter(2)
  d = bf16[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  r = bf16[2,8,48] reshape(d)
  sb = bf16[2,8,48] broadcast(s), dimensions={}
  ROOT m = bf16[2,8,48] multiply(sb, r)
})",
                                                       NearLimits());
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountScaledGemms(*r.module), 1) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kDot), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kMultiply), 0) << r.text;
  EXPECT_TRUE(Contains(r.text, "custom-call(a, b, "));
  EXPECT_TRUE(Contains(r.text, "f32[] convert(s)"));
  EXPECT_EQ(r.module->entry_computation()->root_instruction()->opcode(), HloOpcode::kReshape);
}

// Two scales (one a division) on an f32 dot, then a convert to bf16: both
// become scale pointers and the GEMM writes bf16; batched.
TEST(Fp8GemmScaleFolder, TwoScalesAndTheConvertFoldIntoABatchedGemm) {
  Fp8GemmScaleFolder pass(Stage::kFoldIntoGemm);
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f8e4m3fn[3,16,32] parameter(0)
  b = f8e4m3fn[3,48,32] parameter(1)
  sa = f32[] parameter(2)
  sb = f32[] parameter(3)
  d = f32[3,16,48] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={2}
  t = f32[3,48,16] transpose(d), dimensions={0,2,1}
  ba = f32[3,48,16] broadcast(sa), dimensions={}
  m1 = f32[3,48,16] multiply(t, ba)
  bb = f32[3,48,16] broadcast(sb), dimensions={}
  m2 = f32[3,48,16] divide(m1, bb)
  ROOT c = bf16[3,48,16] convert(m2)
})",
                                                       NearLimits());
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountScaledGemms(*r.module), 1) << r.text;
  const HloInstruction* root = r.module->entry_computation()->root_instruction();
  ASSERT_EQ(root->opcode(), HloOpcode::kTranspose) << r.text;
  EXPECT_EQ(root->shape().element_type(), PrimitiveType::BF16);
  EXPECT_TRUE(IsScaledFp8GemmCall(*root->operand(0))) << r.text;
  EXPECT_EQ(root->operand(0)->shape().element_type(), PrimitiveType::BF16);
  EXPECT_TRUE(Contains(r.text, "f32[] divide("));  // 1 / sb
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConvert), 0) << r.text;
}

// XLA's dequantizing spelling, through the middle end's order: operand
// scales are hoisted, the fp8 dot is kept and put into TN form (rhs stored
// [k, n] here), and the scales fold into the GEMM.
TEST(Fp8GemmScaleFolder, OperandScalesThroughTheCanonicalizationPasses) {
  HloPassPipeline pipeline("fp8");
  pipeline.AddPass<Fp8GemmScaleFolder>(Stage::kHoistOperandScales);
  pipeline.AddPass<Fp8DotWidener>(/*keep_cublaslt_fp8=*/true);
  pipeline.AddPass<DotCanonicalizer>(/*keep_cublaslt_fp8=*/true);
  pipeline.AddPass<Fp8GemmScaleFolder>(Stage::kFoldIntoGemm);
  pass_test::PassResult r = pass_test::RunPassAndCheck(pipeline, R"(
HloModule m
ENTRY e {
  x = f8e4m3fn[16,32] parameter(0)
  w = f8e5m2[32,48] parameter(1)
  sx = bf16[] parameter(2)
  sw = f32[] parameter(3)
  cx = bf16[16,32] convert(x)
  bx = bf16[16,32] broadcast(sx), dimensions={}
  dx = bf16[16,32] multiply(cx, bx)
  cw = bf16[32,48] convert(w)
  sw16 = bf16[] convert(sw)
  bw = bf16[32,48] broadcast(sw16), dimensions={}
  dw = bf16[32,48] divide(cw, bw)
  ROOT d = bf16[16,48] dot(dx, dw), lhs_contracting_dims={1}, rhs_contracting_dims={0}
})",
                                                       NearLimits());
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountScaledGemms(*r.module), 1) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kDot), 0) << r.text;
  const HloInstruction* root = r.module->entry_computation()->root_instruction();
  ASSERT_TRUE(IsScaledFp8GemmCall(*root)) << r.text;
  EXPECT_EQ(root->shape().element_type(), PrimitiveType::BF16);
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kParameter);  // x as it is
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kTranspose);  // w stored [k, n]
}

// Unscaled converts of fp8 values: the dot becomes an fp8 dot (no scales to
// fold, so the fold stage leaves the f32 dot and the convert).
TEST(Fp8GemmScaleFolder, UnscaledConvertsBecomeAnFp8Dot) {
  Fp8GemmScaleFolder pass(Stage::kHoistOperandScales);
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  x = f8e4m3fn[16,32] parameter(0)
  w = f8e4m3fn[48,32] parameter(1)
  cx = f16[16,32] convert(x)
  cw = f16[48,32] convert(w)
  ROOT d = f16[16,48] dot(cx, cw), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
                                                       NearLimits());
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Contains(r.text, "dot(x, w)"));
  EXPECT_TRUE(Lacks(r.text, "multiply"));
}

// What the passes leave alone: sizes cuBLASLt refuses (m = 17, k = 24),
// a per-row scale, a dot result with a second user, e5m2 x
// e5m2, and a dot with no scale after it.
TEST(Fp8GemmScaleFolder, LeavesAloneWhatCannotFold) {
  const char* kFold[] = {
      R"(HloModule m
ENTRY e {
  a = f8e4m3fn[17,32] parameter(0)
  b = f8e4m3fn[48,32] parameter(1)
  s = f32[] parameter(2)
  d = f32[17,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  m_b = f32[17,48] broadcast(s), dimensions={}
  ROOT m = f32[17,48] multiply(d, m_b)
})",
      R"(HloModule m
ENTRY e {
  a = f8e4m3fn[16,24] parameter(0)
  b = f8e4m3fn[48,24] parameter(1)
  s = f32[] parameter(2)
  d = f32[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  m_b = f32[16,48] broadcast(s), dimensions={}
  ROOT m = f32[16,48] multiply(d, m_b)
})",
      R"(HloModule m
ENTRY e {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[48,32] parameter(1)
  s = f32[16] parameter(2)
  d = f32[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  m_b = f32[16,48] broadcast(s), dimensions={0}
  ROOT m = f32[16,48] multiply(d, m_b)
})",
      R"(HloModule m
ENTRY e {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[48,32] parameter(1)
  s = f32[] parameter(2)
  d = f32[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  m_b = f32[16,48] broadcast(s), dimensions={}
  m = f32[16,48] multiply(d, m_b)
  ROOT t = (f32[16,48], f32[16,48]) tuple(m, d)
})",
      R"(HloModule m
ENTRY e {
  a = f8e5m2[16,32] parameter(0)
  b = f8e5m2[48,32] parameter(1)
  s = f32[] parameter(2)
  d = f32[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  m_b = f32[16,48] broadcast(s), dimensions={}
  ROOT m = f32[16,48] multiply(d, m_b)
})",
      R"(HloModule m
ENTRY e {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[48,32] parameter(1)
  ROOT d = bf16[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
  };
  for (const char* hlo : kFold) {
    SCOPED_TRACE(hlo);
    Fp8GemmScaleFolder pass(Stage::kFoldIntoGemm);
    pass_test::PassResult r = pass_test::RunPassAndCheck(pass, hlo, NearLimits());
    EXPECT_FALSE(r.changed) << r.text;
  }
}

TEST(Fp8GemmScaleFolder, HoistLeavesAloneWhatCannotFold) {
  const char* kHoist[] = {
      // n = 40: not a multiple of 16.
      R"(HloModule m
ENTRY e {
  x = f8e4m3fn[16,32] parameter(0)
  w = f8e4m3fn[40,32] parameter(1)
  s = bf16[] parameter(2)
  cx = bf16[16,32] convert(x)
  dx_b = bf16[16,32] broadcast(s), dimensions={}
  dx = bf16[16,32] multiply(cx, dx_b)
  cw = bf16[40,32] convert(w)
  ROOT d = bf16[16,40] dot(dx, cw), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
      // A per-column scale on the lhs.
      R"(HloModule m
ENTRY e {
  x = f8e4m3fn[16,32] parameter(0)
  w = f8e4m3fn[48,32] parameter(1)
  s = bf16[32] parameter(2)
  cx = bf16[16,32] convert(x)
  dx_b = bf16[16,32] broadcast(s), dimensions={1}
  dx = bf16[16,32] multiply(cx, dx_b)
  cw = bf16[48,32] convert(w)
  ROOT d = bf16[16,48] dot(dx, cw), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
      // A scale divided by the values, not the values by the scale.
      R"(HloModule m
ENTRY e {
  x = f8e4m3fn[16,32] parameter(0)
  w = f8e4m3fn[48,32] parameter(1)
  s = bf16[] parameter(2)
  cx = bf16[16,32] convert(x)
  bs = bf16[16,32] broadcast(s), dimensions={}
  dx = bf16[16,32] divide(bs, cx)
  cw = bf16[48,32] convert(w)
  ROOT d = bf16[16,48] dot(dx, cw), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
      // One operand is not an fp8 value.
      R"(HloModule m
ENTRY e {
  x = f8e4m3fn[16,32] parameter(0)
  w = bf16[48,32] parameter(1)
  cx = bf16[16,32] convert(x)
  ROOT d = bf16[16,48] dot(cx, w), lhs_contracting_dims={1}, rhs_contracting_dims={1}
})",
  };
  for (const char* hlo : kHoist) {
    SCOPED_TRACE(hlo);
    Fp8GemmScaleFolder pass(Stage::kHoistOperandScales);
    pass_test::PassResult r = pass_test::RunPassAndCheck(pass, hlo, NearLimits());
    EXPECT_FALSE(r.changed) << r.text;
  }
}

// The call's scale operands are the multiplication's f32 scalar itself and
// a constant 1 (the evaluator comparison above already fails when a scale is
// lost or applied twice: the scales are not 1).
TEST(Fp8GemmScaleFolder, TheScaleOperandsAreTheScalarAndOne) {
  Fp8GemmScaleFolder pass(Stage::kFoldIntoGemm);
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f8e4m3fn[16,32] parameter(0)
  b = f8e4m3fn[16,32] parameter(1)
  s = f32[] parameter(2)
  d = f32[16,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}
  m_b = f32[16,16] broadcast(s), dimensions={}
  ROOT m = f32[16,16] multiply(d, m_b)
})",
                                                       NearLimits());
  ASSERT_NE(r.module, nullptr);
  const HloInstruction* root = r.module->entry_computation()->root_instruction();
  ASSERT_TRUE(IsScaledFp8GemmCall(*root)) << r.text;
  EXPECT_EQ(root->operand(2)->opcode(), HloOpcode::kParameter);  // s itself, f32
  EXPECT_EQ(root->operand(3)->opcode(), HloOpcode::kConstant);   // 1
  absl::StatusOr<gemm::GemmCall> call = gemm::ReadGemmCustomCall(*root);
  ASSERT_TRUE(call.ok()) << call.status();
  EXPECT_EQ(call->a_scale_operand, 2);
  EXPECT_EQ(call->b_scale_operand, 3);
}

}  // namespace
}  // namespace xla
