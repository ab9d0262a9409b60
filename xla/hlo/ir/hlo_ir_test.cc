#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/types/literal.h"

namespace xla {
namespace {

TEST(Opcode, TableLookups) {
  EXPECT_EQ(HloOpcodeName(HloOpcode::kExp), "exponential");
  EXPECT_EQ(HloOpcodeFromName("dynamic-update-slice"), HloOpcode::kDynamicUpdateSlice);
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kSelect), 3);
  EXPECT_TRUE(IsElementwise(HloOpcode::kAdd));
  EXPECT_FALSE(IsElementwise(HloOpcode::kDot));
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

TEST(Computation, MutationHelpers) {
  HloModule module("m");
  HloComputation* c = module.AddComputation(std::make_unique<HloComputation>("c"));
  Shape s = Shape::Scalar(PrimitiveType::F32);
  HloInstruction* p0 = c->AddInstruction(HloInstruction::CreateParameter(0, s, "p0"));
  HloInstruction* neg = c->AddInstruction(HloInstruction::Create(HloOpcode::kNegate, s, {p0}, "neg"));
  HloInstruction* add = c->AddInstruction(HloInstruction::Create(HloOpcode::kAdd, s, {neg, neg}, "add"));
  c->set_root_instruction(add);
  // Replace neg by a clone of itself; the old one becomes dead.
  HloInstruction* neg2 = c->AddInstruction(neg->CloneWithNewOperands(s, {p0}, c->UniqueInstructionName("neg")));
  EXPECT_EQ(neg2->name(), "neg.1");
  ASSERT_TRUE(neg->ReplaceAllUsesWith(neg2).ok());
  EXPECT_EQ(add->operand(0), neg2);
  EXPECT_EQ(add->operand(1), neg2);
  EXPECT_TRUE(neg->users().empty());
  EXPECT_TRUE(c->RemoveInstruction(neg));
  EXPECT_EQ(c->GetInstruction("neg"), nullptr);
  // Replacing the root moves the root.
  HloInstruction* mul = c->AddInstruction(HloInstruction::Create(HloOpcode::kMultiply, s, {p0, p0}, "mul"));
  ASSERT_TRUE(add->ReplaceAllUsesWith(mul).ok());
  EXPECT_EQ(c->root_instruction(), mul);
  // Shape mismatch is refused.
  HloInstruction* vec = c->AddInstruction(HloInstruction::CreateParameter(1, Shape::Array(PrimitiveType::F32, {3}), "v"));
  EXPECT_FALSE(mul->ReplaceAllUsesWith(vec).ok());
  EXPECT_FALSE(c->RemoveInstruction(mul));  // the root
  EXPECT_EQ(module.UniqueComputationName("c"), "c.1");
  module.set_entry_computation(c);
  EXPECT_FALSE(module.RemoveComputation(c));  // the entry
  HloComputation* d = module.AddComputation(std::make_unique<HloComputation>("d"));
  mul->SetAttr(AttrId::kToApply, d);
  EXPECT_FALSE(module.RemoveComputation(d));  // called by mul
  mul->ClearAttr(AttrId::kToApply);
  EXPECT_TRUE(module.RemoveComputation(d));
  // Batch removal keeps the entry and whatever a kept computation calls.
  HloComputation* x = module.AddComputation(std::make_unique<HloComputation>("x"));
  HloComputation* y = module.AddComputation(std::make_unique<HloComputation>("y"));
  Shape scalar = Shape::Scalar(PrimitiveType::F32);
  HloInstruction* xp = x->AddInstruction(HloInstruction::CreateParameter(0, scalar, "xp"));
  HloInstruction* call = x->AddInstruction(HloInstruction::Create(HloOpcode::kCall, scalar, {xp}, "call"));
  call->SetAttr(AttrId::kToApply, y);
  x->set_root_instruction(call);
  const size_t count = module.computations().size();
  EXPECT_EQ(module.RemoveComputations({y, c}), 0);  // y is called by x; c is the entry
  EXPECT_EQ(module.RemoveComputations({x, y}), 2);
  EXPECT_EQ(module.computations().size(), count - 2);
  EXPECT_EQ(module.computations().size(), 1u);
}

TEST(Computation, BatchRemovalControlEdgesAndSort) {
  HloModule module("m");
  HloComputation* c = module.AddComputation(std::make_unique<HloComputation>("c"));
  Shape s = Shape::Scalar(PrimitiveType::F32);
  HloInstruction* p0 = c->AddInstruction(HloInstruction::CreateParameter(0, s, "p0"));
  HloInstruction* neg = c->AddInstruction(HloInstruction::Create(HloOpcode::kNegate, s, {p0}, "neg"));
  HloInstruction* abs = c->AddInstruction(HloInstruction::Create(HloOpcode::kAbs, s, {neg}, "abs"));
  HloInstruction* exp = c->AddInstruction(HloInstruction::Create(HloOpcode::kExp, s, {p0}, "exp"));
  HloInstruction* keep = c->AddInstruction(HloInstruction::Create(HloOpcode::kSign, s, {p0}, "keep"));
  c->set_root_instruction(exp);
  // `keep` is a control predecessor of the root: it must survive.
  exp->AddControlPredecessor(keep);
  ASSERT_EQ(keep->control_successors().size(), 1u);
  EXPECT_FALSE(c->RemoveInstruction(keep));
  // `neg` alone is still used by `abs`; together they go.
  EXPECT_EQ(c->RemoveInstructions({neg}), 0);
  EXPECT_EQ(c->RemoveInstructions({abs, neg, keep, exp}), 2);
  EXPECT_EQ(c->instruction_count(), 3);
  EXPECT_EQ(p0->users().size(), 2u);  // exp and keep
  exp->DropControlEdges();
  EXPECT_TRUE(keep->control_successors().empty());
  EXPECT_TRUE(c->RemoveInstruction(keep));

  // A user added before its operand is moved after it.
  HloInstruction* late_user =
      c->AddInstruction(HloInstruction::Create(HloOpcode::kNegate, s, {exp}, "late_user"));
  HloInstruction* sq =
      c->AddInstruction(HloInstruction::Create(HloOpcode::kSqrt, s, {p0}, "sq"));
  late_user->ReplaceOperandWith(0, sq);
  c->set_root_instruction(late_user);
  c->SortInstructionsInPostOrder();
  std::vector<std::string> names;
  for (const auto& i : c->instructions()) names.push_back(i->name());
  auto pos = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) - names.begin(); };
  EXPECT_LT(pos("sq"), pos("late_user"));
  EXPECT_LT(pos("p0"), pos("sq"));
  EXPECT_EQ(names.size(), 4u);

  // An explicit order; a list that misses or repeats an instruction is refused.
  std::vector<const HloInstruction*> order;
  for (auto it = c->instructions().rbegin(); it != c->instructions().rend(); ++it) {
    order.push_back(it->get());
  }
  ASSERT_TRUE(c->ReorderInstructions(order));
  EXPECT_EQ(c->instructions().front()->name(), names.back());
  order.pop_back();
  EXPECT_FALSE(c->ReorderInstructions(order));
  order.push_back(order.front());
  EXPECT_FALSE(c->ReorderInstructions(order));
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
