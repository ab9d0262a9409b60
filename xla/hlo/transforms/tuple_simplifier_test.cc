#include "xla/hlo/transforms/tuple_simplifier.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;

TEST(TupleSimplifier, ForwardsGetTupleElementOfTuple) {
  TupleSimplifier pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  a = f32[3] parameter(0)
  b = s32[2] parameter(1)
  t = (f32[3], s32[2]) tuple(a, b)
  g = s32[2] get-tuple-element(t), index=1
  ROOT n = s32[2] negate(g)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Contains(r.text, "ROOT n = s32[2] negate(b)"));
}

TEST(TupleSimplifier, ReplacesRepackedTupleWithSource) {
  TupleSimplifier pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  p = (f32[3], s32[2]) parameter(0)
  g0 = f32[3] get-tuple-element(p), index=0
  g1 = s32[2] get-tuple-element(p), index=1
  ROOT t = (f32[3], s32[2]) tuple(g0, g1)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_TRUE(Contains(r.text, "ROOT p = "));
}

TEST(TupleSimplifier, KeepsPartialOrReorderedRepacks) {
  TupleSimplifier pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY e {
  p = (f32[3], f32[3]) parameter(0)
  g0 = f32[3] get-tuple-element(p), index=0
  g1 = f32[3] get-tuple-element(p), index=1
  ROOT t = (f32[3], f32[3]) tuple(g1, g0)
})");
  EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace xla
