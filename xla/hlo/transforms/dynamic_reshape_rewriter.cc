#include "xla/hlo/transforms/dynamic_reshape_rewriter.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool HasUnboundedDimension(const Shape& s) {
  for (int64_t d = 0; d < s.rank(); ++d) {
    if (s.is_unbounded_dimension(d)) return true;
  }
  return false;
}

// OK when the result's bounds fix every runtime size (see the header).
absl::Status CheckSizesFixed(const HloInstruction& instr) {
  const Shape& in = instr.operand(0)->shape();
  const Shape& out = instr.shape();
  auto refuse = [&](absl::string_view why) {
    return absl::UnimplementedError(absl::StrCat(
        "dynamic-reshape '", instr.name(), "': ", why, " (operand ", in.ToString(false),
        ", result ", out.ToString(false),
        "); its sizes are known only at run time, and this compiler supports a dynamic-reshape only "
        "when the result's bounds hold exactly the operand's elements"));
  };
  if (!in.IsArray() || !out.IsArray()) return refuse("operand and result must be arrays");
  if (!in.is_static()) return refuse("the operand has dynamic dimensions");
  if (HasUnboundedDimension(out)) return refuse("the result has unbounded dimensions");
  if (instr.operand_count() != out.rank() + 1) {
    return absl::InvalidArgumentError(absl::StrCat("dynamic-reshape '", instr.name(), "' has ",
                                                   instr.operand_count() - 1, " size operands for a rank-",
                                                   out.rank(), " result"));
  }
  const std::optional<int64_t> in_elements = in.ElementCount();
  const std::optional<int64_t> out_elements = out.ElementCount();
  if (!in_elements || !out_elements || *in_elements != *out_elements) {
    return refuse("the result's bounds hold a different number of elements than the operand");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<bool> DynamicReshapeRewriter::Run(HloModule* module) {
  std::vector<HloInstruction*> rewrites;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kDynamicReshape) continue;
      RETURN_IF_ERROR(CheckSizesFixed(*instr));
      rewrites.push_back(instr.get());
    }
  }
  for (HloInstruction* instr : rewrites) {
    HloComputation* c = instr->parent();
    NameUniquer names(*c);
    HloInstruction* reshape = c->AddInstruction(HloInstruction::Create(
        HloOpcode::kReshape, instr->shape(), {instr->operand(0)},
        names.Unique(instr->name() + ".static")));
    RETURN_IF_ERROR(ReplaceInstruction(instr, reshape));
  }
  return !rewrites.empty();
}

}  // namespace xla
