#include "xla/hlo/transforms/gemm_custom_call_rewriter.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "xla/hlo/proto/gemm_custom_call.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The dot's result dimensions: batch, lhs free, rhs free.
std::vector<int64_t> DotDims(const gemm::GemmCall& call, const Shape& a, const Shape& b) {
  std::vector<int64_t> dims;
  for (int64_t d : call.lhs_batch) dims.push_back(a.dimensions(d));
  for (int64_t d = 0; d < a.rank(); ++d) {
    if (!Has(call.lhs_batch, d) && !Has(call.lhs_contracting, d)) dims.push_back(a.dimensions(d));
  }
  for (int64_t d = 0; d < b.rank(); ++d) {
    if (!Has(call.rhs_batch, d) && !Has(call.rhs_contracting, d)) dims.push_back(b.dimensions(d));
  }
  return dims;
}

absl::Status Rewrite(HloInstruction* instr) {
  ASSIGN_OR_RETURN(gemm::GemmCall call, gemm::ReadGemmCustomCall(*instr));
  const Shape& shape = instr->shape();
  const bool tuple = shape.IsTuple();
  const Shape result = tuple && shape.tuple_shapes_size() > 0 ? shape.tuple_shapes(0) : shape;
  HloInstruction* a = instr->operand(0);
  HloInstruction* b = instr->operand(1);
  const std::vector<int64_t> dims = DotDims(call, a->shape(), b->shape());
  if (!result.IsArray() || result.dimensions() != dims) {
    return absl::InvalidArgumentError(absl::StrCat(
        "custom-call '", instr->name(), "': result ", shape.ToString(false),
        " is not the GEMM's [", absl::StrJoin(dims, ","), "] (or a tuple starting with it)"));
  }
  const PrimitiveType t = result.element_type();
  const std::string base = instr->name();
  OpBuilder o(instr->parent());
  auto splat = [&](double v, const std::string& name) {
    return o.Broadcast(o.Scalar(t, v, base + "." + name), dims, {}, base + "." + name + "_b");
  };
  // An FP8 call's scales apply to the f32 sum, before it is rounded to t.
  const bool scaled = call.a_scale_operand >= 0;
  const PrimitiveType dot_type = scaled ? PrimitiveType::F32 : t;
  HloInstruction* x = o.Op(HloOpcode::kDot, Shape::Array(dot_type, dims), {a, b}, base + ".dot");
  x->SetAttr(AttrId::kLhsBatchDims, call.lhs_batch);
  x->SetAttr(AttrId::kLhsContractingDims, call.lhs_contracting);
  x->SetAttr(AttrId::kRhsBatchDims, call.rhs_batch);
  x->SetAttr(AttrId::kRhsContractingDims, call.rhs_contracting);
  if (!call.operand_precision.empty()) x->SetAttr(AttrId::kOperandPrecision, call.operand_precision);
  if (scaled) {
    HloInstruction* scale = o.Binary(HloOpcode::kMultiply, instr->operand(call.a_scale_operand),
                                     instr->operand(call.b_scale_operand), base + ".ab_scale");
    x = o.Binary(HloOpcode::kMultiply, x, o.Broadcast(scale, dims, {}, base + ".ab_scale_b"),
                 base + ".ab_scaled");
    if (t != dot_type) x = o.Convert(x, t, base + ".rounded");
  }
  if (call.alpha != 1) x = o.Binary(HloOpcode::kMultiply, x, splat(call.alpha, "alpha"), base + ".scaled");
  if (call.c_operand >= 0) {
    HloInstruction* c = instr->operand(call.c_operand);
    if (!c->shape().IsArray() || c->shape().dimensions() != dims) {
      return absl::InvalidArgumentError(absl::StrCat("custom-call '", instr->name(), "': c ",
                                                     c->shape().ToString(false),
                                                     " must have the result's dimensions"));
    }
    c = o.Convert(c, t, base + ".c");
    if (call.beta != 1) c = o.Binary(HloOpcode::kMultiply, c, splat(call.beta, "beta"), base + ".beta_c");
    x = o.Binary(HloOpcode::kAdd, x, c, base + ".plus_c");
  }
  if (call.bias_operand >= 0) {
    HloInstruction* bias = instr->operand(call.bias_operand);
    if (!bias->shape().IsArray() || bias->shape().rank() != 1 || dims.empty() ||
        bias->shape().dimensions(0) != dims.back()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "custom-call '", instr->name(), "': bias ", bias->shape().ToString(false),
          " must be a vector over the result's minor dimension"));
    }
    bias = o.Broadcast(o.Convert(bias, t, base + ".bias"), dims,
                       {static_cast<int64_t>(dims.size()) - 1}, base + ".bias_b");
    x = o.Binary(HloOpcode::kAdd, x, bias, base + ".plus_bias");
  }
  if (call.activation == gemm::GemmActivation::kRelu) {
    x = o.Binary(HloOpcode::kMaximum, x, splat(0, "zero"), base + ".relu");
  } else if (call.activation == gemm::GemmActivation::kGelu) {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    HloInstruction* x3 = o.Binary(HloOpcode::kMultiply, o.Binary(HloOpcode::kMultiply, x, x, base + ".x2"),
                                  x, base + ".x3");
    HloInstruction* inner = o.Binary(
        HloOpcode::kAdd, x, o.Binary(HloOpcode::kMultiply, x3, splat(0.044715, "gelu_c"), base + ".cx3"),
        base + ".inner");
    HloInstruction* th = o.Unary(
        HloOpcode::kTanh,
        o.Binary(HloOpcode::kMultiply, inner, splat(std::sqrt(2.0 / 3.14159265358979323846), "gelu_k"),
                 base + ".scaled_inner"),
        base + ".tanh");
    HloInstruction* half_x = o.Binary(HloOpcode::kMultiply, x, splat(0.5, "half"), base + ".half_x");
    x = o.Binary(HloOpcode::kMultiply, half_x,
                 o.Binary(HloOpcode::kAdd, th, splat(1, "one"), base + ".one_plus"), base + ".gelu");
  }
  if (tuple) {
    std::vector<HloInstruction*> elements = {x};
    for (int64_t i = 1; i < shape.tuple_shapes_size(); ++i) {
      const Shape& s = shape.tuple_shapes(i);
      if (!s.IsArray()) {
        return absl::InvalidArgumentError(absl::StrCat("custom-call '", instr->name(),
                                                       "': tuple element ", i, " ",
                                                       s.ToString(false), " is not an array"));
      }
      elements.push_back(o.Broadcast(o.Scalar(s.element_type(), 0, base + ".workspace_zero"),
                                     s.dimensions(), {}, base + ".workspace"));
    }
    x = o.Tuple(std::move(elements), base + ".tuple");
  }
  return ReplaceInstruction(instr, x);
}

}  // namespace

absl::StatusOr<bool> GemmCustomCallRewriter::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kCustomCall &&
          gemm::IsGemmCustomCallTarget(instr->GetString(AttrId::kCustomCallTarget))) {
        todo.push_back(instr.get());
      }
    }
  }
  for (HloInstruction* instr : todo) RETURN_IF_ERROR(Rewrite(instr));
  return !todo.empty();
}

}  // namespace xla
