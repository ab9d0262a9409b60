#include "xla/service/canonicalize/non_gemm_dot_expander.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/hlo/verifier/hlo_verifier.h"
#include "xla/service/canonicalize/dot_canonicalizer.h"
#include "xla/service/canonicalize/fp8_dot_widener.h"
#include "xla/service/canonicalize/gemm_config.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;
using pass_test::PassResult;
using pass_test::RunPassAndCheck;
using T = PrimitiveType;

std::string Module(const std::string& params, const std::string& dot) {
  return absl::StrCat("HloModule m\n\nENTRY main {\n", params, "\n  ROOT d = ", dot, "\n}\n");
}

// Runs the pass (the evaluator compares before and after on random inputs),
// requires that it changed the module and left no dot, and that a second
// run changes nothing.
PassResult ExpectExpanded(const std::string& hlo) {
  NonGemmDotExpander pass;
  PassResult r = RunPassAndCheck(pass, hlo);
  EXPECT_TRUE(r.changed) << r.text;
  if (r.module == nullptr) return r;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kDot), 0) << r.text;
  absl::StatusOr<bool> again = pass.Run(r.module.get());
  EXPECT_TRUE(again.ok() && !*again) << "second run changed the module\n" << r.text;
  return r;
}

// Fills an array of `type` and `dims` with value(i) for linear index i.
template <typename F>
Literal Fill(T type, std::vector<int64_t> dims, F value) {
  Literal l(Shape::Array(type, dims));
  const int64_t n = *l.shape().ElementCount();
  for (int64_t i = 0; i < n; ++i) l.SetInt(i, value(i));
  return l;
}

// Evaluates `hlo` on `args`, runs the pass, verifies, evaluates again and
// requires identical results (integers and pred compare exactly).
void ExpectSameOn(const std::string& hlo, std::vector<Literal> args) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(hlo);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<Literal> before = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(before.ok()) << before.status();
  NonGemmDotExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  ASSERT_TRUE(VerifyModule(**module).ok());
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kDot), 0);
  absl::StatusOr<Literal> after = HloEvaluator().Evaluate(**module, args);
  ASSERT_TRUE(after.ok()) << after.status();
  absl::Status same = CompareLiterals(*before, *after);
  EXPECT_TRUE(same.ok()) << same;
}

TEST(NonGemmDotExpander, ComputeTypeTable) {
  // Integer results compute in the result type, from any integer or pred.
  EXPECT_EQ(NonGemmDotComputeType(T::S8, T::S8, T::S32), T::S32);
  EXPECT_EQ(NonGemmDotComputeType(T::U8, T::S8, T::S32), T::S32);
  EXPECT_EQ(NonGemmDotComputeType(T::S64, T::S64, T::S64), T::S64);
  EXPECT_EQ(NonGemmDotComputeType(T::PRED, T::S32, T::S32), T::S32);
  // pred x pred -> pred is or-of-ands; other operands into pred are not.
  EXPECT_EQ(NonGemmDotComputeType(T::PRED, T::PRED, T::PRED), T::PRED);
  EXPECT_EQ(NonGemmDotComputeType(T::S32, T::U8, T::PRED), T::S64);
  EXPECT_EQ(NonGemmDotComputeType(T::F32, T::F32, T::PRED), T::TUPLE);
  // Float results compute in f64, as the evaluator does.
  EXPECT_EQ(NonGemmDotComputeType(T::S32, T::S32, T::F32), T::F64);
  EXPECT_EQ(NonGemmDotComputeType(T::F32, T::F32, T::F16), T::F64);
  EXPECT_EQ(NonGemmDotComputeType(T::S64, T::U64, T::F32), T::F64);
  // Float operands into an integer result, and complex: left alone.
  EXPECT_EQ(NonGemmDotComputeType(T::F32, T::F32, T::S32), T::TUPLE);
  EXPECT_EQ(NonGemmDotComputeType(T::C64, T::C64, T::C64), T::TUPLE);
}

