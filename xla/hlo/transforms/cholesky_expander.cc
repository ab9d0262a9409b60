#include "xla/hlo/transforms/cholesky_expander.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

// f64, c64 and c128 are computed in their own type; every narrower float
// type in f32.
PrimitiveType ComputeType(PrimitiveType t) {
  return t == PrimitiveType::F64 || IsComplex(t) ? t : PrimitiveType::F32;
}

bool IsExpandable(const HloInstruction& instr) {
  const Shape& s = instr.operand(0)->shape();
  return s.IsArray() && (IsFloat(s.element_type()) || IsComplex(s.element_type())) &&
         instr.control_predecessors().empty() && instr.control_successors().empty();
}

absl::Status CheckShapes(const HloInstruction& instr) {
  const Shape& a = instr.operand(0)->shape();
  const bool ok = a.IsArray() && a.is_static() && a.rank() >= 2 &&
                  a.dimensions(a.rank() - 1) == a.dimensions(a.rank() - 2) &&
                  ShapesCompatible(a, instr.shape());
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("cholesky '", instr.name(), "': needs a static operand with square minor "
                   "dimensions and a result of its shape; operand ",
                   a.ToString(false), ", result ", instr.shape().ToString(false)));
}

// The loop body over (j, l, x): computes column j of l.
HloComputation* MakeBody(HloModule* module, const std::string& base, PrimitiveType t, int64_t b,
                         int64_t n) {
  const Shape mat = Shape::Array(t, {b, n, n});
  const Shape state = Shape::Tuple({Shape::Scalar(PrimitiveType::S32), mat, mat});
  auto comp = std::make_unique<HloComputation>(module->UniqueComputationName(base + "_body"));
  OpBuilder o(comp.get());
  HloInstruction* p = o.Parameter(0, state, "state");
  HloInstruction* j = o.GetTupleElement(p, 0, "j");
  HloInstruction* l = o.GetTupleElement(p, 1, "l");
  HloInstruction* x = o.GetTupleElement(p, 2, "x");
  HloInstruction* zero_index = o.Scalar(PrimitiveType::S32, 0, "zero_index");

  HloInstruction* row = o.Reshape(o.DynamicSlice(l, {zero_index, j, zero_index}, {b, 1, n}, "row_slice"),
                                  {b, n}, "row");
  HloInstruction* column = o.Reshape(
      o.DynamicSlice(x, {zero_index, zero_index, j}, {b, n, 1}, "a_column_slice"), {b, n}, "a_column");
  // s_i = a_ij - sum_k l_ik conj(l_jk); the pivot's real part only, as the
  // evaluator (a Hermitian matrix's diagonal is real).
  HloInstruction* s = o.Binary(HloOpcode::kSubtract, column,
                               o.BatchMatVec(l, o.Conjugate(row, "row_conj"), "l_row"), "s");
  HloInstruction* pivot = o.RealPart(
      o.Reshape(o.DynamicSlice(s, {zero_index, j}, {b, 1}, "pivot_slice"), {b}, "pivot"), "pivot_re");
  HloInstruction* diag = o.Broadcast(
      o.Convert(o.Unary(HloOpcode::kSqrt, pivot, "sqrt_pivot"), t, "sqrt_pivot_t"), {b, n}, {0},
      "diag");
  HloInstruction* i = o.Iota({b, n}, 1, "i");
  HloInstruction* jb = o.Broadcast(j, {b, n}, {}, "j_broadcast");
  HloInstruction* zeros = o.Broadcast(o.Scalar(t, 0, "zero"), {b, n}, {}, "zeros");
  HloInstruction* on_diag = o.Select(o.Compare(i, jb, "EQ", "is_diag"), diag, zeros, "diag_or_zero");
  HloInstruction* below = o.Binary(HloOpcode::kDivide, s, diag, "below");
  HloInstruction* new_column = o.Select(o.Compare(i, jb, "GT", "is_below"), below, on_diag, "column");
  HloInstruction* new_l = o.DynamicUpdateSlice(
      l, o.Reshape(new_column, {b, n, 1}, "column_3d"), {zero_index, zero_index, j}, "l_updated");
  HloInstruction* next = o.Binary(HloOpcode::kAdd, j, o.Scalar(PrimitiveType::S32, 1, "one"), "next_j");
  comp->set_root_instruction(o.Tuple({next, new_l, x}, "next_state"));
  return module->AddComputation(std::move(comp));
}

