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