// For every operand/result type triple (and both fp8 modes): after
// fp8-dot-widener, this pass and dot-canonicalizer, a dot is left only when
// the GEMM thunk's type rule takes it (the check in EmitGemm), or when this
// pass documents that it leaves it (NonGemmDotComputeType is TUPLE).
TEST(NonGemmDotExpander, NeverDisagreesWithTheGemmThunk) {
  const T types[] = {T::PRED, T::S8,  T::U8,  T::S16, T::S32,       T::S64,     T::U64,
                     T::F16,  T::BF16, T::F32, T::F64, T::F8E4M3FN, T::F8E5M2, T::C64};
  int expanded = 0, gemm = 0, refused = 0;
  for (bool keep : {false, true}) {
    for (T l : types) {
      for (T r : types) {
        for (T out : types) {
          const std::string hlo = Module(
              absl::StrCat("  a = ", PrimitiveTypeName(l), "[16,32] parameter(0)\n  b = ",
                           PrimitiveTypeName(r), "[32,48] parameter(1)"),
              absl::StrCat(PrimitiveTypeName(out),
                           "[16,48] dot(a, b), lhs_contracting_dims={1}, "
                           "rhs_contracting_dims={0}"));
          absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(hlo);
          ASSERT_TRUE(m.ok()) << m.status();
          ASSERT_TRUE(Fp8DotWidener(keep).Run(m->get()).ok());
          absl::StatusOr<bool> changed = NonGemmDotExpander(keep).Run(m->get());
          ASSERT_TRUE(changed.ok()) << changed.status();
          ASSERT_TRUE(DotCanonicalizer(keep).Run(m->get()).ok());
          const std::string what = absl::StrCat(PrimitiveTypeName(l), " x ", PrimitiveTypeName(r),
                                                " -> ", PrimitiveTypeName(out), " keep=", keep);
          if (*changed) {
            ++expanded;
            EXPECT_EQ(CountOpcode(**m, HloOpcode::kDot), 0) << what;
            continue;
          }
          for (const auto& comp : (*m)->computations()) {
            for (const auto& instr : comp->instructions()) {
              if (instr->opcode() != HloOpcode::kDot) continue;
              absl::StatusOr<GemmConfig> c = GetGemmConfig(*instr, /*require_row_major=*/false);
              ASSERT_TRUE(c.ok()) << what << ": " << c.status();
              const bool thunk_takes =
                  IsCublasLtFp8Gemm(*c) ||
                  (c->lhs_type == c->output_type && c->rhs_type == c->output_type &&
                   IsGemmElementType(c->output_type));
              if (thunk_takes) {
                ++gemm;
              } else {
                ++refused;
                EXPECT_EQ(NonGemmDotComputeType(l, r, out), T::TUPLE) << what;
              }
            }
          }
        }
      }
    }
  }
  // Sanity: each outcome happens.
  EXPECT_GT(expanded, 0);
  EXPECT_GT(gemm, 0);
  EXPECT_GT(refused, 0);
  std::printf("expanded %d, GEMM %d, refused %d\n", expanded, gemm, refused);
}

