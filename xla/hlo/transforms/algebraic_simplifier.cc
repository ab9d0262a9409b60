#include "xla/hlo/transforms/algebraic_simplifier.h"

#include <array>
#include <cmath>
#include <memory>
#include <numeric>
#include <vector>

#include "xla/hlo/transforms/hlo_dce.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

struct Ctx {
  HloComputation* computation;
  NameUniquer* names;
  const AlgebraicSimplifierOptions& options;

  // Adds a copy of `instr` (same shape and attributes) with new operands.
  HloInstruction* Clone(const HloInstruction& instr, std::vector<HloInstruction*> operands) {
    return computation->AddInstruction(instr.CloneWithNewOperands(
        instr.shape(), operands, names->Unique(std::string(HloOpcodeName(instr.opcode())))));
  }
};

// A rewrite for one opcode: the replacement for `instr`, or nullptr.
using Rule = HloInstruction* (*)(HloInstruction& instr, Ctx& ctx);

// Same dimensions, element type, dynamic dimensions and (where both have
// one) layout: `b` can stand for `a` unchanged.
bool SameShape(const Shape& a, const Shape& b) {
  if (!ShapesCompatible(a, b, /*ignore_dynamic=*/false)) return false;
  return !a.has_layout() || !b.has_layout() || a.layout() == b.layout();
}

HloInstruction* IfSameShape(const HloInstruction& instr, HloInstruction* x) {
  return SameShape(instr.shape(), x->shape()) ? x : nullptr;
}

bool IsIntOrFloat(const Shape& s) {
  return s.IsArray() && (IsInteger(s.element_type()) || IsFloat(s.element_type()));
}

bool IsScalarBroadcast(const HloInstruction& x) {
  return x.opcode() == HloOpcode::kBroadcast && x.operand(0)->shape().rank() == 0;
}

// broadcast(scalar) of instr's shape.
HloInstruction* BroadcastScalarAs(const HloInstruction& instr, HloInstruction* scalar, Ctx& ctx) {
  auto b = HloInstruction::Create(HloOpcode::kBroadcast, instr.shape(), {scalar},
                                  ctx.names->Unique("broadcast"));
  b->SetAttr(AttrId::kDimensions, std::vector<int64_t>{});
  return ctx.computation->AddInstruction(std::move(b));
}

// A uniform constant `value` of instr's shape.
HloInstruction* ConstantLike(const HloInstruction& instr, double value, Ctx& ctx) {
  HloInstruction* scalar = ctx.computation->AddInstruction(
      MakeScalarConstant(instr.shape().element_type(), value, ctx.names->Unique("constant")));
  if (instr.shape().rank() == 0) return scalar;
  return BroadcastScalarAs(instr, scalar, ctx);
}

HloInstruction* ChooseOperandIf(const HloInstruction& instr, int64_t i, bool condition) {
  return condition ? IfSameShape(instr, instr.operand(i)) : nullptr;
}

HloInstruction* SimplifyAdd(HloInstruction& instr, Ctx&) {
  if (!IsIntOrFloat(instr.shape())) return nullptr;
  // -0.0 is the float identity: x + (+0.0) turns x = -0.0 into +0.0.
  const double zero = IsFloat(instr.shape().element_type()) ? -0.0 : 0.0;
  if (HloInstruction* r = ChooseOperandIf(instr, 0, IsUniformConstantEqualTo(*instr.operand(1), zero))) {
    return r;
  }
  return ChooseOperandIf(instr, 1, IsUniformConstantEqualTo(*instr.operand(0), zero));
}

HloInstruction* SimplifySubtract(HloInstruction& instr, Ctx& ctx) {
  if (!IsIntOrFloat(instr.shape())) return nullptr;
  if (IsUniformConstantEqualTo(*instr.operand(1), 0.0)) return IfSameShape(instr, instr.operand(0));
  // x - x is 0 only for integers (inf - inf and NaN - NaN are NaN).
  if (IsInteger(instr.shape().element_type()) && instr.operand(0) == instr.operand(1)) {
    return ConstantLike(instr, 0, ctx);
  }
  return nullptr;
}

HloInstruction* SimplifyMultiply(HloInstruction& instr, Ctx&) {
  if (!IsIntOrFloat(instr.shape())) return nullptr;
  if (HloInstruction* r = ChooseOperandIf(instr, 0, IsUniformConstantEqualTo(*instr.operand(1), 1))) {
    return r;
  }
  return ChooseOperandIf(instr, 1, IsUniformConstantEqualTo(*instr.operand(0), 1));
}

