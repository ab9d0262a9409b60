#include "xla/hlo/transforms/scan_expander.h"

#include <string>

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::CountOpcode;

// Runs the pass on `text` (RunPassAndCheck: the result verifies and the
// evaluator gives the same results before and after on random inputs) and
// checks that every scan became a loop with its step inlined.
void ExpectExpansionMatches(const std::string& text) {
  ScanExpander pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, text);
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kScan), 0);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCall), 0);
  EXPECT_GE(CountOpcode(*r.module, HloOpcode::kWhile), 1);
}

// The corpus's form: a running sum, output and carry the same value.
TEST(ScanExpander, RunningSumWithCarry) {
  ExpectExpansionMatches(R"(
HloModule m
add_comp {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  a = f32[] add(x, c)
  ROOT t = (f32[], f32[]) tuple(a, a)
}
ENTRY e {
  x = f32[13] parameter(0)
  init = f32[] parameter(1)
  ROOT s = (f32[13], f32[]) scan(x, init), dimensions={0}, num_carries=1, is_associative=true, to_apply=add_comp
})");
}

// Along the middle dim of odd 3-D inputs: two inputs of different types,
// one output, two carries (an array and a counter), non-commutative steps.
TEST(ScanExpander, MiddleDimTwoInputsTwoCarries) {
  ExpectExpansionMatches(R"(
HloModule m
step {
  x = f32[3,5] parameter(0)
  y = s32[3,5] parameter(1)
  m = f32[3,5] parameter(2)
  n = s32[] parameter(3)
  yf = f32[3,5] convert(y)
  p = f32[3,5] multiply(x, yf)
  d = f32[3,5] subtract(p, m)
  m2 = f32[3,5] maximum(m, d)
  one = s32[] constant(1)
  n2 = s32[] add(n, one)
  ROOT t = (f32[3,5], f32[3,5], s32[]) tuple(d, m2, n2)
}
ENTRY e {
  x = f32[3,7,5] parameter(0)
  y = s32[3,7,5] parameter(1)
  m = f32[3,5] parameter(2)
  n = s32[] parameter(3)
  ROOT s = (f32[3,7,5], f32[3,5], s32[]) scan(x, y, m, n), dimensions={1}, num_carries=2, to_apply=step
})");
}

// No carries: a plain per-slice map (the step sees slice i only).
TEST(ScanExpander, NoCarriesLastDim) {
  ExpectExpansionMatches(R"(
HloModule m
neg {
  x = f32[4] parameter(0)
  ROOT n = f32[4] negate(x)
}
ENTRY e {
  x = f32[4,9] parameter(0)
  ROOT s = (f32[4,9]) scan(x), dimensions={1}, num_carries=0, to_apply=neg
})");
}

}  // namespace
}  // namespace xla