TEST(NonGemmDotExpander, GemmDotsAreLeftAlone) {
  const char* kept[] = {
      "f32[3,5] parameter(0)", "bf16[3,5] parameter(0)", "s8[3,5] parameter(0)",
  };
  for (const char* lhs : kept) {
    // f32 and bf16 run as they are; s8 -> f32 converts exactly
    // (dot-canonicalizer widens it).
    const std::string hlo = Module(
        absl::StrCat("  a = ", lhs, "\n  b = f32[5,7] parameter(1)"),
        "f32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    NonGemmDotExpander pass;
    PassResult r = RunPassAndCheck(pass, hlo);
    EXPECT_FALSE(r.changed) << r.text;
  }
  // fp8 operands are fp8-dot-widener's.
  NonGemmDotExpander pass;
  PassResult r = RunPassAndCheck(
      pass, Module("  a = f8e4m3fn[3,5] parameter(0)\n  b = f8e4m3fn[5,7] parameter(1)",
                   "f8e4m3fn[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
  EXPECT_FALSE(r.changed) << r.text;
}

TEST(NonGemmDotExpander, S32MatmulBecomesMultiplyAndReduce) {
  PassResult r = ExpectExpanded(
      Module("  a = s32[3,5] parameter(0)\n  b = s32[5,7] parameter(1)",
             "s32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kReduce), 1);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kMultiply), 1);
  EXPECT_TRUE(Contains(r.text, "s32[3,7,5]{2,1,0} multiply"));
  EXPECT_TRUE(Contains(r.text, "s32[3,7] reduce"));
}

TEST(NonGemmDotExpander, BatchDimsAndSeveralContractingDims) {
  // lhs [k1=3, b=2, m=5, k2=4], rhs [n=7, k2=4, b=2, k1=3].
  ExpectExpanded(Module(
      "  a = s32[3,2,5,4] parameter(0)\n  b = s32[7,4,2,3] parameter(1)",
      "s32[2,5,7] dot(a, b), lhs_batch_dims={1}, rhs_batch_dims={2}, "
      "lhs_contracting_dims={0,3}, rhs_contracting_dims={3,1}"));
  // Two batch dims, matrix-vector, an outer product (no contracting dim).
  ExpectExpanded(Module("  a = u8[3,2,5,9] parameter(0)\n  b = u8[3,2,9] parameter(1)",
                        "u8[3,2,5] dot(a, b), lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, "
                        "lhs_contracting_dims={3}, rhs_contracting_dims={2}"));
  ExpectExpanded(Module("  a = s64[5] parameter(0)\n  b = s64[7] parameter(1)",
                        "s64[5,7] dot(a, b)"));
}

TEST(NonGemmDotExpander, S8TimesS8IntoS32NearTheLimits) {
  // Values -128..127 with many near +-127: products up to 16384, sums over
  // k=37 stay exact in s32.
  const std::string hlo =
      Module("  a = s8[3,37] parameter(0)\n  b = s8[37,7] parameter(1)",
             "s32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
  std::vector<Literal> args;
  args.push_back(Fill(T::S8, {3, 37}, [](int64_t i) { return i % 3 == 0 ? -128 : 127 - i % 5; }));
  args.push_back(Fill(T::S8, {37, 7}, [](int64_t i) { return i % 4 == 0 ? 127 : -127 + i % 3; }));
  ExpectSameOn(hlo, std::move(args));
  // The operands are broadcast in s8 and converted at the product shape, so
  // fusion keeps the converts in the reduction kernel.
  PassResult r = ExpectExpanded(hlo);
  EXPECT_TRUE(Contains(r.text, "s8[3,7,37]{2,1,0} broadcast(a)"));
  EXPECT_TRUE(Contains(r.text, "s32[3,7,37]{2,1,0} convert(broadcast)"));
  // Mixed signedness: u8 x s8 -> s32.
  std::vector<Literal> mixed;
  mixed.push_back(Fill(T::U8, {3, 37}, [](int64_t i) { return 255 - i % 7; }));
  mixed.push_back(Fill(T::S8, {37, 7}, [](int64_t i) { return i % 2 == 0 ? -128 : 126; }));
  ExpectSameOn(Module("  a = u8[3,37] parameter(0)\n  b = s8[37,7] parameter(1)",
                      "s32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               std::move(mixed));
}

TEST(NonGemmDotExpander, IntegerOverflowWrapsInTheResultType) {
  // s32: 2e9 * 3 and sums of such products wrap modulo 2^32.
  std::vector<Literal> s32;
  s32.push_back(Fill(T::S32, {3, 5}, [](int64_t i) { return 2000000000 - 77777 * i; }));
  s32.push_back(Fill(T::S32, {5, 7}, [](int64_t i) { return i % 2 == 0 ? 3 + i : -1999999999; }));
  ExpectSameOn(Module("  a = s32[3,5] parameter(0)\n  b = s32[5,7] parameter(1)",
                      "s32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               std::move(s32));
  // s8 x s8 -> s8 and u8 wrap modulo 2^8; s64 modulo 2^64.
  std::vector<Literal> s8;
  s8.push_back(Fill(T::S8, {3, 5}, [](int64_t i) { return 120 - i; }));
  s8.push_back(Fill(T::S8, {5, 7}, [](int64_t i) { return -100 + 3 * i; }));
  ExpectSameOn(Module("  a = s8[3,5] parameter(0)\n  b = s8[5,7] parameter(1)",
                      "s8[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               std::move(s8));
  std::vector<Literal> u8;
  u8.push_back(Fill(T::U8, {3, 5}, [](int64_t i) { return 250 - i; }));
  u8.push_back(Fill(T::U8, {5, 7}, [](int64_t i) { return 200 + i; }));
  ExpectSameOn(Module("  a = u8[3,5] parameter(0)\n  b = u8[5,7] parameter(1)",
                      "u8[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               std::move(u8));
  std::vector<Literal> s64;
  s64.push_back(Fill(T::S64, {3, 5}, [](int64_t i) { return INT64_C(4611686018427387904) - i; }));
  s64.push_back(Fill(T::S64, {5, 7}, [](int64_t i) { return INT64_C(-3) * (i + 1); }));
  ExpectSameOn(Module("  a = s64[3,5] parameter(0)\n  b = s64[5,7] parameter(1)",
                      "s64[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               std::move(s64));
  // s32 operands into an s16 result wrap after the conversion.
  std::vector<Literal> s16;
  s16.push_back(Fill(T::S32, {3, 5}, [](int64_t i) { return 70000 + 1000 * i; }));
  s16.push_back(Fill(T::S32, {5, 7}, [](int64_t i) { return -33000 + 17 * i; }));
  ExpectSameOn(Module("  a = s32[3,5] parameter(0)\n  b = s32[5,7] parameter(1)",
                      "s16[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               std::move(s16));
}

TEST(NonGemmDotExpander, PredDotIsOrOfAnds) {
  const std::string hlo =
      Module("  a = pred[2,3,5] parameter(0)\n  b = pred[2,5,7] parameter(1)",
             "pred[2,3,7] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, "
             "lhs_contracting_dims={2}, rhs_contracting_dims={1}");
  std::vector<Literal> args;
  // Sparse trues, so that some results are false.
  args.push_back(Fill(T::PRED, {2, 3, 5}, [](int64_t i) { return (i * 7) % 5 == 1 ? 1 : 0; }));
  args.push_back(Fill(T::PRED, {2, 5, 7}, [](int64_t i) { return (i * 3) % 11 == 2 ? 1 : 0; }));
  ExpectSameOn(hlo, std::move(args));
  PassResult r = ExpectExpanded(hlo);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kAnd), 1) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kOr), 1) << r.text;
  // pred x pred -> s32 counts the products.
  ExpectExpanded(Module("  a = pred[3,5] parameter(0)\n  b = pred[5,7] parameter(1)",
                        "s32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
}

TEST(NonGemmDotExpander, IntegerDotIntoPredIsTheSumModulo2To64NotZero) {
  // Rows of +-v cancel for column 0 (all ones) and not for the others.
  std::vector<Literal> s32;
  s32.push_back(Fill(T::S32, {3, 4}, [](int64_t i) { return (i % 2 == 0 ? 1 : -1) * (i / 2 + 3); }));
  s32.push_back(Fill(T::S32, {4, 5}, [](int64_t i) { return i % 5 == 0 ? 1 : i; }));
  ExpectSameOn(Module("  a = s32[3,4] parameter(0)\n  b = s32[4,5] parameter(1)",
                      "pred[3,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               std::move(s32));
  // 2^63 * 2 is 0 modulo 2^64: false although the true product is not 0.
  std::vector<Literal> u64;
  u64.push_back(Fill(T::U64, {3, 2}, [](int64_t i) { return i < 2 ? INT64_MIN : i; }));
  u64.push_back(Fill(T::U64, {2, 3}, [](int64_t i) { return 2 + 2 * (i % 2); }));
  ExpectSameOn(Module("  a = u64[3,2] parameter(0)\n  b = u64[2,3] parameter(1)",
                      "pred[3,3] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               std::move(u64));
}

TEST(NonGemmDotExpander, FloatResultsTheGemmCannotTakeComputeInF64) {
  PassResult r = ExpectExpanded(
      Module("  a = s32[3,5] parameter(0)\n  b = s32[5,7] parameter(1)",
             "f32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(Contains(r.text, "f64[3,7] reduce"));
  // s64 beyond 2^53 rounds to f64 as the evaluator reads it.
  std::vector<Literal> s64;
  s64.push_back(Fill(T::S64, {3, 5}, [](int64_t i) { return INT64_C(9007199254740993) * (i % 3 - 1) + i; }));
  s64.push_back(Fill(T::S64, {5, 7}, [](int64_t i) { return 1000003 * (i % 5) - 2000000; }));
  ExpectSameOn(Module("  a = s64[3,5] parameter(0)\n  b = s64[5,7] parameter(1)",
                      "f32[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
               std::move(s64));
  ExpectExpanded(Module("  a = f32[2,3,5] parameter(0)\n  b = f32[2,5,7] parameter(1)",
                        "f16[2,3,7] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, "
                        "lhs_contracting_dims={2}, rhs_contracting_dims={1}"));
}

TEST(NonGemmDotExpander, UnsupportedDotsAreLeftAlone) {
  NonGemmDotExpander pass;
  // Float operands into pred, and complex: the thunk emitter refuses by name.
  PassResult a = RunPassAndCheck(
      pass, Module("  a = f32[3,5] parameter(0)\n  b = f32[5,7] parameter(1)",
                   "pred[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
  EXPECT_FALSE(a.changed) << a.text;
  PassResult c = RunPassAndCheck(
      pass, Module("  a = c64[3,5] parameter(0)\n  b = c64[5,7] parameter(1)",
                   "c64[3,7] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
  EXPECT_FALSE(c.changed) << c.text;
}

}  // namespace
}  // namespace xla
