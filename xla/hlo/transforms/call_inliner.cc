#include "xla/hlo/transforms/call_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

// The computation a call or fusion runs.
const HloComputation* Callee(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kFusion ? instr.GetComputation(AttrId::kCalls)
                                              : instr.to_apply();
}

bool IsInlinable(const HloInstruction& instr, bool inline_fusions,
                 const absl::flat_hash_set<const HloInstruction*>& control_preds) {
  const bool fusion = inline_fusions && instr.opcode() == HloOpcode::kFusion;
  if (instr.opcode() != HloOpcode::kCall && !fusion) return false;
  const HloComputation* callee = Callee(instr);
  if (callee == nullptr || !callee->execution_thread().empty()) return false;
  return instr.control_predecessors().empty() && !control_preds.contains(&instr);
}

}  // namespace

absl::Status InlineCall(HloInstruction* call) {
  NameUniquer names(*call->parent());
  return InlineCall(call, &names);
}

absl::Status InlineCall(HloInstruction* call, NameUniquer* names) {
  HloComputation* caller = call->parent();
  const HloComputation* callee = Callee(*call);
  if (callee == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", call->name(), "' names no computation to inline"));
  }
  if (callee->num_parameters() != call->operand_count()) {
    return absl::InvalidArgumentError(absl::StrCat("call '", call->name(), "' passes ",
                                                   call->operand_count(), " operands to '",
                                                   callee->name(), "' which takes ",
                                                   callee->num_parameters()));
  }
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  for (const HloInstruction* instr : callee->MakePostOrder()) {
    if (instr->opcode() == HloOpcode::kParameter) {
      mapped[instr] = call->operand(instr->parameter_number());
      continue;
    }
    std::vector<HloInstruction*> operands;
    operands.reserve(instr->operand_count());
    for (const HloInstruction* op : instr->operands()) operands.push_back(mapped.at(op));
    HloInstruction* copy = caller->AddInstruction(
        instr->CloneWithNewOperands(instr->shape(), operands, names->Unique(instr->name())));
    for (const HloInstruction* pred : instr->control_predecessors()) {
      copy->AddControlPredecessor(mapped.at(pred));
    }
    mapped[instr] = copy;
  }
  return ReplaceInstruction(call, mapped.at(callee->root_instruction()));
}

absl::StatusOr<bool> CallInliner::Run(HloModule* module) {
  bool changed = false;
  // Callees first: a callee's own calls are inlined before it is copied.
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    const absl::flat_hash_set<const HloInstruction*> control_preds =
        ControlPredecessorSet(*computation);
    std::vector<HloInstruction*> calls;
    for (const auto& instr : computation->instructions()) {
      if (IsInlinable(*instr, inline_fusions_, control_preds)) calls.push_back(instr.get());
    }
    if (calls.empty()) continue;
    NameUniquer names(*computation);
    for (HloInstruction* call : calls) {
      absl::Status inlined = InlineCall(call, &names);
      if (!inlined.ok()) return inlined;
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
