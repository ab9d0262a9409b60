#include "xla/hlo/transforms/constant_folding.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::Lacks;

TEST(ConstantFolding, FoldsChainsOfConstantOps) {
  ConstantFolding pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  p = f32[3] parameter(0)
  a = f32[3] constant({1, 2, 3})
  b = f32[3] constant({0.5, 0.25, 4})
  s = f32[3] add(a, b)
  n = f32[3] negate(s)
  ROOT out = f32[3] multiply(p, n)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Contains(r.text, "n = f32[3] constant({-1.5, -2.25, -7})"));
  EXPECT_TRUE(Lacks(r.text, "negate("));
}

TEST(ConstantFolding, FoldsReduceWithItsReducer) {
  ConstantFolding pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
sum {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT s = s32[] add(x, y)
}
ENTRY e {
  p = s32[] parameter(0)
  c = s32[4] constant({1, 2, 3, 4})
  z = s32[] constant(0)
  r = s32[] reduce(c, z), dimensions={0}, to_apply=sum
  ROOT out = s32[] add(p, r)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Contains(r.text, "r = s32[] constant(10)"));
}

TEST(ConstantFolding, NeverMaterializesBroadcasts) {
  ConstantFolding pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  p = f32[100000] parameter(0)
  c = f32[] constant(2)
  b = f32[100000] broadcast(c), dimensions={}
  ROOT out = f32[100000] add(p, b)
})");
  EXPECT_FALSE(r.changed);
  EXPECT_TRUE(Contains(r.text, "broadcast(c)"));
}

TEST(ConstantFolding, IotaFoldsOnlyUnderTheBound) {
  ConstantFoldingOptions options;
  options.max_result_elements = 8;
  ConstantFolding pass(options);
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  p = s32[5] parameter(0)
  small = s32[5] iota(), iota_dimension=0
  big = s32[9] iota(), iota_dimension=0
  big_slice = s32[5] slice(big), slice={[4:9]}
  s = s32[5] add(p, small)
  ROOT out = s32[5] add(s, big_slice)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Contains(r.text, "small = s32[5] constant({0, 1, 2, 3, 4})"));
  EXPECT_TRUE(Contains(r.text, "big = s32[9] iota()"));
  EXPECT_TRUE(Contains(r.text, "big_slice = s32[5] slice(big)"));
}

TEST(ConstantFolding, NeverFoldsRng) {
  ConstantFolding pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m
ENTRY e {
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  ROOT r = f32[4] rng(lo, hi), distribution=rng_uniform
})");
  EXPECT_FALSE(r.changed);
  EXPECT_TRUE(Contains(r.text, "rng(lo, hi)"));
}

}  // namespace
}  // namespace xla
