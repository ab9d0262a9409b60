#include "xla/hlo/transforms/sharding_annotation_remover.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

constexpr absl::string_view kTargets[] = {"Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"};

absl::Status CheckRemovable(const HloInstruction& instr, int64_t partitions) {
  const std::string& target = instr.GetString(AttrId::kCustomCallTarget);
  if (partitions > 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        instr.name(), ": custom-call ", target, " is a sharding annotation in a module of ", partitions,
        " partitions that was never partitioned; this compiler has no SPMD partitioner. Partition the "
        "program in the front end (XLA's SPMD partitioner runs before the program is dumped), or "
        "compile it for one partition (--num_partitions=1)"));
  }
  return absl::OkStatus();
}

// An annotation that changes the shape (SPMDFullToShardShape of a module
// whose header lost its partition count) is no identity: left for the
// back end, which refuses it as a custom call it cannot run.
bool IsIdentity(const HloInstruction& instr) {
  return instr.operand_count() == 1 && ShapesCompatible(instr.operand(0)->shape(), instr.shape(), true);
}

}  // namespace

bool IsShardingAnnotationTarget(absl::string_view target) {
  for (absl::string_view t : kTargets) {
    if (target == t) return true;
  }
  return false;
}

absl::StatusOr<bool> ShardingAnnotationRemover::Run(HloModule* module) {
  const int64_t partitions = module->config().num_partitions.value_or(1);
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    std::vector<HloInstruction*> annotations;
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kCustomCall &&
          IsShardingAnnotationTarget(instr->GetString(AttrId::kCustomCallTarget))) {
        RETURN_IF_ERROR(CheckRemovable(*instr, partitions));
        if (IsIdentity(*instr)) annotations.push_back(instr.get());
      }
    }
    for (HloInstruction* annotation : annotations) {
      RETURN_IF_ERROR(ReplaceInstruction(annotation, annotation->operand(0)));
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
