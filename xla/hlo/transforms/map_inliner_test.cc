#include "xla/hlo/transforms/map_inliner.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;

TEST(MapInliner, LiftsScalarBodyWithConstantsAndTypeChanges) {
  MapInliner inliner;
  pass_test::PassResult r = pass_test::RunPassAndCheck(inliner, R"(
HloModule m
f {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  two = f32[] constant(2)
  m = f32[] multiply(x, two)
  s = f32[] add(m, y)
  lt = pred[] compare(s, y), direction=LT
  i = s32[] convert(s)
  zero = s32[] constant(0)
  ROOT r = s32[] select(lt, i, zero)
}
ENTRY entry {
  p = f32[3,5] parameter(0)
  q = f32[3,5] parameter(1)
  ROOT r = s32[3,5] map(p, q), dimensions={0,1}, to_apply=f
})");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kMap), 0);
  EXPECT_TRUE(Contains(r.text, "pred[3,5]{1,0} compare("));
  EXPECT_TRUE(Contains(r.text, "f32[3,5]{1,0} broadcast(two)"));
}

TEST(MapInliner, ParameterRootAndRepeatedOperand) {
  MapInliner inliner;
  pass_test::PassResult r = pass_test::RunPassAndCheck(inliner, R"(
HloModule m
first {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT a2 = s32[] parameter(2)
}
ENTRY entry {
  p = s32[33] parameter(0)
  q = s32[33] parameter(1)
  ROOT r = s32[33] map(p, q, p), dimensions={0}, to_apply=first
})");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kMap), 0);
}

TEST(MapInliner, LeavesNonElementwiseBodiesAlone) {
  MapInliner inliner;
  pass_test::PassResult r = pass_test::RunPassAndCheck(inliner, R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
g {
  x = f32[] parameter(0)
  b = f32[4] broadcast(x), dimensions={}
  z = f32[] constant(0)
  ROOT r = f32[] reduce(b, z), dimensions={0}, to_apply=add
}
ENTRY entry {
  p = f32[7] parameter(0)
  ROOT r = f32[7] map(p), dimensions={0}, to_apply=g
})");
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kMap), 1);
}

}  // namespace
}  // namespace xla
