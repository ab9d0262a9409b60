#include "xla/hlo/transforms/batch_norm_expander.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"
#include "xla/hlo/transforms/op_builder.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool IsBatchNorm(HloOpcode op) {
  return op == HloOpcode::kBatchNormTraining || op == HloOpcode::kBatchNormInference ||
         op == HloOpcode::kBatchNormGrad;
}

// bf16 and f16 are computed in f32; other float types in themselves.
PrimitiveType ComputeType(PrimitiveType t) {
  if (t == PrimitiveType::BF16 || t == PrimitiveType::F16) return PrimitiveType::F32;
  return t;
}

// Emits the expansion of one batch-norm instruction into its computation.
class Expander {
 public:
  Expander(HloInstruction* bn, ScalarReducers* adds)
      : bn_(bn),
        comp_(bn->parent()),
        names_(*bn->parent()),
        adds_(adds),
        feature_index_(bn->GetInt(AttrId::kFeatureIndex)),
        epsilon_(bn->GetFloat(AttrId::kEpsilon)) {}

  absl::StatusOr<HloInstruction*> Expand() {
    RETURN_IF_ERROR(Check());
    const Shape& x_shape = bn_->operand(0)->shape();
    elem_ = x_shape.element_type();
    compute_ = ComputeType(elem_);
    full_ = x_shape;
    full_.set_element_type(compute_);
    const int64_t features = x_shape.dimensions()[feature_index_];
    feature_ = Shape::Array(compute_, {features});
    const int64_t total = ElementCountOrZero(x_shape);
    per_feature_count_ = features == 0 ? 0 : total / features;
    for (int64_t d = 0; d < x_shape.rank(); ++d) {
      if (d != feature_index_) reduce_dims_.push_back(d);
    }
    std::vector<HloInstruction*> in;
    for (HloInstruction* op : bn_->operands()) in.push_back(ToCompute(op));
    if (bn_->opcode() == HloOpcode::kBatchNormTraining) return Training(in);
    if (bn_->opcode() == HloOpcode::kBatchNormInference) return Inference(in);
    if (bn_->opcode() == HloOpcode::kBatchNormGrad) return Grad(in);
    return absl::InternalError(absl::StrCat("batch-norm-expander: ", bn_->name(), " is not a batch-norm"));
  }

