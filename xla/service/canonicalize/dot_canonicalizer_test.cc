#include "xla/service/canonicalize/dot_canonicalizer.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/service/canonicalize/gemm_config.h"

namespace xla {
namespace {

using pass_test::CountOpcode;
using pass_test::PassResult;
using pass_test::RunPassAndCheck;

std::string Module(const std::string& params, const std::string& dot) {
  return absl::StrCat("HloModule m\n\nENTRY main {\n", params, "\n  ROOT d = ", dot, "\n}\n");
}

// Runs the pass (checked against the evaluator), checks that a second run
// changes nothing and returns the GEMM config of the module's only dot.
GemmConfig RunAndGetConfig(const std::string& hlo, bool expect_changed,
                           bool keep_cublaslt_fp8 = false) {
  DotCanonicalizer pass(keep_cublaslt_fp8);
  PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_EQ(r.changed, expect_changed) << r.text;
  if (r.module == nullptr) return {};
  absl::StatusOr<bool> again = pass.Run(r.module.get());
  EXPECT_TRUE(again.ok() && !*again) << "second run changed the module";
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kDot), 1);
  for (const auto& comp : r.module->computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() != HloOpcode::kDot) continue;
      absl::StatusOr<GemmConfig> c = GetGemmConfig(*instr);
      EXPECT_TRUE(c.ok()) << c.status() << "\n" << r.text;
      if (c.ok()) return *c;
    }
  }
  return {};
}

void ExpectSizes(const GemmConfig& c, int64_t batch, int64_t m, int64_t n, int64_t k) {
  EXPECT_EQ(c.batch, batch);
  EXPECT_EQ(c.m, m);
  EXPECT_EQ(c.n, n);
  EXPECT_EQ(c.k, k);
}

TEST(DotCanonicalizer, PlainMatmulIsLeftAlone) {
  GemmConfig c = RunAndGetConfig(
      Module("  a = f32[5,7] parameter(0)\n  b = f32[7,3] parameter(1)",
             "f32[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      false);
  ExpectSizes(c, 1, 5, 3, 7);
  EXPECT_FALSE(c.transpose_lhs);
  EXPECT_FALSE(c.transpose_rhs);
}

// The element type of both operands of the module's only dot.
std::vector<PrimitiveType> DotOperandTypes(const HloModule& module) {
  for (const auto& comp : module.computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() != HloOpcode::kDot) continue;
      return {instr->operand(0)->shape().element_type(), instr->operand(1)->shape().element_type()};
    }
  }
  return {};
}

TEST(DotCanonicalizer, NarrowOperandsAreConvertedToTheResultType) {
  // s4 weights with bf16 activations (the corpus' auto_layout modules), and
  // two f8 formats into f32 with transposed operands; odd sizes. The
  // evaluator checks the values (RunPassAndCheck).
  const std::string s4 = Module("  a = bf16[5,7] parameter(0)\n  b = s4[7,3] parameter(1)",
                                "bf16[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  DotCanonicalizer pass;
  PassResult r = RunPassAndCheck(pass, s4);
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(DotOperandTypes(*r.module),
            (std::vector<PrimitiveType>{PrimitiveType::BF16, PrimitiveType::BF16}));
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConvert), 1);
  GemmConfig c = RunAndGetConfig(
      Module("  a = f8e4m3fn[7,5] parameter(0)\n  b = f8e5m2[3,7] parameter(1)",
             "f32[5,3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}"),
      true);
  ExpectSizes(c, 1, 5, 3, 7);
}

TEST(DotCanonicalizer, OperandsThatDoNotConvertExactlyAreLeftAlone) {
  // s16 does not fit bf16's 8-bit significand; f32 into a bf16 result would
  // round before the products. Both dots stay as they are (the emitter
  // refuses them by name).
  for (const char* types : {"s16", "f32"}) {
    DotCanonicalizer pass;
    PassResult r = RunPassAndCheck(
        pass, Module(absl::StrCat("  a = ", types, "[5,7] parameter(0)\n  b = ", types,
                                  "[7,3] parameter(1)"),
                     "bf16[5,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
    ASSERT_NE(r.module, nullptr) << types;
    EXPECT_FALSE(r.changed) << types;
    EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConvert), 0) << types;
  }
}

TEST(DotCanonicalizer, TransposedOperandsBecomeFlags) {
  GemmConfig c = RunAndGetConfig(
      Module("  a = f32[7,5] parameter(0)\n  b = f32[3,7] parameter(1)",
             "f32[5,3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}"),
      false);
  ExpectSizes(c, 1, 5, 3, 7);
  EXPECT_TRUE(c.transpose_lhs);
  EXPECT_TRUE(c.transpose_rhs);
}

