#include "xla/hlo/transforms/while_loop_invariant_code_motion.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_dce.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

using InstrSet = absl::flat_hash_set<const HloInstruction*>;

// Opcodes never hoisted: control flow, opaque calls, tuples and parameters.
constexpr HloOpcode kNeverHoisted[] = {
    HloOpcode::kCall,     HloOpcode::kConditional, HloOpcode::kCustomCall,
    HloOpcode::kFusion,   HloOpcode::kParameter,   HloOpcode::kTuple,
    HloOpcode::kGetTupleElement, HloOpcode::kWhile, HloOpcode::kOptimizationBarrier,
    HloOpcode::kDomain,
};

// Frontier opcodes not worth a tuple element: they cost nothing.
constexpr HloOpcode kFreeOps[] = {HloOpcode::kReshape, HloOpcode::kBitcast, HloOpcode::kBroadcast};

template <size_t N>
bool In(const HloOpcode (&table)[N], HloOpcode op) {
  return std::find(std::begin(table), std::end(table), op) != std::end(table);
}

absl::flat_hash_map<const HloComputation*, int> CallSiteCounts(const HloModule& module) {
  absl::flat_hash_map<const HloComputation*, int> counts;
  for (const auto& c : module.computations()) {
    for (const auto& instr : c->instructions()) {
      for (const HloComputation* callee : instr->called_computations()) ++counts[callee];
    }
  }
  return counts;
}

bool ParamReadOnlyThroughGte(const HloComputation& c) {
  if (c.num_parameters() != 1 || c.parameter_instruction(0) == nullptr) return false;
  const HloInstruction* param = c.parameter_instruction(0);
  if (param == c.root_instruction()) return false;
  for (const HloInstruction* user : param->users()) {
    if (user->opcode() != HloOpcode::kGetTupleElement) return false;
  }
  return true;
}

struct Loop {
  HloInstruction* while_instr;
  HloComputation* body;
  HloComputation* cond;
  int64_t size;  // tuple elements before hoisting
};

bool IsRewritable(const Loop& loop, const absl::flat_hash_map<const HloComputation*, int>& calls,
                  const InstrSet& parent_control_preds) {
  const HloInstruction* w = loop.while_instr;
  if (!w->shape().IsTuple() || loop.body == nullptr || loop.cond == nullptr) return false;
  if (loop.body == loop.cond || calls.at(loop.body) != 1 || calls.at(loop.cond) != 1) return false;
  if (!w->control_predecessors().empty() || parent_control_preds.contains(w)) return false;
  const HloInstruction* root = loop.body->root_instruction();
  if (root->opcode() != HloOpcode::kTuple || root->operand_count() != loop.size) return false;
  return ParamReadOnlyThroughGte(*loop.body) && ParamReadOnlyThroughGte(*loop.cond);
}

// Body instructions whose value is the same in every iteration.
InstrSet FindInvariants(const Loop& loop) {
  const HloComputation& body = *loop.body;
  const HloInstruction* param = body.parameter_instruction(0);
  const HloInstruction* root = body.root_instruction();
  const InstrSet control_preds = ControlPredecessorSet(body);
  InstrSet invariant;
  for (const HloInstruction* instr : body.MakePostOrder()) {
    if (instr->opcode() == HloOpcode::kGetTupleElement && instr->operand(0) == param) {
      const int64_t j = instr->tuple_index();
      const HloInstruction* passed = root->operand(j);
      if (passed->opcode() == HloOpcode::kGetTupleElement && passed->operand(0) == param &&
          passed->tuple_index() == j) {
        invariant.insert(instr);
      }
      continue;
    }
    if (instr->opcode() == HloOpcode::kConstant) {
      invariant.insert(instr);
      continue;
    }
    if (In(kNeverHoisted, instr->opcode()) || IsRngOpcode(instr->opcode()) ||
        instr->operand_count() == 0 || !instr->shape().IsArray() ||
        !instr->control_predecessors().empty() || control_preds.contains(instr) ||
        HasSideEffect(*instr)) {
      continue;
    }
    bool all = true;
    for (const HloInstruction* op : instr->operands()) all &= invariant.contains(op);
    if (all) invariant.insert(instr);
  }
  return invariant;
}

