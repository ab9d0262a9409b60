#include "xla/backends/gpu/codegen/host/single_op_fusion.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/ir/hlo_computation.h"
#include "xla/hlo/ir/hlo_module.h"

namespace xla::gpu {

bool CanWrapInFusion(const HloInstruction& instr) {
  static const HloOpcode kOthers[] = {
      HloOpcode::kSelect,        HloOpcode::kConvert,      HloOpcode::kCopy,
      HloOpcode::kIota,          HloOpcode::kBroadcast,    HloOpcode::kReshape,
      HloOpcode::kTranspose,     HloOpcode::kSlice,        HloOpcode::kPad,
      HloOpcode::kConcatenate,   HloOpcode::kReverse,      HloOpcode::kDynamicSlice,
      HloOpcode::kDynamicUpdateSlice, HloOpcode::kReduce,  HloOpcode::kScatter,
      HloOpcode::kBitcastConvert, HloOpcode::kReducePrecision, HloOpcode::kClamp,
      HloOpcode::kCompare,       HloOpcode::kConvolution,  HloOpcode::kReduceWindow,
      HloOpcode::kGather,        HloOpcode::kSort,         HloOpcode::kSelectAndScatter,
      HloOpcode::kTopK,
  };
  if (IsElementwise(instr.opcode())) return true;
  for (HloOpcode op : kOthers) {
    if (instr.opcode() == op) return true;
  }
  return false;
}

absl::StatusOr<HloInstruction*> WrapInFusion(HloInstruction* instr) {
  HloComputation* parent = instr->parent();
  if (parent == nullptr || parent->parent() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "WrapInFusion: ", instr->name(), " is not in a computation of a module"));
  }
  if (!CanWrapInFusion(*instr)) {
    return absl::InvalidArgumentError(absl::StrCat("WrapInFusion: ", instr->name(), " (",
                                                   HloOpcodeName(instr->opcode()),
                                                   ") has no host kernel emitter"));
  }
  if (!instr->control_predecessors().empty() || !instr->control_successors().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("WrapInFusion: ", instr->name(), " has control edges; drop them first"));
  }
  HloModule* module = parent->parent();
  auto body = std::make_unique<HloComputation>(
      module->UniqueComputationName(absl::StrCat("wrapped_", instr->name(), "_computation")));
  std::vector<HloInstruction*> fusion_operands;
  absl::flat_hash_map<HloInstruction*, HloInstruction*> param_of;
  std::vector<HloInstruction*> inner_operands;
  for (HloInstruction* op : instr->operands()) {
    auto it = param_of.find(op);
    if (it == param_of.end()) {
      const int64_t n = static_cast<int64_t>(fusion_operands.size());
      HloInstruction* p = body->AddInstruction(
          HloInstruction::CreateParameter(n, op->shape(), absl::StrCat("param_", n)));
      it = param_of.emplace(op, p).first;
      fusion_operands.push_back(op);
    }
    inner_operands.push_back(it->second);
  }
  HloInstruction* clone =
      body->AddInstruction(instr->CloneWithNewOperands(instr->shape(), inner_operands, instr->name()));
  body->set_root_instruction(clone);
  HloComputation* callee = module->AddComputation(std::move(body));
  HloInstruction* fusion = parent->AddInstruction(HloInstruction::Create(
      HloOpcode::kFusion, instr->shape(), fusion_operands,
      parent->UniqueInstructionName(absl::StrCat("wrapped_", instr->name()))));
  const bool input = instr->opcode() == HloOpcode::kReduce || instr->opcode() == HloOpcode::kScatter;
  fusion->SetAttr(AttrId::kFusionKind, std::string(input ? "kInput" : "kLoop"));
  fusion->SetAttr(AttrId::kCalls, std::vector<HloComputation*>{callee});
  const bool was_root = parent->root_instruction() == instr;
  absl::Status st = instr->ReplaceAllUsesWith(fusion);
  if (!st.ok()) return st;
  if (was_root) parent->set_root_instruction(fusion);
  if (!parent->RemoveInstruction(instr)) {
    return absl::InternalError(absl::StrCat("WrapInFusion: could not remove ", instr->name()));
  }
  parent->SortInstructionsInPostOrder();
  return fusion;
}

}  // namespace xla::gpu
