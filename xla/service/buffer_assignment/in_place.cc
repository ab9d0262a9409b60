#include "xla/service/buffer_assignment/in_place.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "xla/hlo/ir/hlo_computation.h"

namespace xla {
namespace {

bool IsElementwiseLike(const HloInstruction& instr) {
  return IsElementwise(instr.opcode()) || instr.opcode() == HloOpcode::kSelect ||
         instr.opcode() == HloOpcode::kClamp || instr.opcode() == HloOpcode::kConvert;
}

// Same element positions and the same number of bytes.
bool SameBufferLayout(const Shape& a, const Shape& b) {
  if (!a.IsArray() || !b.IsArray()) return false;
  if (a.dimensions() != b.dimensions()) return false;
  if (a.has_layout() && b.has_layout() && a.layout() != b.layout()) return false;
  if (a.has_layout() != b.has_layout()) {
    // A missing layout means the default (major-to-minor) one.
    Shape with_a = a, with_b = b;
    with_a.SetDefaultLayout();
    with_b.SetDefaultLayout();
    if (with_a.layout() != with_b.layout()) return false;
  }
  return a.ByteSize().has_value() && a.ByteSize() == b.ByteSize();
}

// Every path from fused parameter `param` to the fused root goes through
// elementwise ops whose shape has dimensions `dims`; a tuple root (of a
// multi-output fusion) only gathers the results and is not checked itself.
bool ReachesRootElementwise(const HloComputation& fused, const HloInstruction* param,
                            const std::vector<int64_t>& dims) {
  const HloInstruction* root = fused.root_instruction();
  if (root == nullptr) return false;
  std::vector<const HloInstruction*> stack = {param};
  absl::flat_hash_set<const HloInstruction*> seen = {param};
  while (!stack.empty()) {
    const HloInstruction* at = stack.back();
    stack.pop_back();
    if (at == root && root->opcode() == HloOpcode::kTuple) continue;
    if (at != param) {
      if (!IsElementwiseLike(*at)) return false;
      if (!at->shape().IsArray() || at->shape().dimensions() != dims) return false;
    }
    for (const HloInstruction* user : at->users()) {
      if (seen.insert(user).second) stack.push_back(user);
    }
  }
  return seen.contains(root);
}

// The fused root is a dynamic-update-slice whose updated array (operand 0)
// is `param`, and `param` is read by nothing else in the fusion: the kernel
// then writes only the update window and reads no element it overwrites
// (the update and the start indices come from other operands).
bool RootUpdatesParameterOnly(const HloComputation& fused, const HloInstruction* param) {
  const HloInstruction* root = fused.root_instruction();
  if (root == nullptr || root->opcode() != HloOpcode::kDynamicUpdateSlice) return false;
  if (root->operand(0) != param || param->users().size() != 1) return false;
  for (int64_t i = 1; i < root->operand_count(); ++i) {
    if (root->operand(i) == param) return false;
  }
  return true;
}

}  // namespace

bool CanShareOperandBuffer(const HloInstruction& user, int64_t operand_index) {
  if (operand_index < 0 || operand_index >= user.operand_count()) return false;
  const Shape& out = user.shape();
  const Shape& in = user.operand(operand_index)->shape();
  if (!SameBufferLayout(out, in)) return false;
  if (user.opcode() == HloOpcode::kDynamicUpdateSlice) return operand_index == 0;
  if (IsElementwiseLike(user)) return true;
  if (user.opcode() != HloOpcode::kFusion) return false;
  if (user.GetString(AttrId::kFusionKind) != "kLoop") return false;
  const HloComputation* fused = user.GetComputation(AttrId::kCalls);
  if (fused == nullptr || operand_index >= fused->num_parameters()) return false;
  const HloInstruction* param = fused->parameter_instruction(operand_index);
  if (param == nullptr) return false;
  return RootUpdatesParameterOnly(*fused, param) ||
         (fused->root_instruction()->shape().IsArray() &&
          ReachesRootElementwise(*fused, param, out.dimensions()));
}

bool CanShareOperandBufferAt(const HloInstruction& user, int64_t operand_index,
                             int64_t output_leaf) {
  const Shape& shape = user.shape();
  if (shape.IsArray()) return output_leaf == 0 && CanShareOperandBuffer(user, operand_index);
  if (!shape.IsTuple() || output_leaf < 0 || output_leaf >= shape.tuple_shapes_size()) return false;
  if (operand_index < 0 || operand_index >= user.operand_count()) return false;
  if (user.opcode() != HloOpcode::kFusion || user.GetString(AttrId::kFusionKind) != "kLoop") {
    return false;
  }
  const std::vector<int64_t>& dims = shape.tuple_shapes(output_leaf).dimensions();
  for (const Shape& leaf : shape.tuple_shapes()) {
    if (!leaf.IsArray() || leaf.dimensions() != dims) return false;  // one loop for all leaves
  }
  if (!SameBufferLayout(shape.tuple_shapes(output_leaf), user.operand(operand_index)->shape())) {
    return false;
  }
  const HloComputation* fused = user.GetComputation(AttrId::kCalls);
  if (fused == nullptr || operand_index >= fused->num_parameters()) return false;
  const HloInstruction* root = fused->root_instruction();
  if (root == nullptr || root->opcode() != HloOpcode::kTuple ||
      root->operand_count() != shape.tuple_shapes_size()) {
    return false;
  }
  const HloInstruction* param = fused->parameter_instruction(operand_index);
  return param != nullptr && ReachesRootElementwise(*fused, param, dims);
}

}  // namespace xla