// The loop condition: j < n.
HloComputation* MakeCondition(HloModule* module, const std::string& base, PrimitiveType t,
                              int64_t b, int64_t n) {
  const Shape mat = Shape::Array(t, {b, n, n});
  const Shape state = Shape::Tuple({Shape::Scalar(PrimitiveType::S32), mat, mat});
  auto comp = std::make_unique<HloComputation>(module->UniqueComputationName(base + "_cond"));
  OpBuilder o(comp.get());
  HloInstruction* p = o.Parameter(0, state, "state");
  HloInstruction* j = o.GetTupleElement(p, 0, "j");
  comp->set_root_instruction(o.Compare(j, o.Scalar(PrimitiveType::S32, static_cast<double>(n), "n"),
                                       "LT", "more_columns"));
  return module->AddComputation(std::move(comp));
}

absl::Status Expand(HloInstruction* cholesky) {
  RETURN_IF_ERROR(CheckShapes(*cholesky));
  // An empty batch is its own (empty) factor.
  if (ElementCountOrZero(cholesky->operand(0)->shape()) == 0) {
    return ReplaceInstruction(cholesky, cholesky->operand(0));
  }
  HloModule* module = cholesky->parent()->parent();
  const Shape& shape = cholesky->operand(0)->shape();
  const PrimitiveType elem = shape.element_type();
  const PrimitiveType t = ComputeType(elem);
  const int64_t rank = shape.rank();
  const int64_t n = shape.dimensions(rank - 1);
  int64_t b = 1;
  for (int64_t d = 0; d < rank - 2; ++d) b *= shape.dimensions(d);
  const bool lower = cholesky->GetBool(AttrId::kLower);
  const std::string base = cholesky->name();

  OpBuilder o(cholesky->parent());
  HloInstruction* x = o.Reshape(o.Convert(cholesky->operand(0), t, base + ".convert"), {b, n, n},
                                base + ".batched");
  // The upper form reads the conjugate transpose (a = u^H u, u = l^H).
  if (!lower) x = o.Conjugate(o.Transpose(x, {0, 2, 1}, base + ".transposed"), base + ".adjoint");
  HloInstruction* l0 =
      o.Broadcast(o.Scalar(t, 0, base + ".zero"), {b, n, n}, {}, base + ".l_init");
  HloInstruction* init = o.Tuple({o.Scalar(PrimitiveType::S32, 0, base + ".j_init"), l0, x}, base + ".init");
  HloInstruction* loop = o.Op(HloOpcode::kWhile, init->shape(), {init}, base + ".loop");
  loop->SetAttr(AttrId::kCondition, MakeCondition(module, base, t, b, n));
  loop->SetAttr(AttrId::kBody, MakeBody(module, base, t, b, n));
  HloInstruction* l = o.GetTupleElement(loop, 1, base + ".l");
  if (!lower) l = o.Conjugate(o.Transpose(l, {0, 2, 1}, base + ".u"), base + ".u_conj");
  HloInstruction* result =
      o.Convert(o.Reshape(l, shape.dimensions(), base + ".unbatched"), elem, base + ".result");
  return ReplaceInstruction(cholesky, result);
}

}  // namespace

absl::StatusOr<bool> CholeskyExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kCholesky && IsExpandable(*instr)) todo.push_back(instr.get());
    }
  }
  for (HloInstruction* cholesky : todo) RETURN_IF_ERROR(Expand(cholesky));
  return !todo.empty();
}

}  // namespace xla
