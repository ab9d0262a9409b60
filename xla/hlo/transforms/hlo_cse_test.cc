#include "xla/hlo/transforms/hlo_cse.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;
using pass_test::Lacks;

TEST(HloCSE, MergesEqualInstructionsAndConstantsByValue) {
  HloCSE cse;
  pass_test::PassResult r = pass_test::RunPassAndCheck(cse, R"(
HloModule m
ENTRY e {
  p = f32[33] parameter(0)
  c1 = f32[] constant(2.5)
  c2 = f32[] constant(2.5)
  b1 = f32[33] broadcast(c1), dimensions={}
  b2 = f32[33] broadcast(c2), dimensions={}
  m1 = f32[33] multiply(p, b1)
  m2 = f32[33] multiply(p, b2)
  ROOT out = f32[33] add(m1, m2)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kConstant), 1);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kMultiply), 1);
  EXPECT_TRUE(Contains(r.text, "ROOT out = f32[33] add(m1, m1)"));
}

TEST(HloCSE, KeepsInstructionsWithDifferentAttributesOrValues) {
  HloCSE cse;
  pass_test::PassResult r = pass_test::RunPassAndCheck(cse, R"(
HloModule m
ENTRY e {
  p = f32[8] parameter(0)
  s1 = f32[4] slice(p), slice={[0:4]}
  s2 = f32[4] slice(p), slice={[4:8]}
  c1 = f32[] constant(0)
  c2 = f32[] constant(-0)
  a1 = f32[4] add(s1, s2)
  ROOT t = (f32[4], f32[], f32[]) tuple(a1, c1, c2)
})");
  EXPECT_FALSE(r.changed);
  EXPECT_TRUE(Contains(r.text, "s2 = "));
  EXPECT_TRUE(Contains(r.text, "c2 = "));
}

TEST(HloCSE, NeverMergesRngOrSideEffects) {
  HloCSE cse;
  pass_test::PassResult r = pass_test::RunPassOnly(cse, R"(
HloModule m
ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r1 = f32[4] rng(lo, hi), distribution=rng_uniform
  r2 = f32[4] rng(lo, hi), distribution=rng_uniform
  p = f32[4] parameter(0)
  cc1 = f32[4] custom-call(p), custom_call_target="x", custom_call_has_side_effect=true
  cc2 = f32[4] custom-call(p), custom_call_target="x", custom_call_has_side_effect=true
  ROOT t = (f32[4], f32[4], f32[4], f32[4]) tuple(r1, r2, cc1, cc2)
})");
  EXPECT_FALSE(r.changed);
  EXPECT_TRUE(Contains(r.text, "r2 = "));
  EXPECT_TRUE(Contains(r.text, "cc2 = "));
  EXPECT_TRUE(Lacks(r.text, "tuple(r1, r1"));
}

}  // namespace
}  // namespace xla