TEST(DotCanonicalizer, SeveralLeadingBatchDimsMergeByReshape) {
  DotCanonicalizer pass;
  PassResult r = RunPassAndCheck(
      pass, Module("  a = f32[2,3,5,7] parameter(0)\n  b = f32[2,3,7,4] parameter(1)",
                   "f32[2,3,5,4] dot(a, b), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
                   "rhs_batch_dims={0,1}, rhs_contracting_dims={2}"));
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kTranspose), 0) << r.text;
  GemmConfig c = RunAndGetConfig(
      Module("  a = f32[2,3,5,7] parameter(0)\n  b = f32[2,3,7,4] parameter(1)",
             "f32[2,3,5,4] dot(a, b), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
             "rhs_batch_dims={0,1}, rhs_contracting_dims={2}"),
      true);
  ExpectSizes(c, 6, 5, 4, 7);
  EXPECT_EQ(c.lhs_batch_stride, 35);
  EXPECT_EQ(c.rhs_batch_stride, 28);
  EXPECT_EQ(c.output_batch_stride, 20);
}

TEST(DotCanonicalizer, SeveralContractingAndFreeDims) {
  GemmConfig c = RunAndGetConfig(
      Module("  a = f32[5,2,3,7] parameter(0)\n  b = f32[3,7,4,3] parameter(1)",
             "f32[5,2,4,3] dot(a, b), lhs_contracting_dims={2,3}, rhs_contracting_dims={0,1}"),
      true);
  ExpectSizes(c, 1, 10, 12, 21);
}

TEST(DotCanonicalizer, ContractingDimsInDifferentOrderNeedATranspose) {
  DotCanonicalizer pass;
  PassResult r = RunPassAndCheck(
      pass, Module("  a = f32[3,5,7] parameter(0)\n  b = f32[7,3,4] parameter(1)",
                   "f32[5,4] dot(a, b), lhs_contracting_dims={0,2}, rhs_contracting_dims={1,0}"));
  ASSERT_NE(r.module, nullptr);
  EXPECT_GE(CountOpcode(*r.module, HloOpcode::kTranspose), 1) << r.text;
}

TEST(DotCanonicalizer, BatchDimNotLeadingIsTransposed) {
  GemmConfig c = RunAndGetConfig(
      Module("  a = f32[5,3,7] parameter(0)\n  b = f32[7,3,4] parameter(1)",
             "f32[3,5,4] dot(a, b), lhs_batch_dims={1}, lhs_contracting_dims={2}, "
             "rhs_batch_dims={1}, rhs_contracting_dims={0}"),
      true);
  ExpectSizes(c, 3, 5, 4, 7);
}

// A decode step's keys: the cache [b, t, h, d] read as [b, h] batches of
// [t, d] (contracting d, the minor dim). Both forms need a transpose; the
// chosen one keeps d last ([b, h, t, d], runs of d elements copied, the GEMM
// transposing its rhs) rather than [b, h, d, t]. The values, contracting t,
// keep d last too, as [b, h, t, d] without a flag.
TEST(DotCanonicalizer, BothFormsTransposedKeepsTheMinorDimLast) {
  const std::string params =
      "  q = f32[2,3,1,8] parameter(0)\n  kv = f32[2,5,3,8] parameter(1)\n"
      "  p = f32[2,3,1,5] parameter(2)";
  GemmConfig keys = RunAndGetConfig(
      Module(params, "f32[2,3,1,5] dot(q, kv), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
                     "rhs_batch_dims={0,2}, rhs_contracting_dims={3}"),
      true);
  ExpectSizes(keys, 6, 1, 5, 8);
  EXPECT_TRUE(keys.transpose_rhs);
  GemmConfig values = RunAndGetConfig(
      Module(params, "f32[2,3,1,8] dot(p, kv), lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
                     "rhs_batch_dims={0,2}, rhs_contracting_dims={1}"),
      true);
  ExpectSizes(values, 6, 1, 8, 5);
  EXPECT_FALSE(values.transpose_rhs);
  // The transpose's permutation: the minor dim (3) stays last in both.
  DotCanonicalizer pass;
  PassResult r = RunPassAndCheck(
      pass, Module(params, "f32[2,3,1,5] dot(q, kv), lhs_batch_dims={0,1}, "
                           "lhs_contracting_dims={3}, rhs_batch_dims={0,2}, "
                           "rhs_contracting_dims={3}"));
  ASSERT_NE(r.module, nullptr);
  EXPECT_NE(r.text.find("dimensions={0,2,1,3}"), std::string::npos) << r.text;
}

TEST(DotCanonicalizer, BatchedTransposedLhsKeepsItsFlag) {
  GemmConfig c = RunAndGetConfig(
      Module("  a = f32[3,7,5] parameter(0)\n  b = f32[3,4,7] parameter(1)",
             "f32[3,5,4] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={1}, "
             "rhs_batch_dims={0}, rhs_contracting_dims={2}"),
      false);
  ExpectSizes(c, 3, 5, 4, 7);
  EXPECT_TRUE(c.transpose_lhs);
  EXPECT_TRUE(c.transpose_rhs);
}

