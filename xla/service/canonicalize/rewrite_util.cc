#include "xla/service/canonicalize/rewrite_util.h"

#include <string>
#include <utility>

#include "xla/util/logging.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla::canonicalize {

bool IsIdentityPermutation(absl::Span<const int64_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

bool PermutationIsReshape(absl::Span<const int64_t> dims, absl::Span<const int64_t> perm) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (dims[p] == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}

std::vector<int64_t> InversePermutation(absl::Span<const int64_t> perm) {
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  return inverse;
}

bool IsStaticShape(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) {
      if (!IsStaticShape(e)) return false;
    }
    return true;
  }
  return !shape.IsArray() || shape.is_static();
}

bool IsRowMajorOrUnset(const Shape& shape) {
  if (!shape.has_layout()) return true;
  const Layout& l = shape.layout();
  if (!l.suffix.empty() || static_cast<int64_t>(l.minor_to_major.size()) != shape.rank()) {
    return false;
  }
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (l.minor_to_major[i] != shape.rank() - 1 - i) return false;
  }
  return true;
}

HloInstruction* AddOp(HloComputation* computation, NameUniquer* names, HloOpcode opcode,
                      Shape shape, std::vector<HloInstruction*> operands, const std::string& base) {
  return computation->AddInstruction(
      HloInstruction::Create(opcode, std::move(shape), std::move(operands), names->Unique(base)));
}

HloInstruction* AddReshape(HloComputation* computation, NameUniquer* names,
                           HloInstruction* operand, absl::Span<const int64_t> dims) {
  const Shape& in = operand->shape();
  if (in.dimensions() == std::vector<int64_t>(dims.begin(), dims.end())) return operand;
  XLA_CHECK(in.ElementCount() == Product(dims));
  return AddOp(computation, names, HloOpcode::kReshape, Shape::Array(in.element_type(), dims),
             {operand}, "reshape");
}

HloInstruction* AddTranspose(HloComputation* computation, NameUniquer* names,
                             HloInstruction* operand, absl::Span<const int64_t> perm) {
  const Shape& in = operand->shape();
  XLA_CHECK(static_cast<int64_t>(perm.size()) == in.rank());
  if (IsIdentityPermutation(perm)) return operand;
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(in.dimensions(p));
  if (PermutationIsReshape(in.dimensions(), perm)) {
    return AddReshape(computation, names, operand, dims);
  }
  HloInstruction* t = AddOp(computation, names, HloOpcode::kTranspose,
                          Shape::Array(in.element_type(), dims), {operand}, "transpose");
  t->SetAttr(AttrId::kDimensions, std::vector<int64_t>(perm.begin(), perm.end()));
  return t;
}

HloInstruction* AddGetTupleElement(HloComputation* computation, NameUniquer* names,
                                   HloInstruction* tuple, int64_t index) {
  HloInstruction* gte = AddOp(computation, names, HloOpcode::kGetTupleElement,
                            tuple->shape().tuple_shapes(index), {tuple}, "get-tuple-element");
  gte->SetAttr(AttrId::kIndex, index);
  return gte;
}

HloInstruction* AddTuple(HloComputation* computation, NameUniquer* names,
                         const std::vector<HloInstruction*>& elements) {
  std::vector<Shape> shapes;
  for (const HloInstruction* e : elements) shapes.push_back(e->shape());
  return AddOp(computation, names, HloOpcode::kTuple, Shape::Tuple(std::move(shapes)), elements,
             "tuple");
}

absl::StatusOr<bool> RewriteEach(HloModule* module, HloOpcode opcode, const RewriteFn& rewrite) {
  bool changed = false;
  for (const auto& computation : module->computations()) {
    std::vector<HloInstruction*> matches;
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == opcode && !HasControlEdges(*instr)) matches.push_back(instr.get());
    }
    if (matches.empty()) continue;
    NameUniquer names(*computation);
    std::vector<HloInstruction*> replaced;
    for (HloInstruction* instr : matches) {
      ASSIGN_OR_RETURN(HloInstruction * replacement, rewrite(instr, computation.get(), &names));
      if (replacement == nullptr || replacement == instr) continue;
      RETURN_IF_ERROR(instr->ReplaceAllUsesWith(replacement));
      replaced.push_back(instr);
    }
    if (replaced.empty()) continue;
    changed = true;
    computation->RemoveInstructions(replaced);
  }
  return changed;
}

}  // namespace xla::canonicalize
