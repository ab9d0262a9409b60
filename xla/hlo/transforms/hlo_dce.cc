#include "xla/hlo/transforms/hlo_dce.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {

bool RemoveDeadInstructions(HloComputation* computation) {
  const absl::flat_hash_set<const HloInstruction*> control_preds = ControlPredecessorSet(*computation);
  // Users before operands: an instruction is dead when every user is dead.
  std::vector<HloInstruction*> order = computation->MakePostOrder();
  absl::flat_hash_set<const HloInstruction*> dead_set;
  std::vector<HloInstruction*> dead;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    HloInstruction* instr = *it;
    const bool users_dead = std::all_of(instr->users().begin(), instr->users().end(),
                                        [&](const HloInstruction* u) { return dead_set.contains(u); });
    if (!users_dead || instr == computation->root_instruction() ||
        instr->opcode() == HloOpcode::kParameter || control_preds.contains(instr) ||
        HasSideEffect(*instr)) {
      continue;
    }
    dead_set.insert(instr);
    dead.push_back(instr);
  }
  return computation->RemoveInstructions(dead) > 0;
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
  std::vector<HloComputation*> unreachable;
  for (const auto& c : module->computations()) {
    if (!reachable.contains(c.get())) unreachable.push_back(c.get());
  }
  return module->RemoveComputations(unreachable) > 0;
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