bool GrowsData(const HloInstruction& instr) {
  int64_t in = 0;
  for (const HloInstruction* op : instr.operands()) in += ElementCountOrZero(op->shape());
  return ElementCountOrZero(instr.shape()) > in;
}

// Invariant instructions worth hoisting that the loop-variant rest uses.
std::vector<HloInstruction*> FindFrontier(const Loop& loop, const InstrSet& invariant) {
  std::vector<HloInstruction*> frontier;
  for (HloInstruction* instr : loop.body->MakePostOrder()) {
    if (!invariant.contains(instr) || instr->opcode() == HloOpcode::kGetTupleElement ||
        instr->opcode() == HloOpcode::kConstant || In(kFreeOps, instr->opcode()) ||
        GrowsData(*instr)) {
      continue;
    }
    bool used_by_variant = false;
    for (const HloInstruction* user : instr->users()) used_by_variant |= !invariant.contains(user);
    if (used_by_variant) frontier.push_back(instr);
  }
  return frontier;
}

// The loop's initial tuple elements, as values of the loop's parent.
class InitElements {
 public:
  InitElements(HloInstruction* init, NameUniquer* names)
      : init_(init), names_(names), cache_(init->shape().tuple_shapes_size(), nullptr) {}

  HloInstruction* Get(int64_t j) {
    if (init_->opcode() == HloOpcode::kTuple) return init_->operand(j);
    if (cache_[j] != nullptr) return cache_[j];
    auto gte = HloInstruction::Create(HloOpcode::kGetTupleElement, init_->shape().tuple_shapes(j),
                                      {init_}, names_->Unique("get-tuple-element"));
    gte->SetAttr(AttrId::kIndex, j);
    cache_[j] = init_->parent()->AddInstruction(std::move(gte));
    return cache_[j];
  }

 private:
  HloInstruction* init_;
  NameUniquer* names_;
  std::vector<HloInstruction*> cache_;
};

// Invariant instructions the frontier depends on (the frontier included).
InstrSet NeededForFrontier(const InstrSet& invariant, const std::vector<HloInstruction*>& frontier) {
  InstrSet needed(frontier.begin(), frontier.end());
  std::vector<const HloInstruction*> stack(frontier.begin(), frontier.end());
  while (!stack.empty()) {
    const HloInstruction* instr = stack.back();
    stack.pop_back();
    for (const HloInstruction* op : instr->operands()) {
      if (invariant.contains(op) && needed.insert(op).second) stack.push_back(op);
    }
  }
  return needed;
}

// Clones the invariant instructions the frontier needs into the loop's
// parent. Returns the parent-side value of each body instruction cloned.
absl::flat_hash_map<const HloInstruction*, HloInstruction*> CloneOutside(
    const Loop& loop, const InstrSet& invariant, const std::vector<HloInstruction*>& frontier,
    InitElements* elements, NameUniquer* names) {
  HloComputation* parent = loop.while_instr->parent();
  const InstrSet needed = NeededForFrontier(invariant, frontier);
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> outside;
  for (const HloInstruction* instr : loop.body->MakePostOrder()) {
    if (!needed.contains(instr)) continue;
    if (instr->opcode() == HloOpcode::kGetTupleElement) {
      outside[instr] = elements->Get(instr->tuple_index());
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* op : instr->operands()) operands.push_back(outside.at(op));
    outside[instr] = parent->AddInstruction(
        instr->CloneWithNewOperands(instr->shape(), operands, names->Unique(instr->name())));
  }
  return outside;
}

// Inside the body, replaces each frontier instruction by a gte of a new
// state element and passes that element through the root.
absl::Status RewireBody(const Loop& loop, const std::vector<HloInstruction*>& frontier,
                        const Shape& new_shape) {
  HloInstruction* param = loop.body->parameter_instruction(0);
  *param->mutable_shape() = new_shape;
  *loop.cond->parameter_instruction(0)->mutable_shape() = new_shape;
  NameUniquer names(*loop.body);
  std::vector<HloInstruction*> passed;
  for (size_t k = 0; k < frontier.size(); ++k) {
    auto gte = HloInstruction::Create(HloOpcode::kGetTupleElement, frontier[k]->shape(), {param},
                                      names.Unique("get-tuple-element"));
    gte->SetAttr(AttrId::kIndex, loop.size + static_cast<int64_t>(k));
    passed.push_back(loop.body->AddInstruction(std::move(gte)));
    absl::Status replaced = frontier[k]->ReplaceAllUsesWith(passed.back());
    if (!replaced.ok()) return replaced;
  }
  HloInstruction* root = loop.body->root_instruction();
  for (HloInstruction* p : passed) root->AppendOperand(p);
  *root->mutable_shape() = new_shape;
  RemoveDeadInstructions(loop.body);
  return absl::OkStatus();
}

