#include "xla/hlo/transforms/triangular_solve_expander.h"

#include <string>
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

// a = random + 4 I (well conditioned: both triangles have a dominant
// diagonal), batch 2 x 3, m = 5; b is [2,3,5,7] (left) or [2,3,7,5] (right).
constexpr char kSolve[] = R"(
HloModule m
ENTRY e {
  r = f32[2,3,5,5] parameter(0)
  b = TYPE[2,3,BDIMS] parameter(1)
  i = s32[2,3,5,5] iota(), iota_dimension=2
  j = s32[2,3,5,5] iota(), iota_dimension=3
  eye = pred[2,3,5,5] compare(i, j), direction=EQ
  four = f32[] constant(4)
  zero = f32[] constant(0)
  fb = f32[2,3,5,5] broadcast(four), dimensions={}
  zb = f32[2,3,5,5] broadcast(zero), dimensions={}
  d = f32[2,3,5,5] select(eye, fb, zb)
  a32 = f32[2,3,5,5] add(r, d)
  a = TYPE[2,3,5,5] convert(a32)
  ROOT x = TYPE[2,3,BDIMS] triangular-solve(a, b), left_side=LEFT, lower=LOWER, unit_diagonal=UNIT, transpose_a=TRANSPOSE
}
)";

std::string Solve(const std::string& type, bool left, bool lower, bool unit, const std::string& transpose) {
  return absl::StrReplaceAll(kSolve, {{"TYPE", type},
                                      {"BDIMS", left ? "5,7" : "7,5"},
                                      {"LEFT", left ? "true" : "false"},
                                      {"LOWER", lower ? "true" : "false"},
                                      {"UNIT", unit ? "true" : "false"},
                                      {"TRANSPOSE", transpose}});
}

// Runs the pass on `text` and compares the evaluator's results before and
// after on random inputs, within the compiled-program tolerance.
void ExpectExpansionMatches(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  ASSERT_TRUE(VerifyModule(**module).ok());
  absl::StatusOr<std::vector<Literal>> args = MakeRandomInputs(**module, 5);
  ASSERT_TRUE(args.ok()) << args.status();
  absl::StatusOr<Literal> before = HloEvaluator().Evaluate(**module, *args);
  ASSERT_TRUE(before.ok()) << before.status();
  TriangularSolveExpander pass;
  absl::StatusOr<bool> changed = pass.Run(module->get());
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_TRUE(*changed);
  EXPECT_EQ(CountOpcode(**module, HloOpcode::kTriangularSolve), 0);
  absl::Status verified = VerifyModule(**module);
  ASSERT_TRUE(verified.ok()) << verified << "\n" << PrintModule(**module);
  absl::StatusOr<Literal> after = HloEvaluator().Evaluate(**module, *args);
  ASSERT_TRUE(after.ok()) << after.status();
  absl::Status same = CompareOutputLeaf(*before, *after);
  EXPECT_TRUE(same.ok()) << same << "\n" << text;
}

// Every combination of side, triangle, diagonal and transpose.
TEST(TriangularSolveExpander, EveryFormMatchesTheEvaluator) {
  for (bool left : {true, false}) {
    for (bool lower : {true, false}) {
      for (bool unit : {false, true}) {
        for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
          SCOPED_TRACE(absl::StrCat("left=", left, " lower=", lower, " unit=", unit, " ", transpose));
          ExpectExpansionMatches(Solve("f32", left, lower, unit, transpose));
        }
      }
    }
  }
}

TEST(TriangularSolveExpander, F64AndF16) {
  ExpectExpansionMatches(Solve("f64", true, false, false, "TRANSPOSE"));
  ExpectExpansionMatches(Solve("f16", false, true, false, "NO_TRANSPOSE"));
}

// The corpus form (XLA's HLO import test): rank 2, unit diagonal.
TEST(TriangularSolveExpander, RankTwo) {
  ExpectExpansionMatches(R"(
HloModule m
ENTRY e {
  a = f32[4,4] parameter(0)
  b = f32[4,3] parameter(1)
  ROOT x = f32[4,3] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE, unit_diagonal=true
})");
}

TEST(TriangularSolveExpander, EmptyRightHandSideIsItself) {
  TriangularSolveExpander pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m
ENTRY e {
  a = f32[3,3] parameter(0)
  b = f32[3,0] parameter(1)
  ROOT x = f32[3,0] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kWhile), 0) << r.text;
}

// Complex systems, every transpose_a (ADJOINT conjugates) and side: a
// well-conditioned triangle (diagonal 4 + noise) keeps the solution's
// scale moderate.
TEST(TriangularSolveExpander, ExpandsComplex) {
  for (const char* type : {"c64", "c128"}) {
    for (const char* transpose : {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"}) {
      for (const char* left : {"true", "false"}) {
        SCOPED_TRACE(absl::StrCat(type, " ", transpose, " left=", left));
        const std::string b_dims = std::string(left) == "true" ? "[2,5,3]" : "[2,3,5]";
        const std::string text = absl::StrCat(R"(
HloModule m
ENTRY e {
  x = )", type, R"([2,5,5] parameter(0)
  b = )", type, b_dims, R"( parameter(1)
  four = )", type, R"([] constant((4, 0.5))
  fb = )", type, R"([2,5,5] broadcast(four), dimensions={}
  r = s32[2,5,5] iota(), iota_dimension=1
  c = s32[2,5,5] iota(), iota_dimension=2
  eye = pred[2,5,5] compare(r, c), direction=EQ
  xd = )", type, R"([2,5,5] add(x, fb)
  a = )", type, R"([2,5,5] select(eye, xd, x)
  ROOT s = )", type, b_dims, R"( triangular-solve(a, b), left_side=)", left,
                                              R"(, lower=false, transpose_a=)", transpose, "\n}\n");
        TriangularSolveExpander pass;
        pass_test::CheckOptions options;
        options.output_scale_tolerance = true;
        pass_test::PassResult r = pass_test::RunPassAndCheck(pass, text, options);
        ASSERT_NE(r.module, nullptr);
        EXPECT_TRUE(r.changed);
        EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kTriangularSolve), 0) << r.text;
      }
    }
  }
}

}  // namespace
}  // namespace xla
