#include "xla/hlo/transforms/async_wrapper_inliner.h"

#include <string>
#include <vector>

#include "xla/hlo/transforms/hlo_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool NoControlEdges(const HloInstruction& instr) {
  return instr.control_predecessors().empty() && instr.control_successors().empty();
}

// The async-start at the head of `done`'s single-line chain, or nullptr.
HloInstruction* ChainStart(const HloInstruction& done, std::vector<HloInstruction*>* chain) {
  if (!NoControlEdges(done) || done.operand_count() != 1) return nullptr;
  HloInstruction* link = done.operand(0);
  while (true) {
    if (link->users().size() != 1 || !NoControlEdges(*link) || link->operand_count() < 1) {
      return nullptr;
    }
    chain->push_back(link);
    if (link->opcode() == HloOpcode::kAsyncStart) return link;
    if (link->opcode() != HloOpcode::kAsyncUpdate) return nullptr;
    link = link->operand(0);
  }
}

}  // namespace

absl::StatusOr<bool> AsyncWrapperInliner::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    std::vector<HloInstruction*> dones;
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kAsyncDone) dones.push_back(instr.get());
    }
    if (dones.empty()) continue;
    NameUniquer names(*computation);
    for (HloInstruction* done : dones) {
      std::vector<HloInstruction*> chain;
      HloInstruction* start = ChainStart(*done, &chain);
      if (start == nullptr) continue;
      HloComputation* callee = start->GetComputation(AttrId::kCalls);
      if (callee == nullptr || !callee->execution_thread().empty() ||
          !ShapesCompatible(callee->root_instruction()->shape(), done->shape(),
                            /*ignore_dynamic=*/true)) {
        continue;
      }
      HloInstruction* call = computation->AddInstruction(HloInstruction::Create(
          HloOpcode::kCall, done->shape(), start->operands(), names.Unique(done->name() + ".call")));
      call->SetAttr(AttrId::kToApply, callee);
      RETURN_IF_ERROR(ReplaceInstruction(done, call));
      // The updates and the start are dead now (each had one user).
      for (HloInstruction* link : chain) computation->RemoveInstruction(link);
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
