#include "xla/service/canonicalize/fp8_dot_widener.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;
using pass_test::PassResult;
using pass_test::RunPassAndCheck;
using T = PrimitiveType;

std::string Module(const std::string& params, const std::string& dot) {
  return absl::StrCat("HloModule m\n\nENTRY main {\n", params, "\n  ROOT d = ", dot, "\n}\n");
}

const HloInstruction* OnlyDot(const HloModule& module) {
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() == HloOpcode::kDot) return instr.get();
    }
  }
  return nullptr;
}

// Runs the pass (the evaluator compares the module before and after), checks
// that a second run changes nothing, and returns the rewritten module.
PassResult RunTwice(const std::string& hlo, bool expect_changed) {
  Fp8DotWidener pass;
  PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_EQ(r.changed, expect_changed) << r.text;
  if (r.module == nullptr) return r;
  absl::StatusOr<bool> again = pass.Run(r.module.get());
  EXPECT_TRUE(again.ok() && !*again) << "second run changed the module\n" << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kDot), 1);
  return r;
}

void ExpectDotTypes(const PassResult& r, T lhs, T rhs, T result) {
  ASSERT_NE(r.module, nullptr);
  const HloInstruction* dot = OnlyDot(*r.module);
  ASSERT_NE(dot, nullptr);
  EXPECT_EQ(dot->operand(0)->shape().element_type(), lhs) << r.text;
  EXPECT_EQ(dot->operand(1)->shape().element_type(), rhs) << r.text;
  EXPECT_EQ(dot->shape().element_type(), result) << r.text;
}

TEST(Fp8DotWidener, ComputeTypeTable) {
  // The result type when both operands fit it and the GEMM takes it ...
  EXPECT_EQ(Fp8DotComputeType(T::F8E4M3FN, T::F8E5M2, T::BF16), T::BF16);
  EXPECT_EQ(Fp8DotComputeType(T::F8E5M2, T::F8E4M3FN, T::F16), T::F16);
  EXPECT_EQ(Fp8DotComputeType(T::F8E4M3FN, T::F8E4M3FN, T::F32), T::F32);
  EXPECT_EQ(Fp8DotComputeType(T::F8E4M3FN, T::BF16, T::BF16), T::BF16);
  // ... f32 otherwise (fp8 results, operands wider than the result) ...
  EXPECT_EQ(Fp8DotComputeType(T::F8E4M3FN, T::F8E4M3FN, T::F8E4M3FN), T::F32);
  EXPECT_EQ(Fp8DotComputeType(T::F8E5M2, T::F8E4M3FN, T::F8E5M2), T::F32);
  EXPECT_EQ(Fp8DotComputeType(T::F32, T::F8E4M3FN, T::BF16), T::F32);
  // ... and no rewrite without an fp8 operand, for integer results, or for
  // operands f32 cannot hold.
  EXPECT_EQ(Fp8DotComputeType(T::BF16, T::BF16, T::BF16), T::TUPLE);
  EXPECT_EQ(Fp8DotComputeType(T::F8E4M3FN, T::F8E4M3FN, T::S32), T::TUPLE);
  EXPECT_EQ(Fp8DotComputeType(T::F64, T::F8E4M3FN, T::F32), T::TUPLE);
}

TEST(Fp8DotWidener, E4m3fnTimesE5m2IntoBf16ConvertsTheOperandsToBf16) {
  PassResult r = RunTwice(
      Module("  a = f8e4m3fn[5,37] parameter(0)\n  b = f8e5m2[37,11] parameter(1)",
             "bf16[5,11] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      true);
  ExpectDotTypes(r, T::BF16, T::BF16, T::BF16);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConvert), 2) << r.text;
}

TEST(Fp8DotWidener, BatchedE5m2TimesE4m3fnIntoF32ConvertsTheOperandsToF32) {
  PassResult r = RunTwice(
      Module("  a = f8e5m2[3,5,37] parameter(0)\n  b = f8e4m3fn[3,11,37] parameter(1)",
             "f32[3,5,11] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, "
             "lhs_contracting_dims={2}, rhs_contracting_dims={2}"),
      true);
  ExpectDotTypes(r, T::F32, T::F32, T::F32);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConvert), 2) << r.text;
}

