#include "xla/hlo/transforms/select_and_scatter_expander.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

// Largest operand the s32 index iota can number.
constexpr int64_t kMaxElements = (int64_t{1} << 31) - 1;

bool HasComplexOperand(const HloInstruction& instr) {
  const Shape& s = instr.operand(0)->shape();
  return s.IsArray() && IsComplex(s.element_type());
}

// Clones the body of the two-parameter scalar computation `fn` into the
// builder's computation with its parameters mapped to `p0` and `p1`;
// returns the clone of its root.
HloInstruction* Inline(const HloComputation& fn, HloInstruction* p0, HloInstruction* p1,
                       OpBuilder& b) {
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> mapped;
  mapped[fn.parameter_instruction(0)] = p0;
  mapped[fn.parameter_instruction(1)] = p1;
  HloComputation* into = b.computation();
  for (HloInstruction* old : fn.MakePostOrder()) {
    if (old->opcode() == HloOpcode::kParameter) continue;
    std::vector<HloInstruction*> operands;
    for (HloInstruction* operand : old->operands()) operands.push_back(mapped.at(operand));
    mapped[old] = into->AddInstruction(
        old->CloneWithNewOperands(old->shape(), operands, into->UniqueInstructionName(old->name())));
  }
  return mapped.at(fn.root_instruction());
}

// The reduce-window's reducer over (value, index) pairs, parameters
// (a, i, b, j): keeps (a, i) when j < 0 (b is no element) or when i >= 0
// and select(a, b); else (b, j).
HloComputation* MakeSelectReducer(const HloInstruction& instr, PrimitiveType type) {
  HloModule* module = instr.parent()->parent();
  auto owned = std::make_unique<HloComputation>(
      module->UniqueComputationName(absl::StrCat(instr.name(), "_select_index")));
  OpBuilder b(owned.get());
  const Shape value = Shape::Scalar(type), index = Shape::Scalar(PrimitiveType::S32);
  HloInstruction* a = b.Parameter(0, value, "a");
  HloInstruction* i = b.Parameter(1, index, "i");
  HloInstruction* c = b.Parameter(2, value, "b");
  HloInstruction* j = b.Parameter(3, index, "j");
  HloInstruction* zero = b.Scalar(PrimitiveType::S32, 0, "zero");
  HloInstruction* selects = Inline(*instr.GetComputation(AttrId::kSelect), a, c, b);
  HloInstruction* i_valid = b.Compare(i, zero, "GE", "i_valid");
  HloInstruction* j_none = b.Compare(j, zero, "LT", "j_none");
  HloInstruction* keep = b.Binary(HloOpcode::kOr, j_none,
                                  b.Binary(HloOpcode::kAnd, i_valid, selects, "kept"), "keep");
  owned->set_root_instruction(
      b.Tuple({b.Select(keep, a, c, "value"), b.Select(keep, i, j, "index")}, "selected"));
  return module->AddComputation(std::move(owned));
}

// The select-and-scatter's scatter computation with its parameters in the
// scatter op's order (current, update): itself when it is a plain add
// (symmetric), else a copy that passes (update, current) to it.
HloComputation* ScatterInScatterOrder(const HloInstruction& instr) {
  HloComputation* fn = instr.GetComputation(AttrId::kScatter);
  const HloInstruction* root = fn->root_instruction();
  if (root->opcode() == HloOpcode::kAdd && root->operand(0)->opcode() == HloOpcode::kParameter &&
      root->operand(1)->opcode() == HloOpcode::kParameter && root->operand(0) != root->operand(1)) {
    return fn;
  }
  HloModule* module = instr.parent()->parent();
  auto owned = std::make_unique<HloComputation>(
      module->UniqueComputationName(absl::StrCat(fn->name(), "_swapped")));
  OpBuilder b(owned.get());
  HloInstruction* current = b.Parameter(0, fn->parameter_instruction(1)->shape(), "current");
  HloInstruction* update = b.Parameter(1, fn->parameter_instruction(0)->shape(), "update");
  owned->set_root_instruction(Inline(*fn, update, current, b));
  return module->AddComputation(std::move(owned));
}

