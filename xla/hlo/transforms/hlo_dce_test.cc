#include "xla/hlo/transforms/hlo_dce.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::Lacks;

TEST(HloDCE, RemovesDeadChainsAndKeepsLiveCode) {
  HloDCE dce;
  pass_test::PassResult r = pass_test::RunPassAndCheck(dce, R"(
HloModule m
ENTRY e {
  p = f32[33] parameter(0)
  dead = f32[33] exponential(p)
  dead2 = f32[33] add(dead, p)
  live = f32[33] negate(p)
  ROOT out = f32[33] multiply(live, p)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Lacks(r.text, "dead"));
  EXPECT_TRUE(Contains(r.text, "live = f32[33] negate(p)"));
  EXPECT_TRUE(Contains(r.text, "ROOT out"));
}

TEST(HloDCE, KeepsSideEffectingOps) {
  HloDCE dce;
  pass_test::PassResult r = pass_test::RunPassOnly(dce, R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  cc = f32[4] custom-call(p), custom_call_target="log_it", custom_call_has_side_effect=true
  pure_cc = f32[4] custom-call(p), custom_call_target="pure"
  tok = token[] after-all()
  outfeed = token[] outfeed(p, tok)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  random = f32[4] rng(lo, hi), distribution=rng_uniform
  ar = f32[4] all-reduce(p), replica_groups={}, to_apply=sum
  ROOT out = f32[4] negate(p)
}
sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Lacks(r.text, "pure_cc"));
  for (const char* kept : {"cc = ", "tok = ", "outfeed = ", "random = ", "ar = ", "sum ("}) {
    EXPECT_TRUE(Contains(r.text, kept));
  }
}

TEST(HloDCE, RemovesUnreachableComputations) {
  HloDCE dce;
  pass_test::PassResult r = pass_test::RunPassAndCheck(dce, R"(
HloModule m
unused {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}
used {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[5] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=used
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Lacks(r.text, "unused"));
  EXPECT_TRUE(Contains(r.text, "used ("));
}

TEST(HloDCE, UnchangedModuleReportsNoChange) {
  HloDCE dce;
  pass_test::PassResult r = pass_test::RunPassAndCheck(dce, R"(
HloModule m
ENTRY e {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
})");
  EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace xla
