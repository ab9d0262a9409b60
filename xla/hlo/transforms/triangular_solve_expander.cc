#include "xla/hlo/transforms/triangular_solve_expander.h"

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
  const Shape& a = instr.operand(0)->shape();
  return a.IsArray() && (IsFloat(a.element_type()) || IsComplex(a.element_type())) &&
         instr.control_predecessors().empty() && instr.control_successors().empty();
}

struct Spec {
  bool left = true;
  bool lower = false;
  bool unit = false;
  bool transpose = false;
  bool conjugate = false;  // ADJOINT (of a complex matrix)
  int64_t batch = 1;  // product of the batch dimensions
  int64_t m = 0;      // a's minor dimension
};

absl::StatusOr<Spec> GetSpec(const HloInstruction& instr) {
  auto error = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "triangular-solve '", instr.name(), "': ", why, " (a ", instr.operand(0)->shape().ToString(false),
        ", b ", instr.operand(1)->shape().ToString(false), ", result ", instr.shape().ToString(false), ")"));
  };
  Spec spec;
  spec.left = instr.GetBool(AttrId::kLeftSide);
  spec.lower = instr.GetBool(AttrId::kLower);
  spec.unit = instr.GetBool(AttrId::kUnitDiagonal);
  const std::string& t = instr.GetString(AttrId::kTransposeA);
  if (t == "TRANSPOSE" || t == "ADJOINT") {
    spec.transpose = true;
    spec.conjugate = t == "ADJOINT";
  } else if (!t.empty() && t != "NO_TRANSPOSE") {
    return error(absl::StrCat("transpose_a=", t, " is not NO_TRANSPOSE, TRANSPOSE or ADJOINT"));
  }
  const Shape& a = instr.operand(0)->shape();
  const Shape& b = instr.operand(1)->shape();
  const int64_t r = a.rank();
  bool ok = a.IsArray() && b.IsArray() && a.is_static() && b.is_static() && r >= 2 &&
            b.rank() == r && a.dimensions(r - 1) == a.dimensions(r - 2) &&
            a.element_type() == b.element_type() && ShapesCompatible(b, instr.shape());
  for (int64_t d = 0; ok && d < r - 2; ++d) {
    ok = a.dimensions(d) == b.dimensions(d);
    spec.batch *= a.dimensions(d);
  }
  if (ok) {
    spec.m = a.dimensions(r - 1);
    ok = b.dimensions(spec.left ? r - 2 : r - 1) == spec.m;
  }
  if (!ok) return error("a must be square in its minor dimensions and b must fit it");
  return spec;
}

// The loop state is (i, x [B, m, n], t [B, m, m], b [B, m, n]).
Shape StateShape(PrimitiveType type, int64_t batch, int64_t m, int64_t n) {
  return Shape::Tuple({Shape::Scalar(PrimitiveType::S32), Shape::Array(type, {batch, m, n}),
                       Shape::Array(type, {batch, m, m}), Shape::Array(type, {batch, m, n})});
}

// Row i of x from the rows before it.
HloComputation* MakeBody(HloModule* module, const std::string& base, PrimitiveType type,
                         int64_t batch, int64_t m, int64_t n) {
  auto comp = std::make_unique<HloComputation>(module->UniqueComputationName(base + "_body"));
  OpBuilder o(comp.get());
  HloInstruction* p = o.Parameter(0, StateShape(type, batch, m, n), "state");
  HloInstruction* i = o.GetTupleElement(p, 0, "i");
  HloInstruction* x = o.GetTupleElement(p, 1, "x");
  HloInstruction* t = o.GetTupleElement(p, 2, "t");
  HloInstruction* b = o.GetTupleElement(p, 3, "b");
  HloInstruction* zero_index = o.Scalar(PrimitiveType::S32, 0, "zero_index");

  HloInstruction* row =
      o.Reshape(o.DynamicSlice(t, {zero_index, i, zero_index}, {batch, 1, m}, "t_row_slice"), {batch, m}, "t_row");
  HloInstruction* k = o.Iota({batch, m}, 1, "k");
  HloInstruction* before = o.Compare(k, o.Broadcast(i, {batch, m}, {}, "i_broadcast"), "LT", "before_i");
  HloInstruction* zeros = o.Broadcast(o.Scalar(type, 0, "zero"), {batch, m}, {}, "zeros");
  HloInstruction* coefficients = o.Select(before, row, zeros, "coefficients");
  HloInstruction* b_row =
      o.Reshape(o.DynamicSlice(b, {zero_index, i, zero_index}, {batch, 1, n}, "b_row_slice"), {batch, n}, "b_row");
  HloInstruction* s = o.Binary(HloOpcode::kSubtract, b_row, o.BatchVecMat(coefficients, x, "known"), "s");
  HloInstruction* diag =
      o.Reshape(o.DynamicSlice(t, {zero_index, i, i}, {batch, 1, 1}, "diag_slice"), {batch}, "diag");
  HloInstruction* x_row =
      o.Binary(HloOpcode::kDivide, s, o.Broadcast(diag, {batch, n}, {0}, "diag_broadcast"), "x_row");
  HloInstruction* new_x =
      o.DynamicUpdateSlice(x, o.Reshape(x_row, {batch, 1, n}, "x_row_3d"), {zero_index, i, zero_index}, "x_updated");
  HloInstruction* next = o.Binary(HloOpcode::kAdd, i, o.Scalar(PrimitiveType::S32, 1, "one"), "next_i");
  comp->set_root_instruction(o.Tuple({next, new_x, t, b}, "next_state"));
  return module->AddComputation(std::move(comp));
}