bool IsPowerOfTwo(double v) {
  int exponent = 0;
  return std::fabs(std::frexp(v, &exponent)) == 0.5;
}

// x / c -> x * (1/c) for a uniform float constant c (see the header).
HloInstruction* DivideByConstant(HloInstruction& instr, Ctx& ctx) {
  const PrimitiveType type = instr.shape().element_type();
  const Literal* c = UniformConstant(*instr.operand(1));
  if (!IsFloat(type) || c == nullptr) return nullptr;
  const double v = c->GetDouble(0);
  if (!std::isfinite(v) || v == 0) return nullptr;
  Literal inverse(Shape::Scalar(type));
  inverse.SetDouble(0, 1.0 / v);
  const double r = inverse.GetDouble(0);
  const bool exact = IsPowerOfTwo(v) && r == 1.0 / v;
  if (!exact && !(ctx.options.allow_inexact && std::isfinite(r) && r != 0)) return nullptr;
  HloInstruction* factor = ConstantLike(instr, r, ctx);
  auto mul = HloInstruction::Create(HloOpcode::kMultiply, instr.shape(), {instr.operand(0), factor},
                                    ctx.names->Unique("multiply"));
  return ctx.computation->AddInstruction(std::move(mul));
}

HloInstruction* SimplifyDivide(HloInstruction& instr, Ctx& ctx) {
  if (!IsIntOrFloat(instr.shape())) return nullptr;
  if (IsUniformConstantEqualTo(*instr.operand(1), 1)) return IfSameShape(instr, instr.operand(0));
  return DivideByConstant(instr, ctx);
}

HloInstruction* SimplifyNegate(HloInstruction& instr, Ctx&) {
  const HloInstruction* x = instr.operand(0);
  if (x->opcode() != HloOpcode::kNegate) return nullptr;
  return IfSameShape(instr, x->operand(0));
}

HloInstruction* SimplifyReshape(HloInstruction& instr, Ctx& ctx) {
  HloInstruction* x = instr.operand(0);
  if (HloInstruction* same = IfSameShape(instr, x)) return same;
  if (IsScalarBroadcast(*x)) return BroadcastScalarAs(instr, x->operand(0), ctx);
  if (x->opcode() != HloOpcode::kReshape) return nullptr;
  if (HloInstruction* same = IfSameShape(instr, x->operand(0))) return same;
  return ctx.Clone(instr, {x->operand(0)});
}

