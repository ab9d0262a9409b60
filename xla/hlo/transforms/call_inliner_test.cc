#include "xla/hlo/transforms/call_inliner.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;

TEST(CallInliner, InlinesNestedCalls) {
  CallInliner inliner;
  pass_test::PassResult r = pass_test::RunPassAndCheck(inliner, R"(
HloModule m
inner {
  x = f32[33] parameter(0)
  ROOT e = f32[33] exponential(x)
}
outer {
  a = f32[33] parameter(0)
  b = f32[33] parameter(1)
  s = f32[33] add(a, b)
  ROOT c = f32[33] call(s), to_apply=inner
}
ENTRY entry {
  p = f32[33] parameter(0)
  q = f32[33] parameter(1)
  ROOT r = f32[33] call(p, q), to_apply=outer
})");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCall), 0);
  EXPECT_TRUE(Contains(r.text, "s = f32[33] add(p, q)"));
  EXPECT_TRUE(Contains(r.text, "ROOT e = f32[33] exponential(s)"));
}

TEST(CallInliner, RenamesClashingNamesAndHandlesParameterRoot) {
  CallInliner inliner;
  pass_test::PassResult r = pass_test::RunPassAndCheck(inliner, R"(
HloModule m
f {
  x = s32[7] parameter(0)
  y = s32[7] parameter(1)
  p = s32[7] multiply(x, y)
  ROOT q = (s32[7], s32[7]) tuple(p, x)
}
ENTRY entry {
  p = s32[7] parameter(0)
  q = s32[7] parameter(1)
  c = (s32[7], s32[7]) call(p, q), to_apply=f
  ROOT g = s32[7] get-tuple-element(c), index=0
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Contains(r.text, "p.1 = s32[7] multiply(p, q)"));
  EXPECT_TRUE(Contains(r.text, "q.1 = (s32[7], s32[7]) tuple(p.1, p)"));
}

TEST(CallInliner, UnfusesIncomingFusionsOnlyWhenAsked) {
  const char* hlo = R"(
HloModule m
fused {
  a = f32[3,33] parameter(0)
  b = f32[33,5] parameter(1)
  d = f32[3,5] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = f32[3,5] tanh(d)
}
ENTRY entry {
  p = f32[3,33] parameter(0)
  q = f32[33,5] parameter(1)
  ROOT f = f32[3,5] fusion(p, q), kind=kCustom, calls=fused
})";
  CallInliner calls_only;
  pass_test::PassResult kept = pass_test::RunPassAndCheck(calls_only, hlo);
  EXPECT_FALSE(kept.changed);
  CallInliner unfuse(/*inline_fusions=*/true);
  pass_test::PassResult r = pass_test::RunPassAndCheck(unfuse, hlo);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kFusion), 0);
  EXPECT_TRUE(Contains(r.text, "ROOT t = f32[3,5] tanh(d)"));
}

}  // namespace
}  // namespace xla