TEST(Fp8DotWidener, Fp8ResultIsComputedInF32AndRoundedOnce) {
  PassResult r = RunTwice(
      Module("  a = f8e4m3fn[5,7] parameter(0)\n  b = f8e4m3fn[7,3] parameter(1)",
             "f8e4m3fn[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      true);
  ExpectDotTypes(r, T::F32, T::F32, T::F32);
  ASSERT_NE(r.module, nullptr);
  const HloInstruction* root = r.module->entry_computation()->root_instruction();
  EXPECT_EQ(root->opcode(), HloOpcode::kConvert) << r.text;
  EXPECT_EQ(root->shape().element_type(), T::F8E4M3FN) << r.text;
}

TEST(Fp8DotWidener, DotsWithoutFp8OperandsAreLeftAlone) {
  PassResult r = RunTwice(
      Module("  a = bf16[5,7] parameter(0)\n  b = bf16[7,3] parameter(1)",
             "bf16[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      false);
  ExpectDotTypes(r, T::BF16, T::BF16, T::BF16);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConvert), 0);
}

// ---- --fp8_gemm=cublaslt: dots cuBLASLt runs in fp8 stay fp8 ----

PassResult RunKeeping(const std::string& hlo, bool expect_changed) {
  Fp8DotWidener pass(/*keep_cublaslt_fp8=*/true);
  PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_EQ(r.changed, expect_changed) << r.text;
  return r;
}

TEST(Fp8DotWidenerKeepingCublasLtFp8, LeavesEligibleDotsAlone) {
  // m=16, n=48, k=32 (k x m stored: the canonicalizer transposes later).
  PassResult r = RunKeeping(
      Module("  a = f8e4m3fn[32,16] parameter(0)\n  b = f8e5m2[32,48] parameter(1)",
             "bf16[16,48] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
      false);
  ExpectDotTypes(r, T::F8E4M3FN, T::F8E5M2, T::BF16);
  // Batched, f32 result, two contracting dims (k = 4*8).
  r = RunKeeping(
      Module("  a = f8e4m3fn[3,16,4,8] parameter(0)\n  b = f8e4m3fn[3,4,8,32] parameter(1)",
             "f32[3,16,32] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, "
             "lhs_contracting_dims={2,3}, rhs_contracting_dims={1,2}"),
      false);
  ExpectDotTypes(r, T::F8E4M3FN, T::F8E4M3FN, T::F32);
}

TEST(Fp8DotWidenerKeepingCublasLtFp8, WidensWhatCublasLtRefuses) {
  // n = 17 is not a multiple of 16.
  PassResult r = RunKeeping(
      Module("  a = f8e4m3fn[16,32] parameter(0)\n  b = f8e4m3fn[32,17] parameter(1)",
             "bf16[16,17] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      true);
  ExpectDotTypes(r, T::BF16, T::BF16, T::BF16);
  // e5m2 x e5m2.
  r = RunKeeping(
      Module("  a = f8e5m2[16,32] parameter(0)\n  b = f8e5m2[32,16] parameter(1)",
             "f32[16,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      true);
  ExpectDotTypes(r, T::F32, T::F32, T::F32);
  // An fp8 result.
  r = RunKeeping(
      Module("  a = f8e4m3fn[16,32] parameter(0)\n  b = f8e4m3fn[32,16] parameter(1)",
             "f8e4m3fn[16,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      true);
  // Without the option the eligible dot is widened as before.
  Fp8DotWidener widen;
  PassResult w = RunPassAndCheck(
      widen, Module("  a = f8e4m3fn[16,32] parameter(0)\n  b = f8e4m3fn[16,32] parameter(1)",
                    "bf16[16,16] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}"));
  EXPECT_TRUE(w.changed);
  ExpectDotTypes(w, T::BF16, T::BF16, T::BF16);
}

}  // namespace
}  // namespace xla
