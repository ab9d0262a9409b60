#include "xla/hlo/transforms/builder_math_call_expander.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// Random inputs in [-1, 1) and the end points and outside values as
// constants; f32, f64 and f16 (computed in f32): the evaluator's acos before
// and after must agree.
TEST(BuilderMathCallExpander, AcosMatchesTheEvaluator) {
  BuilderMathCallExpander pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  x = f32[7,5] parameter(0)
  a = f32[7,5] custom-call(x), custom_call_target="xla_builder.math.Acos"
  c = f64[6] constant({-1, 1, -0.999999, 0.5, 1.5, -2})
  b = f64[6] custom-call(c), custom_call_target="xla_builder.math.Acos"
  h = f16[7,5] convert(x)
  d = f16[7,5] custom-call(h), custom_call_target="xla_builder.math.Acos"
  ROOT t = (f32[7,5], f64[6], f16[7,5]) tuple(a, b, d)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 0) << r.text;
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kAtan2), 3) << r.text;
}

// A complex Acos becomes the acos opcode (the same values; ComplexExpander
// writes it in real ops); other xla_builder targets stay.
TEST(BuilderMathCallExpander, ComplexBecomesAcosOpOtherTargetsStay) {
  BuilderMathCallExpander pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  x = c128[7] parameter(0)
  ROOT a = c128[7] custom-call(x), custom_call_target="xla_builder.math.Acos"
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kAcos), 1) << r.text;
  r = pass_test::RunPassOnly(pass, R"(
HloModule m
ENTRY e {
  y = f32[3,3] parameter(0)
  ROOT b = f32[3] custom-call(y, y), custom_call_target="xla_builder.matrix.Einsum", backend_config="ii,ii->i"
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace xla
