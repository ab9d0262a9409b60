#include "xla/hlo/transforms/tuple_simplifier.h"

#include <vector>

#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

HloInstruction* ForwardedTupleOperand(const HloInstruction& gte) {
  const HloInstruction* tuple = gte.operand(0);
  if (tuple->opcode() != HloOpcode::kTuple) return nullptr;
  const int64_t index = gte.tuple_index();
  if (index < 0 || index >= tuple->operand_count()) return nullptr;
  return tuple->operand(index);
}

HloInstruction* RepackedSource(const HloInstruction& tuple) {
  if (tuple.operand_count() == 0) return nullptr;
  HloInstruction* source = nullptr;
  for (int64_t i = 0; i < tuple.operand_count(); ++i) {
    const HloInstruction* op = tuple.operand(i);
    if (op->opcode() != HloOpcode::kGetTupleElement || op->tuple_index() != i) return nullptr;
    if (source == nullptr) source = op->operand(0);
    if (op->operand(0) != source) return nullptr;
  }
  if (source->shape().tuple_shapes_size() != tuple.operand_count()) return nullptr;
  if (!ShapesCompatible(source->shape(), tuple.shape(), /*ignore_dynamic=*/true)) return nullptr;
  return source;
}

}  // namespace

HloInstruction* SimplifiedTupleValue(const HloInstruction& instr) {
  if (instr.opcode() == HloOpcode::kGetTupleElement) return ForwardedTupleOperand(instr);
  if (instr.opcode() == HloOpcode::kTuple) return RepackedSource(instr);
  return nullptr;
}

absl::StatusOr<bool> TupleSimplifier::Run(HloModule* module) {
  bool changed = false;
  for (const auto& computation : module->computations()) {
    for (HloInstruction* instr : computation->MakePostOrder()) {
      HloInstruction* replacement = SimplifiedTupleValue(*instr);
      if (replacement == nullptr) continue;
      if (ReplaceInstruction(instr, replacement).ok()) changed = true;
    }
  }
  return changed;
}

}  // namespace xla
