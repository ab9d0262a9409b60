#include "xla/hlo/transforms/while_loop_invariant_code_motion.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::Lacks;

constexpr char kLoop[] = R"(
HloModule m
cond {
  s = (s32[], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] constant(5)
  ROOT c = pred[] compare(i, k), direction=LT
}
body {
  s = (s32[], f32[33], f32[33]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[33] get-tuple-element(s), index=1
  w = f32[33] get-tuple-element(s), index=2
  half = f32[] constant(0.5)
  hb = f32[33] broadcast(half), dimensions={}
  scaled = f32[33] multiply(w, hb)
  ew = f32[33] exponential(scaled)
  acc2 = f32[33] add(acc, ew)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[33], f32[33]) tuple(i2, acc2, w)
}
ENTRY e {
  a = f32[33] parameter(0)
  b = f32[33] parameter(1)
  z = s32[] constant(0)
  t = (s32[], f32[33], f32[33]) tuple(z, a, b)
  w = (s32[], f32[33], f32[33]) while(t), condition=cond, body=body
  ROOT r = f32[33] get-tuple-element(w), index=1
})";

TEST(WhileLoopInvariantCodeMotion, HoistsInvariantChain) {
  WhileLoopInvariantCodeMotion pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, kLoop);
  EXPECT_TRUE(r.changed);
  // exp(w * 0.5) is computed once before the loop, from the entry's `b`.
  EXPECT_TRUE(Contains(r.text, "scaled = f32[33] multiply(b, hb)"));
  EXPECT_TRUE(Contains(r.text, "ew = f32[33] exponential(scaled)"));
  EXPECT_TRUE(Contains(r.text, "tuple(z, a, b, ew)"));
  EXPECT_TRUE(Contains(r.text, "acc2 = f32[33] add(acc, get-tuple-element"));
  EXPECT_TRUE(Lacks(r.text, "exponential(scaled)\n  acc2"));
}

TEST(WhileLoopInvariantCodeMotion, LeavesVariantCodeAlone) {
  WhileLoopInvariantCodeMotion pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
cond {
  s = (s32[], f32[33]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  k = s32[] constant(4)
  ROOT c = pred[] compare(i, k), direction=LT
}
body {
  s = (s32[], f32[33]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[33] get-tuple-element(s), index=1
  e = f32[33] exponential(x)
  one = s32[] constant(1)
  i2 = s32[] add(i, one)
  ROOT t = (s32[], f32[33]) tuple(i2, e)
}
ENTRY e {
  a = f32[33] parameter(0)
  z = s32[] constant(0)
  t = (s32[], f32[33]) tuple(z, a)
  ROOT w = (s32[], f32[33]) while(t), condition=cond, body=body
})");
  EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace xla
