#include "xla/hlo/transforms/topk_decomposer.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;

TEST(TopKDecomposer, LargestOnOddRank3Shape) {
  TopKDecomposer pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY entry {
  x = f32[3,5,33] parameter(0)
  ROOT t = (f32[3,5,7], s32[3,5,7]) topk(x), k=7, largest=true
})");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kTopK), 0);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kSort), 1);
  EXPECT_TRUE(Contains(r.text, "is_stable=true"));
  EXPECT_TRUE(Contains(r.text, "direction=GT, type=TOTALORDER"));
}

TEST(TopKDecomposer, SmallestBf16AndWholeRow) {
  TopKDecomposer pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY entry {
  x = bf16[257] parameter(0)
  a = (bf16[257], s32[257]) topk(x), k=257, largest=false
  b = (bf16[1], s32[1]) topk(x), k=1, largest=false
  ROOT t = ((bf16[257], s32[257]), (bf16[1], s32[1])) tuple(a, b)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kTopK), 0);
  // One comparator is shared by both.
  EXPECT_TRUE(Contains(r.text, "direction=LT, type=TOTALORDER"));
}

// With keep_topk_up_to_k = 16 (a target with a top-k kernel), topk ops
// with k <= 16 stay; a larger k and the TopK custom call still become sorts.
TEST(TopKDecomposer, KeepsSmallKForATargetKernel) {
  TopKDecomposer pass(/*keep_topk_up_to_k=*/16);
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT, type=TOTALORDER
}
ENTRY entry {
  x = f32[3,40] parameter(0)
  a = (f32[3,16], s32[3,16]) topk(x), k=16, largest=true
  b = (f32[3,17], s32[3,17]) topk(x), k=17, largest=true
  c = (f32[3,2], s32[3,2]) custom-call(x), custom_call_target="TopK", called_computations={cmp}
  ROOT t = ((f32[3,16], s32[3,16]), (f32[3,17], s32[3,17]), (f32[3,2], s32[3,2])) tuple(a, b, c)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kTopK), 1);
  EXPECT_TRUE(Contains(r.text, "k=16"));
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kCustomCall), 0);
}

// Ties keep the lower index first; NaNs rank above +inf (TOTALORDER), -0
// below +0: the evaluator's topk and the sort must agree bit for bit.
TEST(TopKDecomposer, TiesNaNsAndSignedZerosMatchTheEvaluator) {
  TopKDecomposer pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY entry {
  x = f32[2,7] constant({{1, 3, 1, nan, -0, 0, 3}, {-inf, inf, 2, 2, -nan, 5, 2}})
  p = f32[2,7] parameter(0)
  s = f32[2,7] add(x, p)
  a = (f32[2,5], s32[2,5]) topk(x), k=5, largest=true
  b = (f32[2,5], s32[2,5]) topk(x), k=5, largest=false
  c = (f32[2,3], s32[2,3]) topk(s), k=3, largest=true
  ROOT t = ((f32[2,5], s32[2,5]), (f32[2,5], s32[2,5]), (f32[2,3], s32[2,3])) tuple(a, b, c)
})");
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kTopK), 0);
}

// Long rows sort in two stages (chunks of 32 here, then the 16 * 5
// candidates). Inputs floored to a few values make ties everywhere: the
// lower index must still come first, exactly as with one sort.
TEST(TopKDecomposer, TwoStagesOnLongRowsWithTies) {
  TopKDecomposer pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY entry {
  p = f32[3,512] parameter(0)
  four = f32[] constant(4)
  fb = f32[3,512] broadcast(four), dimensions={}
  m = f32[3,512] multiply(p, fb)
  x = f32[3,512] floor(m)
  a = (f32[3,5], s32[3,5]) topk(x), k=5, largest=true
  b = (f32[3,5], s32[3,5]) topk(p), k=5, largest=false
  ROOT t = ((f32[3,5], s32[3,5]), (f32[3,5], s32[3,5])) tuple(a, b)
})");
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kTopK), 0);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kSort), 4);
  EXPECT_TRUE(Contains(r.text, "f32[3,16,32]"));
}

// A 1-D bf16 row of 1000 (chunks of a divisor of 1000), and a row of 509
// (prime: no chunk divides it, one sort).
TEST(TopKDecomposer, TwoStagesOnADivisorAndOneSortOnAPrime) {
  TopKDecomposer pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
ENTRY entry {
  x = bf16[1000] parameter(0)
  y = f32[509] parameter(1)
  a = (bf16[7], s32[7]) topk(x), k=7, largest=true
  b = (f32[3], s32[3]) topk(y), k=3, largest=true
  ROOT t = ((bf16[7], s32[7]), (f32[3], s32[3])) tuple(a, b)
})");
  EXPECT_TRUE(r.changed);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kSort), 3);
}

// XLA's TopK custom call becomes the same sort, with its own comparator;
// results match the evaluator's reading of the custom call.
TEST(TopKDecomposer, TopKCustomCall) {
  TopKDecomposer pass;
  pass_test::PassResult r = pass_test::RunPassAndCheck(pass, R"(
HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ia = s32[] parameter(2)
  ib = s32[] parameter(3)
  ROOT gt = pred[] compare(a, b), direction=GT, type=TOTALORDER
}
ENTRY e {
  x = f32[5,13] parameter(0)
  ROOT t = (f32[5,4], s32[5,4]) custom-call(x), custom_call_target="TopK", called_computations={cmp}
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(pass_test::CountOpcode(*r.module, HloOpcode::kCustomCall), 0) << r.text;
  EXPECT_TRUE(pass_test::Contains(r.text, "to_apply=cmp, is_stable=true"));
}

// A comparator of another signature is left alone.
TEST(TopKDecomposer, LeavesOtherTopKCustomCalls) {
  TopKDecomposer pass;
  pass_test::PassResult r = pass_test::RunPassOnly(pass, R"(
HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT gt = pred[] compare(a, b), direction=GT
}
ENTRY e {
  x = f32[13] parameter(0)
  ROOT t = (f32[4], s32[4]) custom-call(x), custom_call_target="TopK", called_computations={cmp}
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_FALSE(r.changed);
}

}  // namespace
}  // namespace xla