// Replaces the loop by one with the wider state; users see the old elements.
absl::Status ReplaceLoop(const Loop& loop, HloInstruction* new_init, const Shape& new_shape,
                         NameUniquer* names) {
  HloInstruction* old = loop.while_instr;
  HloComputation* parent = old->parent();
  const std::string name = old->name();
  HloInstruction* loop2 = parent->AddInstruction(
      old->CloneWithNewOperands(new_shape, {new_init}, names->Unique(name)));
  std::vector<HloInstruction*> firsts;
  for (int64_t j = 0; j < loop.size; ++j) {
    auto gte = HloInstruction::Create(HloOpcode::kGetTupleElement, old->shape().tuple_shapes(j),
                                      {loop2}, names->Unique("get-tuple-element"));
    gte->SetAttr(AttrId::kIndex, j);
    firsts.push_back(parent->AddInstruction(std::move(gte)));
  }
  HloInstruction* repack = parent->AddInstruction(
      HloInstruction::Create(HloOpcode::kTuple, old->shape(), firsts, names->Unique("tuple")));
  absl::Status replaced = ReplaceInstruction(old, repack);
  if (!replaced.ok()) {
    return absl::InternalError(absl::StrCat("while '", name, "': ", replaced.message()));
  }
  if (parent->GetInstruction(name) == nullptr) loop2->set_name(name);
  return absl::OkStatus();
}

// Hoists what it can out of one loop; false when nothing was hoisted.
absl::StatusOr<bool> HoistFromLoop(const Loop& loop) {
  const InstrSet invariant = FindInvariants(loop);
  const std::vector<HloInstruction*> frontier = FindFrontier(loop, invariant);
  if (frontier.empty()) return false;
  HloComputation* parent = loop.while_instr->parent();
  NameUniquer names(*parent);
  InitElements elements(loop.while_instr->operand(0), &names);
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> outside =
      CloneOutside(loop, invariant, frontier, &elements, &names);
  std::vector<Shape> shapes = loop.while_instr->shape().tuple_shapes();
  std::vector<HloInstruction*> init_operands;
  for (int64_t j = 0; j < loop.size; ++j) init_operands.push_back(elements.Get(j));
  for (const HloInstruction* f : frontier) {
    shapes.push_back(f->shape());
    init_operands.push_back(outside.at(f));
  }
  const Shape new_shape = Shape::Tuple(shapes);
  HloInstruction* new_init = parent->AddInstruction(
      HloInstruction::Create(HloOpcode::kTuple, new_shape, init_operands, names.Unique("tuple")));
  absl::Status rewired = RewireBody(loop, frontier, new_shape);
  if (!rewired.ok()) return rewired;
  absl::Status replaced = ReplaceLoop(loop, new_init, new_shape, &names);
  if (!replaced.ok()) return replaced;
  return true;
}

}  // namespace

absl::StatusOr<bool> WhileLoopInvariantCodeMotion::Run(HloModule* module) {
  const absl::flat_hash_map<const HloComputation*, int> calls = CallSiteCounts(*module);
  std::vector<Loop> loops;
  // Callees first: inner loops before the loops whose bodies hold them.
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    const InstrSet control_preds = ControlPredecessorSet(*computation);
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kWhile) continue;
      Loop loop{instr.get(), instr->GetComputation(AttrId::kBody),
                instr->GetComputation(AttrId::kCondition), 0};
      if (instr->shape().IsTuple()) loop.size = instr->shape().tuple_shapes_size();
      if (IsRewritable(loop, calls, control_preds)) loops.push_back(loop);
    }
  }
  bool changed = false;
  for (const Loop& loop : loops) {
    absl::StatusOr<bool> hoisted = HoistFromLoop(loop);
    if (!hoisted.ok()) return hoisted.status();
    changed |= *hoisted;
  }
  return changed;
}

}  // namespace xla
