#include "xla/hlo/transforms/hlo_dce.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

bool IsRemovable(const HloInstruction& instr, const HloComputation& c,
                 const absl::flat_hash_set<const HloInstruction*>& control_preds) {
  return instr.users().empty() && &instr != c.root_instruction() &&
         instr.opcode() != HloOpcode::kParameter && !control_preds.contains(&instr) &&
         !HasSideEffect(instr);
}

}  // namespace

bool RemoveDeadInstructions(HloComputation* computation) {
  const absl::flat_hash_set<const HloInstruction*> control_preds = ControlPredecessorSet(*computation);
  // Users before operands, so a whole dead chain goes in one sweep.
  std::vector<HloInstruction*> order = computation->MakePostOrder();
  bool changed = false;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* instr = *it;
    if (!IsRemovable(*instr, *computation, control_preds)) continue;
    changed |= computation->RemoveInstruction(instr);
  }
  return changed;
}

bool RemoveUnreachableComputations(HloModule* module) {
  if (module->entry_computation() == nullptr) return false;
  absl::flat_hash_set<const HloComputation*> reachable;
  std::vector<const HloComputation*> stack = {module->entry_computation()};
  reachable.insert(module->entry_computation());
  while (!stack.empty()) {
    const HloComputation* c = stack.back();
    stack.pop_back();
    for (const auto& instr : c->instructions()) {
      for (const HloComputation* callee : instr->called_computations()) {
        if (callee != nullptr && reachable.insert(callee).second) stack.push_back(callee);
      }
    }
  }
  // Callers before callees, so each removal frees the next.
  std::vector<HloComputation*> order = module->MakeComputationPostOrder();
  bool changed = false;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (!reachable.contains(*it)) changed |= module->RemoveComputation(*it);
  }
  return changed;
}

absl::StatusOr<bool> HloDCE::Run(HloModule* module) {
  bool changed = false;
  for (const auto& computation : module->computations()) {
    changed |= RemoveDeadInstructions(computation.get());
  }
  changed |= RemoveUnreachableComputations(module);
  return changed;
}

}  // namespace xla
