// MultiOutputFusion on hand-written fused modules; every case is checked by
// RunPassAndCheck (verifier + evaluator before/after).
#include "xla/service/fusion/multi_output_fusion.h"

#include "gtest/gtest.h"
#include "xla/hlo/transforms/pass_test_util.h"
#include "xla/service/fusion/fusion_analysis.h"
#include "xla/service/fusion/instruction_fusion.h"

namespace xla {
namespace {

using pass_test::Contains;
using pass_test::CountOpcode;
using pass_test::RunPassAndCheck;

constexpr char kSiblings[] = R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
f1 {
  p = f32[33,17] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[33] reduce(p, z), dimensions={1}, to_apply=add
}
f2 {
  p = f32[33,17] parameter(0)
  m = f32[33,17] multiply(p, p)
  z = f32[] constant(0)
  ROOT r = f32[33] reduce(m, z), dimensions={1}, to_apply=add
}
f3 {
  p = f32[33,17] parameter(0)
  ROOT n = f32[33,17] negate(p)
}
ENTRY e {
  a = f32[33,17] parameter(0)
  s = f32[33] fusion(a), kind=kInput, calls=f1
  q = f32[33] fusion(a), kind=kInput, calls=f2
  n = f32[33,17] fusion(a), kind=kLoop, calls=f3
  d = f32[33] subtract(s, q)
  ROOT t = (f32[33], f32[33,17]) tuple(d, n)
}
)";

TEST(MultiOutputFusion, SiblingReductionsMergeAndUsersAreRewired) {
  MultiOutputFusionOptions options;
  options.producer_consumer = false;
  MultiOutputFusion pass(options);
  auto r = RunPassAndCheck(pass, kSiblings);
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  // The two reductions merged; the loop fusion has another iteration space.
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kFusion), 2);
  const HloInstruction* d = r.module->entry_computation()->GetInstruction("d");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->operand(0)->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(d->operand(1)->opcode(), HloOpcode::kGetTupleElement);
  EXPECT_EQ(d->operand(0)->operand(0), d->operand(1)->operand(0));
  EXPECT_EQ(d->operand(0)->tuple_index(), 0);
  EXPECT_EQ(d->operand(1)->tuple_index(), 1);
  auto a = ClassifyFusion(*d->operand(0)->operand(0));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->kind, FusionKind::kRowReduction);
  // Old computations are gone.
  EXPECT_EQ(r.module->GetComputation("f1"), nullptr);
  EXPECT_EQ(r.module->GetComputation("f2"), nullptr);
}

TEST(MultiOutputFusion, SmallSharedOperandIsNotMerged) {
  MultiOutputFusionOptions options;
  options.min_shared_operand_bytes = 1 << 20;
  MultiOutputFusion pass(options);
  auto r = RunPassAndCheck(pass, kSiblings);
  ASSERT_NE(r.module, nullptr);
  EXPECT_FALSE(r.changed);
}

TEST(MultiOutputFusion, NoCycleWhenOneSiblingFeedsTheOther) {
  MultiOutputFusionOptions options;
  options.producer_consumer = false;
  MultiOutputFusion pass(options);
  // y reads x's result: merging x and y would make the fusion its own user.
  auto r = RunPassAndCheck(pass, R"(
HloModule m
f1 {
  p = f32[40,9] parameter(0)
  ROOT n = f32[40,9] negate(p)
}
f2 {
  p = f32[40,9] parameter(0)
  q = f32[40,9] parameter(1)
  ROOT n = f32[40,9] add(p, q)
}
ENTRY e {
  a = f32[40,9] parameter(0)
  x = f32[40,9] fusion(a), kind=kLoop, calls=f1
  c = f32[40,9] cosine(x)
  y = f32[40,9] fusion(a, c), kind=kLoop, calls=f2
  ROOT t = (f32[40,9], f32[40,9]) tuple(x, y)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_FALSE(r.changed);
}

TEST(MultiOutputFusion, ProducerBecomesExtraOutputOfReduction) {
  MultiOutputFusion pass;
  auto r = RunPassAndCheck(pass, R"(
HloModule m
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}
fp {
  p = f32[33,17] parameter(0)
  ROOT e = f32[33,17] exponential(p)
}
fc {
  p = f32[33,17] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[33] reduce(p, z), dimensions={1}, to_apply=add
}
ENTRY e {
  a = f32[33,17] parameter(0)
  x = f32[33,17] fusion(a), kind=kLoop, calls=fp
  s = f32[33] fusion(x), kind=kInput, calls=fc
  ROOT t = (f32[33], f32[33,17]) tuple(s, x)
})");
  ASSERT_NE(r.module, nullptr);
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kFusion), 1);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kExp), 1);
  const HloInstruction* root = r.module->entry_computation()->root_instruction();
  EXPECT_EQ(root->operand(0)->tuple_index(), 0);
  EXPECT_EQ(root->operand(1)->tuple_index(), 1);
}

TEST(MultiOutputFusion, AfterInstructionFusionSiblingLoopsMerge) {
  // Two elementwise chains over the same 4 KiB input: instruction fusion
  // makes two loop fusions, multi-output fusion one.
  const char* hlo = R"(
HloModule m
ENTRY e {
  a = f32[31,33] parameter(0)
  x = f32[31,33] exponential(a)
  y = f32[31,33] log(a)
  ROOT t = (f32[31,33], f32[31,33]) tuple(x, y)
})";
  InstructionFusion fusion;
  auto fused = pass_test::RunPassAndCheck(fusion, hlo);
  ASSERT_NE(fused.module, nullptr);
  EXPECT_EQ(CountOpcode(*fused.module, HloOpcode::kFusion), 2);
  MultiOutputFusion pass;
  auto r = RunPassAndCheck(pass, fused.text);
  ASSERT_NE(r.module, nullptr);
  EXPECT_EQ(CountOpcode(*r.module, HloOpcode::kFusion), 1);
  EXPECT_TRUE(Contains(r.text, "fused_multi_"));
}

}  // namespace
}  // namespace xla
