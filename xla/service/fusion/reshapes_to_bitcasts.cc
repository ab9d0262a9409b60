#include "xla/service/fusion/reshapes_to_bitcasts.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_module.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/service/canonicalize/rewrite_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

using canonicalize::IsRowMajorOrUnset;

bool SameBytes(const Shape& from, const Shape& to) {
  return from.IsArray() && to.IsArray() && from.is_static() && to.is_static() &&
         from.element_type() == to.element_type() && from.ElementCount() == to.ElementCount() &&
         IsRowMajorOrUnset(from) && IsRowMajorOrUnset(to);
}

// True when `fused` (a fused computation) computes reshapes/bitcasts of its
// only parameter that move no byte.
bool IsReshapeOnlyComputation(const HloComputation& fused) {
  const HloInstruction* at = fused.root_instruction();
  while (at != nullptr && (at->opcode() == HloOpcode::kReshape ||
                           at->opcode() == HloOpcode::kBitcast)) {
    if (!SameBytes(at->operand(0)->shape(), at->shape())) return false;
    at = at->operand(0);
  }
  return at != nullptr && at != fused.root_instruction() &&
         at->opcode() == HloOpcode::kParameter && fused.instruction_count() >= 2;
}

}  // namespace

bool IsBitcastReshape(const HloInstruction& instr) {
  if (instr.operand_count() != 1 || !SameBytes(instr.operand(0)->shape(), instr.shape())) {
    return false;
  }
  if (instr.opcode() == HloOpcode::kReshape) return true;
  if (instr.opcode() != HloOpcode::kFusion || instr.GetString(AttrId::kFusionKind) != "kLoop") {
    return false;
  }
  const std::vector<HloComputation*> called = instr.called_computations();
  return called.size() == 1 && IsReshapeOnlyComputation(*called[0]);
}

bool BecomesBitcast(const HloInstruction& instr) {
  const HloComputation* comp = instr.parent();
  const HloInstruction* root = comp == nullptr ? nullptr : comp->root_instruction();
  if (root == nullptr || &instr == root || !IsBitcastReshape(instr) ||
      !instr.control_predecessors().empty() || !instr.control_successors().empty()) {
    return false;
  }
  // An element of the root tuple is a result of the computation.
  for (const HloInstruction* user : instr.users()) {
    if (user == root && root->opcode() == HloOpcode::kTuple) return false;
  }
  return true;
}

absl::StatusOr<bool> ReshapesToBitcasts::Run(HloModule* module) {
  absl::flat_hash_set<const HloComputation*> fused;
  for (const auto& comp : module->computations()) {
    for (const auto& instr : comp->instructions()) {
      if (instr->opcode() != HloOpcode::kFusion) continue;
      for (const HloComputation* c : instr->called_computations()) fused.insert(c);
    }
  }
  bool changed = false;
  for (const auto& comp : module->computations()) {
    if (fused.contains(comp.get())) continue;
    std::vector<HloInstruction*> candidates;
    for (const auto& instr : comp->instructions()) {
      if (BecomesBitcast(*instr)) candidates.push_back(instr.get());
    }
    NameUniquer names(*comp);
    for (HloInstruction* instr : candidates) {
      HloInstruction* bitcast = canonicalize::AddOp(comp.get(), &names, HloOpcode::kBitcast,
                                                    instr->shape(), {instr->operands()[0]},
                                                    instr->name() + ".bitcast");
      RETURN_IF_ERROR(ReplaceInstruction(instr, bitcast));
      changed = true;
    }
    if (!candidates.empty()) comp->SortInstructionsInPostOrder();
  }
  return changed;
}

}  // namespace xla
