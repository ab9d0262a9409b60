// The cost table and the duplication / constant rules, on parsed
// instructions with hand-picked sizes.
#include "xla/service/fusion/fusion_cost_model.h"

#include "gtest/gtest.h"
#include "xla/hlo/parser/hlo_parser.h"

namespace xla {
namespace {

TEST(FusionCostModel, ClassesFromTheTable) {
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kAdd), FusionCostClass::kCheap);
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kCompare), FusionCostClass::kCheap);
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kBroadcast), FusionCostClass::kCheap);
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kSelect), FusionCostClass::kCheap);
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kExp), FusionCostClass::kExpensive);
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kDivide), FusionCostClass::kExpensive);
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kRsqrt), FusionCostClass::kExpensive);
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kReduce), FusionCostClass::kReduction);
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kDynamicUpdateSlice), FusionCostClass::kRootOnly);
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kParameter), FusionCostClass::kOutside);
  EXPECT_EQ(FusionCostClassOf(HloOpcode::kBitcast), FusionCostClass::kOutside);
  for (HloOpcode op : {HloOpcode::kDot, HloOpcode::kConvolution, HloOpcode::kSort, HloOpcode::kCustomCall,
                       HloOpcode::kWhile, HloOpcode::kConditional, HloOpcode::kCall, HloOpcode::kAllReduce,
                       HloOpcode::kRngBitGenerator, HloOpcode::kRng, HloOpcode::kInfeed, HloOpcode::kFusion}) {
    EXPECT_EQ(FusionCostClassOf(op), FusionCostClass::kNeverFuse) << HloOpcodeName(op);
  }
  EXPECT_EQ(FusionCostClassName(FusionCostClass::kRootOnly), "root-only");
}

TEST(FusionCostModel, DuplicationAndConstants) {
  absl::StatusOr<std::unique_ptr<HloModule>> m = ParseHloModule(R"(
HloModule m
ENTRY e {
  a = f32[100] parameter(0)
  s = f32[8] parameter(1)
  big = f32[100] exponential(a)
  small = f32[8] exponential(s)
  cheap = f32[100] negate(a)
  c1 = f32[3] constant({1, 2, 3})
  c2 = f32[20] constant({1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20})
  ROOT t = (f32[100], f32[8], f32[100], f32[3], f32[20]) tuple(big, small, cheap, c1, c2)
})");
  ASSERT_TRUE(m.ok()) << m.status();
  const HloComputation& e = *(*m)->entry_computation();
  FusionLimits limits;
  EXPECT_FALSE(FusionMayDuplicate(*e.GetInstruction("big"), 2, limits));
  EXPECT_TRUE(FusionMayDuplicate(*e.GetInstruction("big"), 1, limits));
  EXPECT_TRUE(FusionMayDuplicate(*e.GetInstruction("small"), 3, limits));
  EXPECT_TRUE(FusionMayDuplicate(*e.GetInstruction("cheap"), 5, limits));
  EXPECT_FALSE(FusionMayDuplicate(*e.GetInstruction("t"), 1, limits));
  EXPECT_TRUE(FusionMayFuseConstant(*e.GetInstruction("c1"), limits));
  EXPECT_FALSE(FusionMayFuseConstant(*e.GetInstruction("c2"), limits));
  EXPECT_FALSE(FusionMayFuseConstant(*e.GetInstruction("a"), limits));
  limits.max_duplicated_expensive_elements = 4;
  EXPECT_FALSE(FusionMayDuplicate(*e.GetInstruction("small"), 3, limits));
}

TEST(FusionCostModel, RecomputingDataMovementIsALoad) {
  for (HloOpcode op : {HloOpcode::kBroadcast, HloOpcode::kReshape, HloOpcode::kSlice, HloOpcode::kPad,
                       HloOpcode::kConcatenate, HloOpcode::kCopy, HloOpcode::kTranspose}) {
    EXPECT_TRUE(FusionRecomputeIsALoad(op)) << HloOpcodeName(op);
  }
  for (HloOpcode op : {HloOpcode::kAdd, HloOpcode::kMaximum, HloOpcode::kConvert, HloOpcode::kExp,
                       HloOpcode::kReduce, HloOpcode::kFusion, HloOpcode::kSelect}) {
    EXPECT_FALSE(FusionRecomputeIsALoad(op)) << HloOpcodeName(op);
  }
}

}  // namespace
}  // namespace xla
