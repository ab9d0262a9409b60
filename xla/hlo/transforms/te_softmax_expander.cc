#include "xla/hlo/transforms/te_softmax_expander.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "xla/hlo/proto/te_softmax_call.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/math_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

using te_softmax::TeSoftmaxCall;
using te_softmax::TeSoftmaxMask;

constexpr PrimitiveType kF32 = PrimitiveType::F32;
constexpr double kMaskedValue = -10000.0;  // TE's value for a masked position
constexpr double kInf = std::numeric_limits<double>::infinity();

// Builds one call's replacement in f32 over the call's dimensions, with
// the module's shared max and add reducers.
class SoftmaxBuilder {
 public:
  SoftmaxBuilder(HloInstruction* call, const TeSoftmaxCall& meaning, ScalarReducers& reducers)
      : call_(call),
        meaning_(meaning),
        o_(call->parent()),
        reducers_(reducers),
        base_(call->name()),
        dims_(call->shape().dimensions()),
        rank_(static_cast<int64_t>(dims_.size())) {}

  HloInstruction* Build() {
    HloInstruction* out = meaning_.backward ? Backward() : Forward();
    return o_.Convert(out, call_->shape().element_type(), N("result"));
  }

 private:
  std::string N(const std::string& what) const { return base_ + "." + what; }

  HloInstruction* Splat(double value, const std::string& name) {
    return o_.Broadcast(o_.Scalar(kF32, value, N(name)), dims_, {}, N(name + "_b"));
  }

  // `a` reduced with `opcode` over the last dimension.
  HloInstruction* RowReduce(HloInstruction* a, HloOpcode opcode, double init,
                            const std::string& name) {
    std::vector<int64_t> rows(dims_.begin(), dims_.end() - 1);
    HloInstruction* r = o_.Op(HloOpcode::kReduce, Shape::Array(kF32, rows),
                              {a, o_.Scalar(kF32, init, N(name + "_init"))}, N(name));
    r->SetAttr(AttrId::kDimensions, std::vector<int64_t>{rank_ - 1});
    r->SetAttr(AttrId::kToApply, reducers_.Get(opcode, kF32));
    return r;
  }

  // A per-row value broadcast along the row.
  HloInstruction* AlongRow(HloInstruction* per_row, const std::string& name) {
    std::vector<int64_t> mapping;
    for (int64_t d = 0; d + 1 < rank_; ++d) mapping.push_back(d);
    return o_.Broadcast(per_row, dims_, std::move(mapping), N(name));
  }

  // pred: key j visible to query i (j <= i) in the last two dimensions.
  HloInstruction* Causal() {
    return o_.Compare(o_.Iota(dims_, rank_ - 1, N("key")), o_.Iota(dims_, rank_ - 2, N("query")),
                      "LE", N("visible"));
  }

  // pred: the mask byte is 1. The mask [P..., 1, Sq, Sk] is read as
  // [P, Sq, Sk] and broadcast over x's heads (and batches when P is 1),
  // in its own type so that fusion reads it in place.
  HloInstruction* Masked() {
    HloInstruction* mask = call_->operand(1);
    const std::vector<int64_t>& m = mask->shape().dimensions();
    const PrimitiveType type = mask->shape().element_type();
    const int64_t sq = dims_[rank_ - 2], sk = dims_[rank_ - 1];
    const int64_t batch = Product(dims_, 0, rank_ - 3);
    const int64_t pad = Product(m, 0, m.size() - 3);
    std::vector<int64_t> bhqk = {batch, dims_[rank_ - 3], sq, sk};
    HloInstruction* wide =
        pad == 1 ? o_.Broadcast(o_.Reshape(mask, {sq, sk}, N("mask_rows")), bhqk, {2, 3},
                                N("mask_bhqk"))
                 : o_.Broadcast(o_.Reshape(mask, {pad, sq, sk}, N("mask_rows")), bhqk, {0, 2, 3},
                                N("mask_bhqk"));
    wide = o_.Reshape(wide, dims_, N("mask_wide"));
    if (type == PrimitiveType::PRED) return wide;  // true is the byte 1
    HloInstruction* one = o_.Broadcast(o_.Scalar(type, 1, N("one")), dims_, {}, N("one_b"));
    return o_.Compare(wide, one, "EQ", N("masked"));
  }

