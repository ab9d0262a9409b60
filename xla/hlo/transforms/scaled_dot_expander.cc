#include "xla/hlo/transforms/scaled_dot_expander.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

absl::Status CheckOperands(const HloInstruction& instr) {
  for (int64_t i = 0; i < 4; ++i) {
    const Shape& s = instr.operand(i)->shape();
    if (!s.IsArray() || !s.is_static() || !IsFloat(s.element_type())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scaled-dot '", instr.name(), "': operand ", i, " ", s.ToString(false),
          " must be a static float array"));
    }
  }
  for (int64_t i : {0, 1}) {
    const Shape& x = instr.operand(i)->shape();
    const Shape& s = instr.operand(i + 2)->shape();
    if (s.rank() == 0) continue;
    bool ok = s.rank() == x.rank();
    for (int64_t d = 0; ok && d < x.rank(); ++d) {
      ok = s.dimensions(d) > 0 && x.dimensions(d) % s.dimensions(d) == 0;
    }
    if (!ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scaled-dot '", instr.name(), "': scale ", s.ToString(false),
          " must be a scalar or divide ", x.ToString(false), " dimension by dimension"));
    }
  }
  if (!instr.shape().IsArray() || !IsFloat(instr.shape().element_type())) {
    return absl::InvalidArgumentError(absl::StrCat("scaled-dot '", instr.name(), "': result ",
                                                   instr.shape().ToString(false),
                                                   " must be a float array"));
  }
  return absl::OkStatus();
}

// convert(x, t) * the scale expanded to x's dimensions.
HloInstruction* Dequantize(OpBuilder& o, HloInstruction* x, HloInstruction* scale,
                           PrimitiveType t, const std::string& name) {
  const std::vector<int64_t>& dims = x->shape().dimensions();
  HloInstruction* xf = o.Convert(x, t, name + "_converted");
  HloInstruction* sf = o.Convert(scale, t, name + "_scale_converted");
  HloInstruction* expanded = nullptr;
  if (scale->shape().rank() == 0) {
    expanded = o.Broadcast(sf, dims, {}, name + "_scale_b");
  } else {
    std::vector<int64_t> blocked, mapping;
    for (int64_t d = 0; d < x->shape().rank(); ++d) {
      const int64_t s = scale->shape().dimensions(d);
      mapping.push_back(static_cast<int64_t>(blocked.size()));
      blocked.push_back(s);
      blocked.push_back(dims[d] / s);
    }
    expanded = o.Reshape(o.Broadcast(sf, blocked, mapping, name + "_scale_blocks"), dims,
                         name + "_scale_b");
  }
  return o.Binary(HloOpcode::kMultiply, xf, expanded, name + "_dequantized");
}

absl::Status Expand(HloInstruction* instr) {
  RETURN_IF_ERROR(CheckOperands(*instr));
  const PrimitiveType out = instr->shape().element_type();
  const PrimitiveType t = out == PrimitiveType::F64 ? PrimitiveType::F64 : PrimitiveType::F32;
  const std::string base = instr->name();
  OpBuilder o(instr->parent());
  HloInstruction* a = Dequantize(o, instr->operand(0), instr->operand(2), t, base + ".lhs");
  HloInstruction* b = Dequantize(o, instr->operand(1), instr->operand(3), t, base + ".rhs");
  HloInstruction* dot =
      o.Op(HloOpcode::kDot, Shape::Array(t, instr->shape().dimensions()), {a, b}, base + ".dot");
  for (const auto& [id, value] : instr->attrs()) {
    if (id == AttrId::kLhsBatchDims || id == AttrId::kLhsContractingDims ||
        id == AttrId::kRhsBatchDims || id == AttrId::kRhsContractingDims ||
        id == AttrId::kOperandPrecision || id == AttrId::kAlgorithm) {
      dot->SetAttr(id, value);
    }
  }
  return ReplaceInstruction(instr, o.Convert(dot, out, base + ".result"));
}

}  // namespace

absl::StatusOr<bool> ScaledDotExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kScaledDot) todo.push_back(instr.get());
    }
  }
  for (HloInstruction* instr : todo) RETURN_IF_ERROR(Expand(instr));
  return !todo.empty();
}

}  // namespace xla
