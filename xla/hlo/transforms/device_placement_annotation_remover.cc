#include "xla/hlo/transforms/device_placement_annotation_remover.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/util/status_macros.h"

namespace xla {

absl::StatusOr<bool> DevicePlacementAnnotationRemover::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    std::vector<HloInstruction*> annotations;
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kCustomCall ||
          instr->GetString(AttrId::kCustomCallTarget) != kAnnotateDevicePlacementTarget) {
        continue;
      }
      if (instr->operand_count() != 1 ||
          !ShapesCompatible(instr->operand(0)->shape(), instr->shape(), /*ignore_dynamic=*/true)) {
        return absl::InvalidArgumentError(absl::StrCat(
            instr->name(), ": annotate_device_placement must have one operand of its result's shape ",
            instr->shape().ToString(), " (it is an identity); it has ", instr->operand_count(),
            instr->operand_count() == 1
                ? absl::StrCat(" of shape ", instr->operand(0)->shape().ToString())
                : std::string(" operands")));
      }
      annotations.push_back(instr.get());
    }
    for (HloInstruction* annotation : annotations) {
      RETURN_IF_ERROR(ReplaceInstruction(annotation, annotation->operand(0)));
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
