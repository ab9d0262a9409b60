#include "xla/hlo/transforms/onednn_layer_norm_expander.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "xla/hlo/proto/onednn_layer_norm_call.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

constexpr PrimitiveType kF32 = PrimitiveType::F32;

// Builds one call's replacement in f32 over x's dimensions [..., C].
class LayerNormBuilder {
 public:
  LayerNormBuilder(HloInstruction* call, float epsilon, ScalarReducers& reducers)
      : call_(call),
        epsilon_(epsilon),
        o_(call->parent()),
        reducers_(reducers),
        base_(call->name()),
        dims_(call->shape().dimensions()),
        last_(static_cast<int64_t>(dims_.size()) - 1),
        rows_(dims_.begin(), dims_.end() - 1) {}

  HloInstruction* Build() {
    HloInstruction* x = o_.Convert(call_->operand(0), kF32, N("x"));
    const double c = static_cast<double>(dims_[last_]);
    HloInstruction* mean = RowMean(x, c, "mean");
    HloInstruction* d = o_.Binary(HloOpcode::kSubtract, x, PerRow(mean, "mean_b"), N("centered"));
    HloInstruction* var = RowMean(o_.Binary(HloOpcode::kMultiply, d, d, N("squared")), c, "var");
    HloInstruction* eps = o_.Broadcast(o_.Scalar(kF32, epsilon_, N("epsilon")), rows_, {},
                                       N("epsilon_b"));
    HloInstruction* inv = o_.Unary(HloOpcode::kRsqrt,
                                   o_.Binary(HloOpcode::kAdd, var, eps, N("var_eps")), N("inv"));
    HloInstruction* y = o_.Binary(HloOpcode::kMultiply, d, PerRow(inv, "inv_b"), N("normalized"));
    y = o_.Binary(HloOpcode::kMultiply, y, PerColumn(1, "scale"), N("scaled"));
    y = o_.Binary(HloOpcode::kAdd, y, PerColumn(2, "shift"), N("shifted"));
    return o_.Convert(y, call_->shape().element_type(), N("result"));
  }

 private:
  std::string N(const std::string& what) const { return base_ + "." + what; }

  // The mean of `a` over the last dimension (length `c`): f32[rows].
  HloInstruction* RowMean(HloInstruction* a, double c, const std::string& name) {
    HloInstruction* sum = o_.Op(HloOpcode::kReduce, Shape::Array(kF32, rows_),
                                {a, o_.Scalar(kF32, 0, N(name + "_init"))}, N(name + "_sum"));
    sum->SetAttr(AttrId::kDimensions, std::vector<int64_t>{last_});
    sum->SetAttr(AttrId::kToApply, reducers_.Get(HloOpcode::kAdd, kF32));
    HloInstruction* n = o_.Broadcast(o_.Scalar(kF32, c, N(name + "_n")), rows_, {}, N(name + "_nb"));
    return o_.Binary(HloOpcode::kDivide, sum, n, N(name));
  }

  // A per-row value repeated along the row.
  HloInstruction* PerRow(HloInstruction* per_row, const std::string& name) {
    std::vector<int64_t> mapping;
    for (int64_t d = 0; d < last_; ++d) mapping.push_back(d);
    return o_.Broadcast(per_row, dims_, std::move(mapping), N(name));
  }

  // Operand `i` (a [C] vector) in f32, repeated over the rows.
  HloInstruction* PerColumn(int64_t i, const std::string& name) {
    return o_.Broadcast(o_.Convert(call_->operand(i), kF32, N(name)), dims_, {last_},
                        N(name + "_b"));
  }

  HloInstruction* call_;
  float epsilon_;
  OpBuilder o_;
  ScalarReducers& reducers_;
  std::string base_;
  std::vector<int64_t> dims_;
  int64_t last_;
  std::vector<int64_t> rows_;
};

bool IsLayerNormCall(const HloInstruction& instr) {
  return instr.opcode() == HloOpcode::kCustomCall &&
         instr.GetString(AttrId::kCustomCallTarget) == onednn::kLayerNormTarget;
}

}  // namespace

OneDnnLayerNormExpander::OneDnnLayerNormExpander(const std::vector<std::string>& keep)
    : keep_call_(absl::c_linear_search(keep, onednn::kLayerNormTarget)) {}

absl::StatusOr<bool> OneDnnLayerNormExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  if (keep_call_) return false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    for (const auto& instr : computation->instructions()) {
      if (IsLayerNormCall(*instr)) todo.push_back(instr.get());
    }
  }
  ScalarReducers reducers(module, "onednn_layer_norm");
  for (HloInstruction* call : todo) {
    ASSIGN_OR_RETURN(onednn::LayerNormCall meaning, onednn::ReadLayerNormCall(*call));
    LayerNormBuilder builder(call, meaning.epsilon, reducers);
    RETURN_IF_ERROR(ReplaceInstruction(call, builder.Build()));
  }
  return !todo.empty();
}

}  // namespace xla
