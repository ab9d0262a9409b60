#include "xla/hlo/transforms/builder_math_call_expander.h"

#include <string>
#include <vector>

#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

constexpr char kAcosTarget[] = "xla_builder.math.Acos";

bool IsExpandableAcos(const HloInstruction& instr) {
  if (instr.opcode() != HloOpcode::kCustomCall ||
      instr.GetString(AttrId::kCustomCallTarget) != kAcosTarget || instr.operand_count() != 1) {
    return false;
  }
  const Shape& x = instr.operand(0)->shape();
  return x.IsArray() && (IsFloat(x.element_type()) || IsComplex(x.element_type())) &&
         ShapesCompatible(x, instr.shape(), /*ignore_dynamic=*/true);
}

absl::Status ExpandAcos(HloInstruction* call) {
  const PrimitiveType elem = call->shape().element_type();
  if (IsComplex(elem)) {
    // The acos opcode, which ComplexExpander writes in real ops.
    OpBuilder o(call->parent());
    return ReplaceInstruction(
        call, o.Op(HloOpcode::kAcos, call->shape(), {call->operand(0)}, call->name() + ".acos"));
  }
  const PrimitiveType t = elem == PrimitiveType::F64 ? elem : PrimitiveType::F32;
  const std::string base = call->name();
  OpBuilder o(call->parent());
  HloInstruction* x = o.Convert(call->operand(0), t, base + ".x");
  const std::vector<int64_t>& dims = x->shape().dimensions();
  HloInstruction* one = o.Broadcast(o.Scalar(t, 1, base + ".one"), dims, {}, base + ".ones");
  HloInstruction* s = o.Unary(
      HloOpcode::kSqrt,
      o.Binary(HloOpcode::kMultiply, o.Binary(HloOpcode::kSubtract, one, x, base + ".one_minus_x"),
               o.Binary(HloOpcode::kAdd, one, x, base + ".one_plus_x"), base + ".one_minus_x2"),
      base + ".sin");
  HloInstruction* acos = o.Binary(HloOpcode::kAtan2, s, x, base + ".acos");
  return ReplaceInstruction(call, o.Convert(acos, elem, base + ".result"));
}

}  // namespace

absl::StatusOr<bool> BuilderMathCallExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (IsExpandableAcos(*instr)) todo.push_back(instr.get());
    }
  }
  for (HloInstruction* call : todo) RETURN_IF_ERROR(ExpandAcos(call));
  return !todo.empty();
}

}  // namespace xla