  HloInstruction* Forward() {
    HloInstruction* x = o_.Convert(call_->operand(0), kF32, N("x"));
    HloInstruction* v = o_.Binary(HloOpcode::kMultiply, x, Splat(meaning_.scale, "scale"),
                                  N("scaled"));
    if (meaning_.mask == TeSoftmaxMask::kOperand) {
      v = o_.Select(Masked(), Splat(kMaskedValue, "masked_value"), v, N("mask_applied"));
    }
    if (meaning_.mask == TeSoftmaxMask::kCausal) {
      v = o_.Select(Causal(), v, Splat(-kInf, "minus_inf"), N("causal_applied"));
    }
    HloInstruction* max = AlongRow(RowReduce(v, HloOpcode::kMaximum, -kInf, "row_max"), "max_b");
    HloInstruction* e = o_.Unary(HloOpcode::kExp, o_.Binary(HloOpcode::kSubtract, v, max,
                                                            N("shifted")),
                                 N("exp"));
    HloInstruction* sum = AlongRow(RowReduce(e, HloOpcode::kAdd, 0, "row_sum"), "sum_b");
    HloInstruction* y = o_.Binary(HloOpcode::kDivide, e, sum, N("softmax"));
    if (meaning_.mask != TeSoftmaxMask::kOperand) return y;
    // TE zeroes a row whose maximum is the masked value (all masked).
    HloInstruction* all_masked =
        o_.Compare(max, Splat(kMaskedValue, "all_masked_value"), "EQ", N("all_masked"));
    return o_.Select(all_masked, Splat(0, "zero"), y, N("masked_rows_zeroed"));
  }

  HloInstruction* Backward() {
    HloInstruction* dy = o_.Convert(call_->operand(0), kF32, N("dy"));
    HloInstruction* y = o_.Convert(call_->operand(1), kF32, N("y"));
    if (meaning_.mask == TeSoftmaxMask::kCausal) {
      y = o_.Select(Causal(), y, Splat(0, "zero"), N("y_causal"));
    }
    HloInstruction* g = o_.Binary(HloOpcode::kMultiply, dy, y, N("dy_y"));
    HloInstruction* sum = AlongRow(RowReduce(g, HloOpcode::kAdd, 0, "row_dot"), "row_dot_b");
    HloInstruction* diff = o_.Binary(HloOpcode::kSubtract, g,
                                     o_.Binary(HloOpcode::kMultiply, y, sum, N("y_dot")),
                                     N("diff"));
    return o_.Binary(HloOpcode::kMultiply, Splat(meaning_.scale, "scale"), diff, N("dx"));
  }

  HloInstruction* call_;
  const TeSoftmaxCall& meaning_;
  OpBuilder o_;
  ScalarReducers& reducers_;
  std::string base_;
  std::vector<int64_t> dims_;
  int64_t rank_;
};

bool IsTeSoftmaxCall(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kCustomCall &&
         te_softmax::IsTeSoftmaxTarget(instr.GetString(AttrId::kCustomCallTarget));
}

}  // namespace

absl::StatusOr<bool> TeSoftmaxExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (IsTeSoftmaxCall(*instr) && !keep_.count(instr->GetString(AttrId::kCustomCallTarget))) {
        todo.push_back(instr.get());
      }
    }
  }
  ScalarReducers reducers(module, "te_softmax");
  for (HloInstruction* call : todo) {
    ASSIGN_OR_RETURN(TeSoftmaxCall meaning, te_softmax::ReadTeSoftmaxCall(*call));
    RETURN_IF_ERROR(ReplaceInstruction(call, SoftmaxBuilder(call, meaning, reducers).Build()));
  }
  return !todo.empty();
}

}  // namespace xla
