#include "xla/hlo/transforms/rng_seed_expander.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool IsSeedCall(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kCustomCall &&
         instr.GetString(AttrId::kCustomCallTarget) == kGetRngSeedTarget;
}

absl::Status CheckSeedCall(const HloInstruction& call) {
  const Shape& shape = call.shape();
  const bool word = shape.IsArray() && shape.rank() == 0 &&
                    (shape.element_type() == PrimitiveType::U64 ||
                     shape.element_type() == PrimitiveType::S64);
  if (call.operand_count() != 0 || !word) {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom-call '", call.name(), "' (GetRngSeed): takes no operands and returns u64[] (or "
        "s64[]), got ", call.operand_count(), " operands and ", shape.ToString(false)));
  }
  return absl::OkStatus();
}

// The seed: the low word of the RNG state, advanced by one, with bit 0 set.
HloInstruction* BuildSeed(HloInstruction* call) {
  OpBuilder o(call->parent());
  const std::string base = call->name();
  const PrimitiveType type = call->shape().element_type();
  HloInstruction* state = o.Op(HloOpcode::kRngGetAndUpdateState, Shape::Array(type, {2}), {},
                               base + ".state");
  state->SetAttr(AttrId::kDelta, int64_t{1});
  HloInstruction* low = o.Op(HloOpcode::kSlice, Shape::Array(type, {1}), {state}, base + ".low");
  low->SetAttr(AttrId::kSlice, std::vector<SliceDim>{SliceDim{0, 1, 1}});
  HloInstruction* word = o.Reshape(low, {}, base + ".word");
  return o.Binary(HloOpcode::kOr, word, o.Scalar(type, 1, base + ".one"), base + ".seed");
}

}  // namespace

absl::StatusOr<bool> RngSeedExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (IsSeedCall(*instr)) todo.push_back(instr.get());
    }
  }
  for (HloInstruction* call : todo) {
    RETURN_IF_ERROR(CheckSeedCall(*call));
    RETURN_IF_ERROR(ReplaceInstruction(call, BuildSeed(call)));
  }
  return !todo.empty();
}

}  // namespace xla