TEST(DotCanonicalizer, MatrixVector) {
  GemmConfig c = RunAndGetConfig(
      Module("  a = f32[5,7] parameter(0)\n  b = f32[7] parameter(1)",
             "f32[5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
      true);
  ExpectSizes(c, 1, 5, 1, 7);
}

TEST(DotCanonicalizer, VectorMatrix) {
  GemmConfig c = RunAndGetConfig(
      Module("  a = f32[7] parameter(0)\n  b = f32[7,3] parameter(1)",
             "f32[3] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
      true);
  ExpectSizes(c, 1, 1, 3, 7);
}

TEST(DotCanonicalizer, VectorVector) {
  GemmConfig c = RunAndGetConfig(
      Module("  a = f32[33] parameter(0)\n  b = f32[33] parameter(1)",
             "f32[] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
      true);
  ExpectSizes(c, 1, 1, 1, 33);
}

TEST(DotCanonicalizer, OuterProductGetsUnitContractingDim) {
  GemmConfig c = RunAndGetConfig(
      Module("  a = f32[5] parameter(0)\n  b = f32[3] parameter(1)", "f32[5,3] dot(a, b)"), true);
  ExpectSizes(c, 1, 5, 3, 1);
}

TEST(DotCanonicalizer, IntegerBatchedMatrixVector) {
  GemmConfig c = RunAndGetConfig(
      Module("  a = s32[3,5,7] parameter(0)\n  b = s32[3,7] parameter(1)",
             "s32[3,5] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, "
             "rhs_batch_dims={0}, rhs_contracting_dims={1}"),
      true);
  ExpectSizes(c, 3, 5, 1, 7);
  EXPECT_EQ(c.output_type, PrimitiveType::S32);
}

TEST(DotCanonicalizer, DotsInsideFusionsAreRewritten) {
  DotCanonicalizer pass;
  PassResult r = RunPassAndCheck(pass, R"(
HloModule m

fused {
  p0 = f32[2,5,3,7] parameter(0)
  p1 = f32[7,3,4] parameter(1)
  ROOT d = f32[2,5,4] dot(p0, p1), lhs_contracting_dims={3,2}, rhs_contracting_dims={0,1}
}

ENTRY main {
  a = f32[2,5,3,7] parameter(0)
  b = f32[7,3,4] parameter(1)
  ROOT f = f32[2,5,4] fusion(a, b), kind=kOutput, calls=fused
}
)");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  for (const auto& comp : r.module->computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() == HloOpcode::kDot) {
        EXPECT_TRUE(GetGemmConfig(*instr).ok()) << r.text;
      }
    }
  }
}

// --fp8_gemm=cublaslt: fp8 dots cuBLASLt runs keep their types and get the
// TN form (lhs [m,k], rhs [n,k]) whichever way the operands were stored.
TEST(DotCanonicalizer, KeptFp8DotsGetCublasLtsTnForm) {
  struct Case {
    const char* params;
    const char* dot;
    bool changed;
  };
  const Case cases[] = {
      // Already TN: left alone.
      {"  a = f8e4m3fn[16,32] parameter(0)\n  b = f8e4m3fn[48,32] parameter(1)",
       "bf16[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={1}", false},
      // rhs [k,n]: transposed to [n,k].
      {"  a = f8e4m3fn[16,32] parameter(0)\n  b = f8e5m2[32,48] parameter(1)",
       "bf16[16,48] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}", true},
      // lhs [k,m] and rhs [k,n], batched, f32 result.
      {"  a = f8e5m2[3,32,16] parameter(0)\n  b = f8e4m3fn[3,32,48] parameter(1)",
       "f32[3,16,48] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, "
       "lhs_contracting_dims={1}, rhs_contracting_dims={1}", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dot);
    const GemmConfig config =
        RunAndGetConfig(Module(c.params, c.dot), c.changed, /*keep_cublaslt_fp8=*/true);
    EXPECT_TRUE(IsCublasLtFp8Gemm(config));
    EXPECT_FALSE(config.transpose_lhs);
    EXPECT_TRUE(config.transpose_rhs);
    EXPECT_EQ(config.m, 16);
    EXPECT_EQ(config.n, 48);
    EXPECT_EQ(config.k, 32);
  }
  // Without the option the same dot is widened to the result type.
  const GemmConfig widened = RunAndGetConfig(
      Module(cases[1].params, cases[1].dot), true, /*keep_cublaslt_fp8=*/false);
  EXPECT_EQ(widened.lhs_type, PrimitiveType::BF16);
  EXPECT_FALSE(IsCublasLtFp8Gemm(widened));
}

}  // namespace
}  // namespace xla