bool IsIdentityPermutation(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

HloInstruction* SimplifyTranspose(HloInstruction& instr, Ctx& ctx) {
  HloInstruction* x = instr.operand(0);
  const std::vector<int64_t>& perm = instr.dimensions();
  if (IsIdentityPermutation(perm)) return IfSameShape(instr, x);
  if (IsScalarBroadcast(*x)) return BroadcastScalarAs(instr, x->operand(0), ctx);
  if (x->opcode() != HloOpcode::kTranspose) return nullptr;
  // Result dim i is x's dim perm[i], which is y's dim inner[perm[i]].
  const std::vector<int64_t>& inner = x->dimensions();
  std::vector<int64_t> composed(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) composed[i] = inner[perm[i]];
  HloInstruction* y = x->operand(0);
  if (IsIdentityPermutation(composed)) return IfSameShape(instr, y);
  HloInstruction* t = ctx.Clone(instr, {y});
  t->SetAttr(AttrId::kDimensions, composed);
  return t;
}

HloInstruction* SimplifyBroadcast(HloInstruction& instr, Ctx& ctx) {
  HloInstruction* x = instr.operand(0);
  const std::vector<int64_t>& dims = instr.dimensions();
  if (x->shape().rank() == instr.shape().rank() && IsIdentityPermutation(dims)) {
    return IfSameShape(instr, x);
  }
  if (x->opcode() != HloOpcode::kBroadcast) return nullptr;
  // y's dim j lands in x's dim inner[j], which lands in our dim dims[inner[j]].
  const std::vector<int64_t>& inner = x->dimensions();
  std::vector<int64_t> composed(inner.size());
  for (size_t j = 0; j < inner.size(); ++j) composed[j] = dims[inner[j]];
  HloInstruction* b = ctx.Clone(instr, {x->operand(0)});
  b->SetAttr(AttrId::kDimensions, composed);
  return b;
}

HloInstruction* SimplifyToOperandIfSameShape(HloInstruction& instr, Ctx&) {
  return IfSameShape(instr, instr.operand(0));
}

HloInstruction* SimplifySlice(HloInstruction& instr, Ctx&) {
  const AttrValue* attr = instr.FindAttr(AttrId::kSlice);
  if (attr == nullptr) return nullptr;
  const Shape& in = instr.operand(0)->shape();
  const auto& slice = std::get<std::vector<SliceDim>>(*attr);
  if (static_cast<int64_t>(slice.size()) != in.rank()) return nullptr;
  for (int64_t d = 0; d < in.rank(); ++d) {
    const SliceDim& s = slice[d];
    if (s.start != 0 || s.stride != 1 || s.limit != in.dimensions(d)) return nullptr;
  }
  return IfSameShape(instr, instr.operand(0));
}

HloInstruction* SimplifyPad(HloInstruction& instr, Ctx&) {
  const AttrValue* attr = instr.FindAttr(AttrId::kPadding);
  if (attr == nullptr) return nullptr;
  for (const PaddingDim& p : std::get<std::vector<PaddingDim>>(*attr)) {
    if (p.low != 0 || p.high != 0 || p.interior != 0) return nullptr;
  }
  return IfSameShape(instr, instr.operand(0));
}

HloInstruction* SimplifyConcatenate(HloInstruction& instr, Ctx&) {
  return instr.operand_count() == 1 ? IfSameShape(instr, instr.operand(0)) : nullptr;
}

HloInstruction* SimplifyReverse(HloInstruction& instr, Ctx&) {
  const Shape& in = instr.operand(0)->shape();
  for (int64_t d : instr.dimensions()) {
    if (d < 0 || d >= in.rank() || in.dimensions(d) != 1) return nullptr;
  }
  return IfSameShape(instr, instr.operand(0));
}

HloInstruction* SimplifySelect(HloInstruction& instr, Ctx&) {
  const Literal* pred = UniformConstant(*instr.operand(0));
  if (pred == nullptr || !IsPred(pred->shape().element_type())) return nullptr;
  return IfSameShape(instr, instr.operand(pred->GetInt(0) != 0 ? 1 : 2));
}

const std::array<Rule, kHloOpcodeCount>& RuleTable() {
  static const auto* table = [] {
    auto* t = new std::array<Rule, kHloOpcodeCount>{};
    auto set = [t](HloOpcode op, Rule r) { (*t)[static_cast<size_t>(op)] = r; };
    set(HloOpcode::kAdd, SimplifyAdd);
    set(HloOpcode::kSubtract, SimplifySubtract);
    set(HloOpcode::kMultiply, SimplifyMultiply);
    set(HloOpcode::kDivide, SimplifyDivide);
    set(HloOpcode::kNegate, SimplifyNegate);
    set(HloOpcode::kReshape, SimplifyReshape);
    set(HloOpcode::kTranspose, SimplifyTranspose);
    set(HloOpcode::kBroadcast, SimplifyBroadcast);
    set(HloOpcode::kConvert, SimplifyToOperandIfSameShape);
    set(HloOpcode::kCopy, SimplifyToOperandIfSameShape);
    set(HloOpcode::kSlice, SimplifySlice);
    set(HloOpcode::kPad, SimplifyPad);
    set(HloOpcode::kConcatenate, SimplifyConcatenate);
    set(HloOpcode::kReverse, SimplifyReverse);
    set(HloOpcode::kSelect, SimplifySelect);
    return t;
  }();
  return *table;
}

// One post-order sweep; true when something was replaced.
bool Sweep(Ctx& ctx) {
  bool changed = false;
  for (HloInstruction* instr : ctx.computation->MakePostOrder()) {
    const Rule rule = RuleTable()[static_cast<size_t>(instr->opcode())];
    if (rule == nullptr) continue;
    HloInstruction* replacement = rule(*instr, ctx);
    if (replacement == nullptr || replacement == instr) continue;
    // A failed replacement leaves `replacement` dead for the cleanup below.
    if (ReplaceInstruction(instr, replacement).ok()) changed = true;
  }
  return changed;
}

bool SimplifyComputation(HloComputation* computation, const AlgebraicSimplifierOptions& options) {
  NameUniquer names(*computation);
  Ctx ctx{computation, &names, options};
  bool changed = false;
  for (int sweep = 0; sweep < options.max_sweeps && Sweep(ctx); ++sweep) changed = true;
  if (changed) RemoveDeadInstructions(computation);
  return changed;
}

}  // namespace

absl::StatusOr<bool> AlgebraicSimplifier::Run(HloModule* module) {
  bool changed = false;
  for (const auto& computation : module->computations()) {
    changed |= SimplifyComputation(computation.get(), options_);
  }
  return changed;
}

}  // namespace xla
