#include "xla/hlo/transforms/async_copy_converter.h"

#include <vector>

#include "xla/hlo/transforms/hlo_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool IsConvertible(const HloInstruction& done,
                   const absl::flat_hash_set<const HloInstruction*>& control_preds) {
  if (done.opcode() != HloOpcode::kCopyDone || done.operand_count() != 1) return false;
  const HloInstruction& start = *done.operand(0);
  return start.opcode() == HloOpcode::kCopyStart && start.operand_count() == 1 &&
         start.users().size() == 1 && done.control_predecessors().empty() &&
         start.control_predecessors().empty() && !control_preds.contains(&done) &&
         !control_preds.contains(&start);
}

}  // namespace

absl::StatusOr<bool> AsyncCopyConverter::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    const absl::flat_hash_set<const HloInstruction*> control_preds =
        ControlPredecessorSet(*computation);
    std::vector<HloInstruction*> dones;
    for (const auto& instr : computation->instructions()) {
      if (IsConvertible(*instr, control_preds)) dones.push_back(instr.get());
    }
    if (dones.empty()) continue;
    NameUniquer names(*computation);
    for (HloInstruction* done : dones) {
      HloInstruction* start = done->operand(0);
      HloInstruction* copy = computation->AddInstruction(HloInstruction::Create(
          HloOpcode::kCopy, done->shape(), {start->operand(0)}, names.Unique(done->name())));
      RETURN_IF_ERROR(ReplaceInstruction(done, copy));
      if (start->users().empty()) computation->RemoveInstruction(start);
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
