#include "xla/service/canonicalize/fp8_dot_widener.h"

#include <vector>

#include "xla/service/canonicalize/gemm_config.h"
#include "xla/service/canonicalize/rewrite_util.h"

namespace xla {
namespace {

bool IsNarrowFloat(PrimitiveType t) { return IsFloat(t) && BitWidth(t) <= 8; }

bool BothConvertExactly(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType to) {
  return ConvertsExactly(lhs, to) && ConvertsExactly(rhs, to);
}

HloInstruction* AddConvert(HloComputation* comp, NameUniquer* names, HloInstruction* op,
                           PrimitiveType to) {
  Shape shape = op->shape();
  shape.set_element_type(to);
  return comp->AddInstruction(
      HloInstruction::Create(HloOpcode::kConvert, shape, {op}, names->Unique("convert")));
}

absl::StatusOr<HloInstruction*> WidenDot(HloInstruction* dot, HloComputation* comp,
                                         NameUniquer* names) {
  if (dot->operand_count() != 2 || !dot->shape().IsArray() ||
      !dot->operand(0)->shape().IsArray() || !dot->operand(1)->shape().IsArray()) {
    return nullptr;
  }
  const PrimitiveType result = dot->shape().element_type();
  const PrimitiveType w = Fp8DotComputeType(dot->operand(0)->shape().element_type(),
                                            dot->operand(1)->shape().element_type(), result);
  if (w == PrimitiveType::TUPLE) return nullptr;
  std::vector<HloInstruction*> operands = dot->operands();
  for (HloInstruction*& op : operands) {
    if (op->shape().element_type() != w) op = AddConvert(comp, names, op, w);
  }
  Shape shape = dot->shape();
  shape.set_element_type(w);
  HloInstruction* wide =
      comp->AddInstruction(dot->CloneWithNewOperands(shape, operands, names->Unique(dot->name())));
  if (w == result) return wide;
  return AddConvert(comp, names, wide, result);
}

}  // namespace

PrimitiveType Fp8DotComputeType(PrimitiveType lhs, PrimitiveType rhs, PrimitiveType result) {
  if (!IsNarrowFloat(lhs) && !IsNarrowFloat(rhs)) return PrimitiveType::TUPLE;
  if (!IsFloat(result)) return PrimitiveType::TUPLE;
  if (IsGemmElementType(result) && BothConvertExactly(lhs, rhs, result)) return result;
  if (BothConvertExactly(lhs, rhs, PrimitiveType::F32)) return PrimitiveType::F32;
  return PrimitiveType::TUPLE;
}

absl::StatusOr<bool> Fp8DotWidener::Run(HloModule* module) {
  const bool keep = keep_cublaslt_fp8_;
  return canonicalize::RewriteEach(
      module, HloOpcode::kDot,
      [keep](HloInstruction* dot, HloComputation* comp,
             NameUniquer* names) -> absl::StatusOr<HloInstruction*> {
        if (keep && IsCublasLtFp8Dot(*dot)) return nullptr;  // cuBLASLt takes it
        return WidenDot(dot, comp, names);
      });
}

}  // namespace xla
