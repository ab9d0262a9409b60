#include "xla/hlo/transforms/constant_folding.h"

#include <memory>
#include <vector>

#include "xla/hlo/evaluator/hlo_evaluator.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

bool AllOperandsConstant(const HloInstruction& instr) {
  for (const HloInstruction* op : instr.operands()) {
    if (op->opcode() != HloOpcode::kConstant || !op->has_literal() || op->literal().elided()) {
      return false;
    }
  }
  return true;
}

int64_t OperandElements(const HloInstruction& instr) {
  int64_t total = 0;
  for (const HloInstruction* op : instr.operands()) {
    if (!op->shape().IsArray()) return -1;  // tuple constants: not counted, not folded
    total += ElementCountOrZero(op->shape());
  }
  return total;
}

bool IsFoldable(const HloInstruction& instr, const ConstantFoldingOptions& options,
                const absl::flat_hash_set<const HloInstruction*>& control_preds) {
  const HloOpcode op = instr.opcode();
  if (op == HloOpcode::kConstant || op == HloOpcode::kParameter || op == HloOpcode::kBroadcast ||
      IsRngOpcode(op)) {
    return false;
  }
  if (instr.operand_count() == 0 && op != HloOpcode::kIota) return false;
  if (!instr.shape().IsArray() || !instr.shape().is_static()) return false;
  const int64_t elements = ElementCountOrZero(instr.shape());
  if (elements > options.max_result_elements) return false;
  if (!AllOperandsConstant(instr)) return false;
  const int64_t operand_elements = OperandElements(instr);
  if (operand_elements < 0 || operand_elements > options.max_operand_elements) return false;
  if (!instr.control_predecessors().empty() || control_preds.contains(&instr)) return false;
  return !HasSideEffect(instr);
}

// Evaluates `instr` on its constant operands in a scratch computation.
absl::StatusOr<Literal> Evaluate(const HloInstruction& instr) {
  HloComputation scratch("constant_folding_scratch");
  std::vector<HloInstruction*> operands;
  for (int64_t i = 0; i < instr.operand_count(); ++i) {
    const HloInstruction* op = instr.operand(i);
    operands.push_back(scratch.AddInstruction(op->CloneWithNewOperands(op->shape(), {}, op->name())));
  }
  HloInstruction* root =
      scratch.AddInstruction(instr.CloneWithNewOperands(instr.shape(), operands, instr.name()));
  scratch.set_root_instruction(root);
  EvaluatorOptions options;
  options.max_while_iterations = 1024;
  return HloEvaluator(options).EvaluateComputation(scratch, {});
}

bool FoldComputation(HloComputation* computation, const ConstantFoldingOptions& options) {
  const absl::flat_hash_set<const HloInstruction*> control_preds = ControlPredecessorSet(*computation);
  bool changed = false;
  for (HloInstruction* instr : computation->MakePostOrder()) {
    if (!IsFoldable(*instr, options, control_preds)) continue;
    absl::StatusOr<Literal> value = Evaluate(*instr);
    if (!value.ok()) continue;
    const std::string name = instr->name();
    auto constant = HloInstruction::CreateConstant(std::move(*value), name + ".folded");
    *constant->mutable_shape() = instr->shape();
    HloInstruction* folded = computation->AddInstruction(std::move(constant));
    if (!ReplaceInstruction(instr, folded).ok()) {
      computation->RemoveInstruction(folded);
      continue;
    }
    // Keep the original name when it is free again.
    if (computation->GetInstruction(name) == nullptr) folded->set_name(name);
    changed = true;
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> ConstantFolding::Run(HloModule* module) {
  bool changed = false;
  for (const auto& computation : module->computations()) {
    changed |= FoldComputation(computation.get(), options_);
  }
  return changed;
}

}  // namespace xla