 private:
  absl::Status Check() const {
    const int64_t want = bn_->opcode() == HloOpcode::kBatchNormTraining ? 3 : 5;
    if (bn_->operand_count() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "batch-norm-expander: ", bn_->name(), " has ", bn_->operand_count(), " operands, expected ",
          want, "; run the verifier on the input"));
    }
    const Shape& x = bn_->operand(0)->shape();
    if (!x.IsArray() || !IsFloat(x.element_type()) || feature_index_ < 0 ||
        feature_index_ >= x.rank()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "batch-norm-expander: ", bn_->name(), " needs a float array operand with feature_index in [0, rank), got ",
          x.ToString(false), " and feature_index=", feature_index_));
    }
    return absl::OkStatus();
  }

  HloInstruction* Add(HloOpcode op, const Shape& shape, std::vector<HloInstruction*> operands,
                      const std::string& name) {
    return comp_->AddInstruction(
        HloInstruction::Create(op, shape, std::move(operands), names_.Unique(name)));
  }
  HloInstruction* Binary(HloOpcode op, HloInstruction* a, HloInstruction* b, const std::string& name) {
    return Add(op, a->shape(), {a, b}, name);
  }
  HloInstruction* Convert(HloInstruction* v, PrimitiveType to) {
    if (v->shape().element_type() == to) return v;
    Shape s = v->shape();
    s.set_element_type(to);
    return Add(HloOpcode::kConvert, s, {v}, "convert");
  }
  HloInstruction* ToCompute(HloInstruction* v) { return Convert(v, compute_); }
  HloInstruction* ToElem(HloInstruction* v) { return Convert(v, elem_); }

  // A per-feature vector of the scalar `value`.
  HloInstruction* FeatureConstant(double value, const std::string& name) {
    HloInstruction* c =
        comp_->AddInstruction(MakeScalarConstant(compute_, value, names_.Unique(name)));
    return AddBroadcastOfScalar(comp_, &names_, c, feature_);
  }
  // Broadcasts a per-feature vector along feature_index to the operand shape.
  HloInstruction* ToFull(HloInstruction* v) {
    HloInstruction* b = Add(HloOpcode::kBroadcast, full_, {v}, "broadcast");
    b->SetAttr(AttrId::kDimensions, std::vector<int64_t>{feature_index_});
    return b;
  }
  // Sums a full-shape value over every dimension but feature_index.
  HloInstruction* SumToFeature(HloInstruction* v) {
    HloInstruction* zero =
        comp_->AddInstruction(MakeScalarConstant(compute_, 0.0, names_.Unique("zero")));
    HloInstruction* r = Add(HloOpcode::kReduce, feature_, {v, zero}, "reduce");
    r->SetAttr(AttrId::kDimensions, reduce_dims_);
    r->SetAttr(AttrId::kToApply, adds_->Get(HloOpcode::kAdd, compute_));
    return r;
  }
  // rsqrt(var + epsilon), per feature; also returns var + epsilon.
  std::pair<HloInstruction*, HloInstruction*> InvStd(HloInstruction* var) {
    HloInstruction* var_eps = Binary(HloOpcode::kAdd, var, FeatureConstant(epsilon_, "epsilon"), "var_eps");
    return {Add(HloOpcode::kRsqrt, feature_, {var_eps}, "inv_std"), var_eps};
  }
  // (x - mean) * scale * inv + offset with per-feature mean/scale/inv/offset,
  // `centered` being x - mean already.
  HloInstruction* Normalize(HloInstruction* centered, HloInstruction* scale, HloInstruction* inv,
                            HloInstruction* offset) {
    HloInstruction* factor = Binary(HloOpcode::kMultiply, scale, inv, "scale_inv");
    HloInstruction* scaled = Binary(HloOpcode::kMultiply, centered, ToFull(factor), "scaled");
    return Binary(HloOpcode::kAdd, scaled, ToFull(offset), "normalized");
  }
  HloInstruction* Tuple(std::vector<HloInstruction*> elems) {
    return Add(HloOpcode::kTuple, bn_->shape(), std::move(elems), "tuple");
  }

  HloInstruction* Training(const std::vector<HloInstruction*>& in) {
    HloInstruction* n = FeatureConstant(static_cast<double>(per_feature_count_), "count");
    HloInstruction* mean = Binary(HloOpcode::kDivide, SumToFeature(in[0]), n, "mean");
    HloInstruction* centered = Binary(HloOpcode::kSubtract, in[0], ToFull(mean), "centered");
    HloInstruction* sq = Binary(HloOpcode::kMultiply, centered, centered, "centered_sq");
    HloInstruction* var = Binary(HloOpcode::kDivide, SumToFeature(sq), n, "var");
    HloInstruction* inv = InvStd(var).first;
    HloInstruction* out = Normalize(centered, in[1], inv, in[2]);
    return Tuple({ToElem(out), ToElem(mean), ToElem(var)});
  }

  HloInstruction* Inference(const std::vector<HloInstruction*>& in) {
    HloInstruction* centered = Binary(HloOpcode::kSubtract, in[0], ToFull(in[3]), "centered");
    HloInstruction* inv = InvStd(in[4]).first;
    return ToElem(Normalize(centered, in[1], inv, in[2]));
  }

  HloInstruction* Grad(const std::vector<HloInstruction*>& in) {
    HloInstruction* x = in[0];
    HloInstruction* g = in[4];
    HloInstruction* n = FeatureConstant(static_cast<double>(per_feature_count_), "count");
    auto [inv, var_eps] = InvStd(in[3]);
    HloInstruction* centered = Binary(HloOpcode::kSubtract, x, ToFull(in[2]), "centered");
    HloInstruction* grad_offset = SumToFeature(g);
    HloInstruction* sum_gc =
        SumToFeature(Binary(HloOpcode::kMultiply, g, centered, "grad_centered"));
    HloInstruction* grad_scale = Binary(HloOpcode::kMultiply, sum_gc, inv, "grad_scale");
    HloInstruction* mean_g = Binary(HloOpcode::kDivide, grad_offset, n, "mean_grad");
    HloInstruction* coef = Binary(HloOpcode::kDivide, Binary(HloOpcode::kDivide, sum_gc, n, "mean_gc"),
                                  var_eps, "centered_coef");
    HloInstruction* inner = Binary(
        HloOpcode::kSubtract, Binary(HloOpcode::kSubtract, g, ToFull(mean_g), "grad_minus_mean"),
        Binary(HloOpcode::kMultiply, centered, ToFull(coef), "centered_term"), "grad_inner");
    HloInstruction* factor = Binary(HloOpcode::kMultiply, in[1], inv, "scale_inv");
    HloInstruction* grad_operand = Binary(HloOpcode::kMultiply, inner, ToFull(factor), "grad_operand");
    return Tuple({ToElem(grad_operand), ToElem(grad_scale), ToElem(grad_offset)});
  }

  HloInstruction* bn_;
  HloComputation* comp_;
  NameUniquer names_;
  ScalarReducers* adds_;
  int64_t feature_index_;
  double epsilon_;
  PrimitiveType elem_ = PrimitiveType::F32;
  PrimitiveType compute_ = PrimitiveType::F32;
  Shape full_;
  Shape feature_;
  int64_t per_feature_count_ = 0;
  std::vector<int64_t> reduce_dims_;
};

}  // namespace

absl::StatusOr<bool> BatchNormExpander::Run(HloModule* module) {
  std::vector<HloInstruction*> todo;
  for (const auto& comp : module->computations()) {
    for (const auto& instr : comp->instructions()) {
      if (IsBatchNorm(instr->opcode()) && !HasControlEdges(*instr)) todo.push_back(instr.get());
    }
  }
  if (todo.empty()) return false;
  ScalarReducers adds(module, "batch_norm");
  std::vector<HloComputation*> touched;
  for (HloInstruction* bn : todo) {
    HloComputation* comp = bn->parent();
    ASSIGN_OR_RETURN(HloInstruction* replacement, Expander(bn, &adds).Expand());
    RETURN_IF_ERROR(ReplaceInstruction(bn, replacement));
    if (touched.empty() || touched.back() != comp) touched.push_back(comp);
  }
  for (HloComputation* comp : touched) comp->SortInstructionsInPostOrder();
  return true;
}

}  // namespace xla