// The s32[w..., rank] scatter indices of the linear indices `k` (s32[w...])
// into an array of `dims`: k / stride_d mod dims[d] per dimension, or
// dims[d] (out of bounds) where k < 0.
HloInstruction* Coordinates(HloInstruction* k, const std::vector<int64_t>& dims, OpBuilder& b,
                            const std::string& base) {
  const std::vector<int64_t>& w = k->shape().dimensions();
  auto splat = [&](int64_t v, const char* what) {
    return b.Broadcast(b.Scalar(PrimitiveType::S32, static_cast<double>(v), base + what), w, {},
                       base + what);
  };
  HloInstruction* valid = b.Compare(k, splat(0, ".zero"), "GE", base + ".valid");
  std::vector<int64_t> column = w;
  column.push_back(1);
  std::vector<HloInstruction*> columns;
  int64_t stride = 1;
  for (int64_t d : dims) stride *= d;
  for (int64_t d : dims) {
    stride /= d;
    HloInstruction* q = b.Binary(HloOpcode::kDivide, k, splat(stride, ".stride"), base + ".q");
    HloInstruction* r = b.Binary(HloOpcode::kRemainder, q, splat(d, ".dim"), base + ".r");
    HloInstruction* coord = b.Select(valid, r, splat(d, ".outside"), base + ".coord");
    columns.push_back(b.Reshape(coord, column, base + ".column"));
  }
  std::vector<int64_t> shape = w;
  shape.push_back(static_cast<int64_t>(dims.size()));
  HloInstruction* out =
      b.Op(HloOpcode::kConcatenate, Shape::Array(PrimitiveType::S32, shape), columns, base + ".indices");
  out->SetAttr(AttrId::kDimensions, std::vector<int64_t>{static_cast<int64_t>(w.size())});
  return out;
}

}  // namespace

absl::Status ExpandSelectAndScatter(HloInstruction* instr) {
  HloInstruction* operand = instr->operand(0);
  HloInstruction* source = instr->operand(1);
  HloInstruction* init = instr->operand(2);
  const Shape& shape = operand->shape();
  const AttrValue* window = instr->FindAttr(AttrId::kWindow);
  if (!shape.IsArray() || !source->shape().IsArray() || window == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "select-and-scatter-expander: ", instr->name(),
        " needs array operand and source and a window; fix the HLO (the verifier checks this)"));
  }
  const std::vector<int64_t>& dims = shape.dimensions();
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  if (n > kMaxElements) {
    return absl::InvalidArgumentError(absl::StrCat(
        "select-and-scatter-expander: ", instr->name(), "'s operand ", shape.ToString(false),
        " has ", n, " elements, past the 2^31 - 1 its s32 index can number; split the op"));
  }
  const std::string base = instr->name();
  OpBuilder b(instr->parent());
  const PrimitiveType type = shape.element_type();
  const std::vector<int64_t>& w = source->shape().dimensions();
  HloInstruction* index = b.Reshape(b.Iota({n}, 0, base + ".linear"), dims, base + ".index");
  HloInstruction* none = b.Scalar(PrimitiveType::S32, -1, base + ".none");
  HloInstruction* chosen = b.Op(
      HloOpcode::kReduceWindow,
      Shape::Tuple({Shape::Array(type, w), Shape::Array(PrimitiveType::S32, w)}),
      {operand, index, init, none}, base + ".chosen");
  chosen->SetAttr(AttrId::kWindow, *window);
  chosen->SetAttr(AttrId::kToApply, MakeSelectReducer(*instr, type));
  HloInstruction* k = b.GetTupleElement(chosen, 1, base + ".chosen_index");
  HloInstruction* filled = b.Broadcast(init, dims, {}, base + ".init");
  HloInstruction* scatter =
      b.Op(HloOpcode::kScatter, instr->shape(), {filled, Coordinates(k, dims, b, base), source},
           base + ".scatter");
  std::vector<int64_t> all;
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) all.push_back(d);
  scatter->SetAttr(AttrId::kUpdateWindowDims, std::vector<int64_t>{});
  scatter->SetAttr(AttrId::kInsertedWindowDims, all);
  scatter->SetAttr(AttrId::kScatterDimsToOperandDims, all);
  scatter->SetAttr(AttrId::kIndexVectorDim, static_cast<int64_t>(w.size()));
  scatter->SetAttr(AttrId::kToApply, ScatterInScatterOrder(*instr));
  RETURN_IF_ERROR(instr->ReplaceAllUsesWith(scatter));
  instr->parent()->RemoveInstruction(instr);
  return absl::OkStatus();
}

absl::StatusOr<bool> SelectAndScatterExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() != HloOpcode::kSelectAndScatter) continue;
      if (complex_operands_only_ && !HasComplexOperand(*instr)) continue;
      todo.push_back(instr.get());
    }
  }
  for (HloInstruction* instr : todo) RETURN_IF_ERROR(ExpandSelectAndScatter(instr));
  return !todo.empty();
}

}  // namespace xla
