#include "xla/service/canonicalize/cudnn_epilogue_fuser.h"

#include <variant>
#include <vector>

#include "xla/hlo/ir/conv_dim_labels.h"
#include "xla/service/canonicalize/cudnn_convolution_rewriter.h"
#include "xla/service/canonicalize/rewrite_util.h"
#include "xla/util/status_macros.h"

namespace xla {
namespace {

bool HasTarget(const HloInstruction& instr, absl::string_view target) {
  return instr.opcode() == HloOpcode::kCustomCall &&
         instr.GetString(AttrId::kCustomCallTarget) == target;
}

// True when `user` is the only user of `instr`, which is not its
// computation's root (the value is then needed only through `user`).
bool OnlyFeeds(const HloInstruction& instr, const HloInstruction& user) {
  return instr.users().size() == 1 && instr.users()[0] == &user &&
         instr.parent()->root_instruction() != &instr;
}

// True when `result` (an add or maximum) may take over `call`'s value:
// the same dims and element type, f32 or f16.
bool SameValueShape(const HloInstruction& call, const HloInstruction& result) {
  const PrimitiveType type = call.shape().element_type();
  return (type == PrimitiveType::F32 || type == PrimitiveType::F16) &&
         result.shape().element_type() == type &&
         result.shape().dimensions() == call.shape().dimensions();
}

// True for a constant whose every element is 0 (or -0), or a broadcast of one.
bool IsZero(const HloInstruction* value) {
  if (value->opcode() == HloOpcode::kBroadcast) value = value->operand(0);
  if (value->opcode() != HloOpcode::kConstant || !value->has_literal()) return false;
  const int64_t n = value->shape().ElementCount().value_or(0);
  for (int64_t i = 0; i < n; ++i) {
    if (value->literal().GetDouble(i) != 0) return false;
  }
  return n > 0;
}

// The operand of `broadcast` when it is a bias along dimension `feature`
// of extent `k`: its only non-unit dimension (if any) goes to `feature`,
// with extent k, and it has the broadcast's element type. Null otherwise.
HloInstruction* BiasOf(const HloInstruction* broadcast, int64_t feature, int64_t k) {
  if (broadcast->opcode() != HloOpcode::kBroadcast) return nullptr;
  HloInstruction* value = broadcast->operand(0);
  const std::vector<int64_t>& dims = broadcast->dimensions();
  if (value->shape().element_type() != broadcast->shape().element_type() ||
      static_cast<int64_t>(dims.size()) != value->shape().rank()) {
    return nullptr;
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t extent = value->shape().dimensions(i);
    if (extent != 1 && (dims[i] != feature || extent != k)) return nullptr;
  }
  return value->shape().ElementCount() == k ? value : nullptr;
}

// `call` again with `operands` and `target`, named after it.
HloInstruction* Refit(const HloInstruction& call, std::vector<HloInstruction*> operands,
                      absl::string_view target, HloComputation* comp, NameUniquer* names) {
  HloInstruction* fused = comp->AddInstruction(
      call.CloneWithNewOperands(call.shape(), operands, names->Unique(call.name())));
  fused->SetAttr(AttrId::kCustomCallTarget, std::string(target));
  return fused;
}

// add(conv, broadcast(b)) in either order -> the bias call.
absl::StatusOr<HloInstruction*> FuseBias(HloInstruction* add, HloComputation* comp,
                                         NameUniquer* names) {
  for (int side = 0; side < 2; ++side) {
    HloInstruction* conv = add->operand(side);
    if (!HasTarget(*conv, kCudnnConvForwardTarget) || !OnlyFeeds(*conv, *add) ||
        !SameValueShape(*conv, *add) || conv->operand_count() != 2) {
      continue;
    }
    const AttrValue* labels = conv->FindAttr(AttrId::kDimLabels);
    if (labels == nullptr || !std::holds_alternative<ConvDimLabels>(*labels)) continue;
    const int64_t feature = std::get<ConvDimLabels>(*labels).output_feature;
    const int64_t k = conv->shape().dimensions(feature);
    HloInstruction* bias = BiasOf(add->operand(1 - side), feature, k);
    if (bias == nullptr) continue;
    bias = canonicalize::AddReshape(comp, names, bias, {k});
    return Refit(*conv, {conv->operand(0), conv->operand(1), bias}, kCudnnConvForwardBiasTarget,
                 comp, names);
  }
  return nullptr;
}

// maximum(bias call, 0) in either order -> the bias + ReLU call.
absl::StatusOr<HloInstruction*> FuseRelu(HloInstruction* max, HloComputation* comp,
                                         NameUniquer* names) {
  for (int side = 0; side < 2; ++side) {
    HloInstruction* call = max->operand(side);
    if (!HasTarget(*call, kCudnnConvForwardBiasTarget) || !OnlyFeeds(*call, *max) ||
        !SameValueShape(*call, *max) || !IsZero(max->operand(1 - side))) {
      continue;
    }
    return Refit(*call, call->operands(), kCudnnConvForwardBiasReluTarget, comp, names);
  }
  return nullptr;
}

// Removes the cuDNN calls the fusions left without users.
void RemoveUnusedCalls(HloModule* module) {
  for (const auto& comp : module->computations()) {
    std::vector<HloInstruction*> dead;
    for (const auto& instr : comp->instructions()) {
      if (instr->users().empty() && comp->root_instruction() != instr.get() &&
          (HasTarget(*instr, kCudnnConvForwardTarget) ||
           HasTarget(*instr, kCudnnConvForwardBiasTarget))) {
        dead.push_back(instr.get());
      }
    }
    comp->RemoveInstructions(dead);
  }
}

}  // namespace

absl::StatusOr<bool> CudnnEpilogueFuser::Run(HloModule* module) {
  ASSIGN_OR_RETURN(const bool bias, canonicalize::RewriteEach(module, HloOpcode::kAdd, FuseBias));
  if (!bias) return false;
  ASSIGN_OR_RETURN(const bool relu, canonicalize::RewriteEach(module, HloOpcode::kMaximum, FuseRelu));
  (void)relu;
  RemoveUnusedCalls(module);
  return true;
}

}  // namespace xla
