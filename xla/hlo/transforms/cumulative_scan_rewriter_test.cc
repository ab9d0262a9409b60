#include "xla/hlo/transforms/cumulative_scan_rewriter.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;
using pass_test::Lacks;

// Every case runs the evaluator on random inputs before and after the
// rewrite (RunPassAndCheck) and compares.

// jax's cumsum along the last dim; 100 is not a multiple of the block (the
// axis is padded with init), and m = 13 blocks scan directly. In f64: the
// blocked sum adds in another order, and in f32 a partial sum that cancels
// to near zero then differs from the sequential one by more than the
// element-wise tolerance (4e-7 on 0.015 here), as any parallel scan does.
TEST(CumulativeScanRewriter, ForwardCumsumWithPadding) {
  CumulativeScanRewriter pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
add {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
ENTRY entry {
  x = f64[3,100] parameter(0)
  z = f64[] constant(0)
  ROOT c = f64[3,100] reduce-window(x, z), window={size=1x100 pad=0_0x99_0}, to_apply=add
})");
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kReduceWindow), 2);  // inner, outer
  EXPECT_TRUE(Contains(r.text, "size=1x1x8 pad=0_0x0_0x7_0"));
  EXPECT_TRUE(Contains(r.text, "size=1x13 pad=0_0x12_0"));
  EXPECT_TRUE(Lacks(r.text, "size=1x100"));
}

// A reverse cummax (jax's cummax(reverse=True)) along dim 0 of 300: the
// outer scan of 38 blocks is rewritten again (38 -> 5 blocks).
TEST(CumulativeScanRewriter, ReverseCummaxTwoLevels) {
  CumulativeScanRewriter pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b)
}
ENTRY entry {
  x = f32[300,2] parameter(0)
  z = f32[] constant(-inf)
  ROOT c = f32[300,2] reduce-window(x, z), window={size=300x1 pad=0_299x0_0}, to_apply=max
})");
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kReduceWindow), 3);
  EXPECT_TRUE(Contains(r.text, "size=5x1 pad=0_4x0_0"));
}

// jax's logcumsumexp reducer (compare, select, log1p, a constant-free
// body) on a 1-D scan of 257 (two levels of blocks; the check evaluates the
// original's O(n^2) window, so n stays small), and an s32 cumsum (exact) in
// the same module.
TEST(CumulativeScanRewriter, LogCumSumExpAndIntegerCumsum) {
  CumulativeScanRewriter pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
logaddexp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  d = f32[] subtract(a, b)
  nan = pred[] compare(d, d), direction=NE
  s = f32[] add(a, b)
  mx = f32[] maximum(a, b)
  ad = f32[] abs(d)
  ng = f32[] negate(ad)
  e = f32[] exponential(ng)
  l = f32[] log-plus-one(e)
  t = f32[] add(mx, l)
  ROOT r = f32[] select(nan, s, t)
}
iadd {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b)
}
ENTRY entry {
  x = f32[257] parameter(0)
  i = s32[4,77] parameter(1)
  ninf = f32[] constant(-inf)
  z = s32[] constant(0)
  l = f32[257] reduce-window(x, ninf), window={size=257 pad=256_0}, to_apply=logaddexp
  c = s32[4,77] reduce-window(i, z), window={size=1x77 pad=0_0x0_76}, to_apply=iadd
  ROOT t = (f32[257], s32[4,77]) tuple(l, c)
})");
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(Lacks(r.text, "size=257"));
  EXPECT_TRUE(Lacks(r.text, "size=1x77 "));
  EXPECT_TRUE(Contains(r.text, "log-plus-one"));
}

// Left alone: a sliding window, a short scan, a strided window, and a
// reduction body that is not element-wise scalar code.
TEST(CumulativeScanRewriter, LeavesOtherWindowsAlone) {
  CumulativeScanRewriter pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY entry {
  x = f32[4,64] parameter(0)
  y = f32[16] parameter(1)
  z = f32[] constant(0)
  slide = f32[4,64] reduce-window(x, z), window={size=1x3 pad=0_0x2_0}, to_apply=add
  short = f32[16] reduce-window(y, z), window={size=16 pad=15_0}, to_apply=add
  strided = f32[4,32] reduce-window(x, z), window={size=1x64 stride=1x2 pad=0_0x63_0}, to_apply=add
  ROOT t = (f32[4,64], f32[16], f32[4,32]) tuple(slide, short, strided)
})");
  EXPECT_FALSE(r.changed);
}

TEST(CumulativeScanRewriter, SmallerBlockOption) {
  CumulativeScanOptions options;
  options.block = 2;
  options.max_direct_length = 2;
  CumulativeScanRewriter pass(options);
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
mul {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] multiply(a, b)
}
ENTRY entry {
  x = f32[2,9,3] parameter(0)
  one = f32[] constant(1)
  ROOT c = f32[2,9,3] reduce-window(x, one), window={size=1x9x1 pad=0_0x8_0x0_0}, to_apply=mul
})");
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  // 9 -> 5 -> 3 -> 2 elements: three rewrites, four scans.
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kReduceWindow), 4);
}

}  // namespace
}  // namespace xla