// The loop condition: i < m.
HloComputation* MakeCondition(HloModule* module, const std::string& base, PrimitiveType type,
                              int64_t batch, int64_t m, int64_t n) {
  auto comp = std::make_unique<HloComputation>(module->UniqueComputationName(base + "_cond"));
  OpBuilder o(comp.get());
  HloInstruction* p = o.Parameter(0, StateShape(type, batch, m, n), "state");
  HloInstruction* i = o.GetTupleElement(p, 0, "i");
  comp->set_root_instruction(
      o.Compare(i, o.Scalar(PrimitiveType::S32, static_cast<double>(m), "m"), "LT", "more_rows"));
  return module->AddComputation(std::move(comp));
}

absl::Status Expand(HloInstruction* solve) {
  ASSIGN_OR_RETURN(const Spec spec, GetSpec(*solve));
  // An empty b is its own (empty) solution.
  if (ElementCountOrZero(solve->operand(1)->shape()) == 0) {
    return ReplaceInstruction(solve, solve->operand(1));
  }
  HloModule* module = solve->parent()->parent();
  const Shape& b_shape = solve->operand(1)->shape();
  const PrimitiveType elem = b_shape.element_type();
  const PrimitiveType type = ComputeType(elem);
  const int64_t r = b_shape.rank();
  const int64_t batch = spec.batch, m = spec.m;
  const int64_t n = b_shape.dimensions(spec.left ? r - 1 : r - 2);
  const std::string base = solve->name();
  OpBuilder o(solve->parent());

  // The triangle of a, with a unit diagonal when asked for.
  HloInstruction* a =
      o.Reshape(o.Convert(solve->operand(0), type, base + ".a_convert"), {batch, m, m}, base + ".a");
  HloInstruction* row = o.Iota({batch, m, m}, 1, base + ".row");
  HloInstruction* col = o.Iota({batch, m, m}, 2, base + ".col");
  HloInstruction* zeros = o.Broadcast(o.Scalar(type, 0, base + ".zero"), {batch, m, m}, {}, base + ".zeros");
  HloInstruction* t = o.Select(o.Compare(col, row, spec.lower ? "LE" : "GE", base + ".in_triangle"), a,
                               zeros, base + ".triangle");
  if (spec.unit) {
    HloInstruction* ones = o.Broadcast(o.Scalar(type, 1, base + ".one"), {batch, m, m}, {}, base + ".ones");
    t = o.Select(o.Compare(col, row, "EQ", base + ".on_diagonal"), ones, t, base + ".unit_triangle");
  }
  if (spec.conjugate) t = o.Conjugate(t, base + ".t_conjugate");
  bool lower = spec.lower;
  // op(t), then the transpose of the right-side case: two transposes cancel.
  if (spec.transpose != !spec.left) {
    t = o.Transpose(t, {0, 2, 1}, base + ".t_transposed");
    lower = !lower;
  }
  HloInstruction* b = o.Reshape(o.Convert(solve->operand(1), type, base + ".b_convert"),
                                spec.left ? std::vector<int64_t>{batch, m, n} : std::vector<int64_t>{batch, n, m},
                                base + ".b");
  if (!spec.left) b = o.Transpose(b, {0, 2, 1}, base + ".b_transposed");
  if (!lower) {
    t = o.Reverse(t, {1, 2}, base + ".t_reversed");
    b = o.Reverse(b, {1}, base + ".b_reversed");
  }

  HloInstruction* x0 = o.Broadcast(o.Scalar(type, 0, base + ".x_zero"), {batch, m, n}, {}, base + ".x_init");
  HloInstruction* init =
      o.Tuple({o.Scalar(PrimitiveType::S32, 0, base + ".i_init"), x0, t, b}, base + ".init");
  HloInstruction* loop = o.Op(HloOpcode::kWhile, init->shape(), {init}, base + ".loop");
  loop->SetAttr(AttrId::kCondition, MakeCondition(module, base, type, batch, m, n));
  loop->SetAttr(AttrId::kBody, MakeBody(module, base, type, batch, m, n));
  HloInstruction* x = o.GetTupleElement(loop, 1, base + ".x");
  if (!lower) x = o.Reverse(x, {1}, base + ".x_unreversed");
  if (!spec.left) x = o.Transpose(x, {0, 2, 1}, base + ".x_transposed");
  HloInstruction* result =
      o.Convert(o.Reshape(x, b_shape.dimensions(), base + ".unbatched"), elem, base + ".result");
  return ReplaceInstruction(solve, result);
}

}  // namespace

absl::StatusOr<bool> TriangularSolveExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kTriangularSolve && IsExpandable(*instr)) {
        todo.push_back(instr.get());
      }
    }
  }
  for (HloInstruction* solve : todo) RETURN_IF_ERROR(Expand(solve));
  return !todo.empty();
}

}  // namespace xla
