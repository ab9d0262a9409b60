#include <memory>

#include "gtest/gtest.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/ir/literal.h"

namespace xla {
namespace {

TEST(PrimitiveType, TableLookups) {
  EXPECT_EQ(PrimitiveTypeName(PrimitiveType::BF16), "bf16");
  EXPECT_EQ(PrimitiveTypeFromName("f8e4m3fn"), PrimitiveType::F8E4M3FN);
  EXPECT_FALSE(PrimitiveTypeFromName("f33").has_value());
  EXPECT_EQ(ByteWidth(PrimitiveType::S4), 1);
  EXPECT_EQ(ByteWidth(PrimitiveType::C128), 16);
}

TEST(Opcode, TableLookups) {
  EXPECT_EQ(HloOpcodeName(HloOpcode::kExp), "exponential");
  EXPECT_EQ(HloOpcodeFromName("dynamic-update-slice"), HloOpcode::kDynamicUpdateSlice);
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kSelect), 3);
  EXPECT_TRUE(IsElementwise(HloOpcode::kAdd));
  EXPECT_FALSE(IsElementwise(HloOpcode::kDot));
}

TEST(Shape, ToStringAndElementCount) {
  Shape s = Shape::Array(PrimitiveType::F32, {2, 3});
  EXPECT_EQ(s.ToString(), "f32[2,3]{1,0}");
  EXPECT_EQ(*s.ElementCount(), 6);
  Shape t = Shape::Tuple({s, Shape::Scalar(PrimitiveType::S32), Shape::Token()});
  EXPECT_EQ(t.ToString(false), "(f32[2,3], s32[], token[])");
  Shape d = Shape::Array(PrimitiveType::F32, {});
  d.add_dimension(4, /*dynamic=*/true);
  d.add_dimension(kUnboundedSize);
  d.clear_layout();
  EXPECT_EQ(d.ToString(), "f32[<=4,?]");
  Shape huge = Shape::Array(PrimitiveType::F32, {1ll << 40, 1ll << 40});
  EXPECT_FALSE(huge.ElementCount().has_value());
}

TEST(Literal, ElementsAndText) {
  Literal l(Shape::Array(PrimitiveType::BF16, {2, 3}));
  for (int i = 0; i < 6; ++i) l.SetDouble(i, 0.5 * i - 1);
  EXPECT_EQ(l.ToString(), "{ {-1, -0.5, 0}, {0.5, 1, 1.5} }");
  l.SetDouble(0, 1.001e-05);
  EXPECT_EQ(l.ElementToString(0), "1e-05");  // same bf16 value, fewer digits
  Literal s4(Shape::Array(PrimitiveType::S4, {3}));
  s4.SetInt(0, -8);
  s4.SetInt(1, 7);
  s4.SetInt(2, 9);  // wraps to -7
  EXPECT_EQ(s4.ToString(), "{-8, 7, -7}");
  Literal c(Shape::Scalar(PrimitiveType::C64));
  c.SetComplex(0, {1.5, -2});
  EXPECT_EQ(c.ToString(), "(1.5, -2)");
  Literal p(Shape::Array(PrimitiveType::PRED, {2}));
  p.SetInt(1, 5);
  EXPECT_EQ(p.ToString(), "{false, true}");
  Literal f(Shape::Array(PrimitiveType::F32, {3}));
  f.SetDouble(0, 0.1);
  f.SetDouble(1, -std::numeric_limits<double>::infinity());
  f.SetDouble(2, std::nan(""));
  EXPECT_EQ(f.ToString(), "{0.1, -inf, nan}");
}

TEST(Computation, PostOrderAndUsers) {
  HloModule module("m");
  auto comp = std::make_unique<HloComputation>("c");
  HloComputation* c = module.AddComputation(std::move(comp));
  Shape s = Shape::Scalar(PrimitiveType::F32);
  HloInstruction* p0 = c->AddInstruction(HloInstruction::CreateParameter(0, s, "p0"));
  HloInstruction* p1 = c->AddInstruction(HloInstruction::CreateParameter(1, s, "p1"));
  HloInstruction* add =
      c->AddInstruction(HloInstruction::Create(HloOpcode::kAdd, s, {p0, p1}, "add"));
  HloInstruction* mul =
      c->AddInstruction(HloInstruction::Create(HloOpcode::kMultiply, s, {add, add}, "mul"));
  c->set_root_instruction(mul);
  EXPECT_EQ(add->users().size(), 1u);
  EXPECT_EQ(mul->ToString(), "mul = f32[] multiply(add, add)");
  std::vector<HloInstruction*> order = c->MakePostOrder();
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order.back(), mul);
  add->SetAttr(AttrId::kMetadata, std::string("{op_name=\"x\"}"));
  add->SetAttr(AttrId::kDimensions, std::vector<int64_t>{1, 0});
  EXPECT_EQ(add->ToString(), "add = f32[] add(p0, p1), dimensions={1,0}, metadata={op_name=\"x\"}");
  EXPECT_EQ(c->ComputeProgramShape().ToString(), "(p0: f32[], p1: f32[]) -> f32[]");
}

TEST(ReplicaGroups, IotaExpansion) {
  ReplicaGroups g;
  g.iota = true;
  g.group_dims = {2, 4};
  g.reshape_dims = {4, 2};
  g.transpose = {1, 0};
  std::vector<std::vector<int64_t>> expected = {{0, 2, 4, 6}, {1, 3, 5, 7}};
  EXPECT_EQ(g.Expand(), expected);
  g.transpose.clear();
  g.reshape_dims = {8};
  expected = {{0, 1, 2, 3}, {4, 5, 6, 7}};
  EXPECT_EQ(g.Expand(), expected);
  // Invalid forms expand to nothing instead of reading out of bounds.
  g.transpose = {3, 0};
  EXPECT_TRUE(g.Expand().empty());
  g.transpose.clear();
  g.reshape_dims = {int64_t{1} << 40};
  EXPECT_TRUE(g.Expand().empty());
}

}  // namespace
}  // namespace xla
