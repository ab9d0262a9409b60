#include "xla/hlo/transforms/cholesky_expander.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/evaluator/random_inputs.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/parser/hlo_printer.h"
#include "xla/hlo/transforms/literal_compare.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/hlo/verifier/hlo_verifier.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// A positive-definite batch (x x^T + n I) factored: random inputs always
// give a factor. TYPE, B, N and LOWER are filled in.
constexpr char kPositiveDefinite[] = R"(
HloModule m
ENTRY e {
  x = f32[B,N,N] parameter(0)
  xxt = f32[B,N,N] dot(x, x), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  r = s32[N,N] iota(), iota_dimension=0
  c = s32[N,N] iota(), iota_dimension=1
  eye = pred[N,N] compare(r, c), direction=EQ
  nn = f32[] constant(N)
  zero = f32[] constant(0)
  nb = f32[N,N] broadcast(nn), dimensions={}
  zb = f32[N,N] broadcast(zero), dimensions={}
  diag = f32[N,N] select(eye, nb, zb)
  diagb = f32[B,N,N] broadcast(diag), dimensions={1,2}
  a = f32[B,N,N] add(xxt, diagb)
  at = TYPE[B,N,N] convert(a)
  ROOT l = TYPE[B,N,N] cholesky(at), lower=LOWER
}
)";

std::string PositiveDefinite(const std::string& type, int b, int n, bool lower) {
  return absl::StrReplaceAll(kPositiveDefinite, {{"TYPE", type},
                                                 {"B,N,N", absl::StrCat(b, ",", n, ",", n)},
                                                 {"N,N", absl::StrCat(n, ",", n)},
                                                 {"constant(N)", absl::StrCat("constant(", n, ")")},
                                                 {"LOWER", lower ? "true" : "false"}});
}

// Runs the pass on `text` and compares the evaluator's results before and
// after on random inputs, within the compiled-program tolerance (the
// expansion rounds each step to the compute type; the evaluator's cholesky
// works in f64 throughout).
void ExpectExpansionMatches(const std::string& text, double tolerance_scale = 1.0) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 11);
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<Literal> before = HloEvaluator().Evaluate(**module, *args);
  ASSERT_TRUE(before.ok()) << before.status();
  CholeskyExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kCholesky), 0);
  absl::Status verified = VerifyModule(**module);
  ASSERT_TRUE(verified.ok()) << verified << "\n" << PrintModule(**module);
  absl::StatusOr<Literal> after = HloEvaluator().Evaluate(**module, *args);
  ASSERT_TRUE(after.ok()) << after.status();
  absl::Status same = CompareOutputLeaf(*before, *after, tolerance_scale);
  EXPECT_TRUE(same.ok()) << same << "\n" << text;
}

TEST(CholeskyExpander, LowerF32OddSizes) { ExpectExpansionMatches(PositiveDefinite("f32", 3, 7, true)); }

TEST(CholeskyExpander, UpperF32) { ExpectExpansionMatches(PositiveDefinite("f32", 2, 13, false)); }

TEST(CholeskyExpander, F64) { ExpectExpansionMatches(PositiveDefinite("f64", 1, 9, true)); }

// f16 is computed in f32 and rounded once, as the evaluator does.
TEST(CholeskyExpander, F16) { ExpectExpansionMatches(PositiveDefinite("f16", 5, 4, false)); }

// A matrix that is not positive definite gives NaNs where the evaluator
// gives them (from the first negative pivot's column on); only the named
// triangle is read; batch dimensions of rank 2.
TEST(CholeskyExpander, NotPositiveDefiniteAndBatchDims) {
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  a = f64[2,3,6,6] parameter(0)
  ROOT l = f64[2,3,6,6] cholesky(a), lower=true
})");
}

TEST(CholeskyExpander, TheLoopIsAWhileOverColumns) {
  CholeskyExpander pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m
ENTRY e {
  a = f32[5,5] parameter(0)
  ROOT l = f32[5,5] cholesky(a), lower=true
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kWhile), 1) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCholesky), 0) << r.text;
  EXPECT_TRUE(pass_test::Contains(r.text, "while(l.init), condition=l_cond, body=l_body"));
}

TEST(CholeskyExpander, EmptyBatchIsItself) {
  CholeskyExpander pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m
ENTRY e {
  a = f32[0,3,3] parameter(0)
  ROOT l = f32[0,3,3] cholesky(a), lower=true
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kWhile), 0) << r.text;
}

// A complex Hermitian positive-definite batch factors into complex ops
// (conjugates as complex(real, -imag)), lower and upper, c64 and c128.
TEST(CholeskyExpander, ExpandsComplex) {
  for (const char* lower : {"true", "false"}) {
    for (const auto& [type, part] : {std::pair{"c64", "f32"}, std::pair{"c128", "f64"}}) {
      SCOPED_TRACE(absl::StrCat(type, " lower=", lower));
      const std::string text = absl::StrReplaceAll(R"(
HloModule m
ENTRY e {
  x = TYPE[2,5,5] parameter(0)
  xr = PART[2,5,5] real(x)
  xi = PART[2,5,5] imag(x)
  nxi = PART[2,5,5] negate(xi)
  xc = TYPE[2,5,5] complex(xr, nxi)
  h = TYPE[2,5,5] dot(x, xc), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}
  r = s32[5,5] iota(), iota_dimension=0
  c = s32[5,5] iota(), iota_dimension=1
  eye = pred[5,5] compare(r, c), direction=EQ
  seven = TYPE[] constant((7, 0))
  zero = TYPE[] constant((0, 0))
  sb = TYPE[5,5] broadcast(seven), dimensions={}
  zb = TYPE[5,5] broadcast(zero), dimensions={}
  diag = TYPE[5,5] select(eye, sb, zb)
  db = TYPE[2,5,5] broadcast(diag), dimensions={1,2}
  a = TYPE[2,5,5] add(h, db)
  ROOT l = TYPE[2,5,5] cholesky(a), lower=LOWER
})",
                                                   {{"TYPE", type}, {"PART", part}, {"LOWER", lower}});
      CholeskyExpander pass;
      pass_test::CheckOptions options;
      options.output_scale_tolerance = true;
      pass_test::PassResult r = pass_test::RunPassAndCheck(pass, text, options);
      ASSERT_NE(r.module, nullptr);
      EXPECT_TRUE(r.changed);
      EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCholesky), 0) << r.text;
      EXPECT_GE(CountOpcode(*r.module, HloOpcode::kImag), 1) << r.text;
    }
  }
}

}  // namespace
}  // namespace xla
