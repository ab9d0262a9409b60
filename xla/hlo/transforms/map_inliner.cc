#include "xla/hlo/transforms/map_inliner.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "xla/hlo/transforms/hlo_util.h"

namespace xla {
namespace {

// True when `op`, applied to scalars, can be applied to arrays elementwise.
bool IsArrayLiftable(HloOpcode op) {
  return IsElementwise(op) || op == HloOpcode::kConvert || op == HloOpcode::kSelect ||
         op == HloOpcode::kClamp;
}

bool CanInline(const HloInstruction& map,
               const absl::flat_hash_set<const HloInstruction*>& control_preds) {
  const HloComputation* f = map.to_apply();
  if (f == nullptr || !map.shape().IsArray() ||
      !map.control_predecessors().empty() || control_preds.contains(&map)) {
    return false;
  }
  for (const auto& instr : f->instructions()) {
    if (!instr->shape().IsArray() || instr->shape().rank() != 0) return false;
    if (!instr->control_predecessors().empty()) return false;
    const HloOpcode op = instr->opcode();
    if (op == HloOpcode::kParameter || op == HloOpcode::kConstant) continue;
    if (!IsArrayLiftable(op)) return false;
  }
  return true;
}

// `dims` of the map with `type` (the map's layout is kept when the element
// type matches; otherwise the layout is left for layout assignment).
Shape LiftedShape(const Shape& map_shape, PrimitiveType type) {
  if (map_shape.element_type() == type) return map_shape;
  return Shape::Array(type, map_shape.dimensions());
}

absl::Status InlineMap(HloInstruction* map, NameUniquer* names) {
  HloComputation* caller = map->parent();
  const HloComputation* f = map->to_apply();
  if (f->num_parameters() != map->operand_count()) {
    return absl::InvalidArgumentError(absl::StrCat("map '", map->name(), "' passes ",
                                                   map->operand_count(), " operands to '",
                                                   f->name(), "' which takes ",
                                                   f->num_parameters()));
  }
  absl::flat_hash_map<const HloInstruction*, HloInstruction*> lifted;
  for (const HloInstruction* instr : f->MakePostOrder()) {
    const Shape shape = LiftedShape(map->shape(), instr->shape().element_type());
    if (instr->opcode() == HloOpcode::kParameter) {
      lifted[instr] = map->operand(instr->parameter_number());
      continue;
    }
    if (instr->opcode() == HloOpcode::kConstant) {
      HloInstruction* scalar = caller->AddInstruction(
          instr->CloneWithNewOperands(instr->shape(), {}, names->Unique(instr->name())));
      lifted[instr] = AddBroadcastOfScalar(caller, names, scalar, shape);
      continue;
    }
    std::vector<HloInstruction*> operands;
    for (const HloInstruction* op : instr->operands()) operands.push_back(lifted.at(op));
    lifted[instr] = caller->AddInstruction(
        instr->CloneWithNewOperands(shape, operands, names->Unique(instr->name())));
  }
  return ReplaceInstruction(map, lifted.at(f->root_instruction()));
}

}  // namespace

absl::StatusOr<bool> MapInliner::Run(HloModule* module) {
  bool changed = false;
  for (HloComputation* computation : module->MakeComputationPostOrder()) {
    const absl::flat_hash_set<const HloInstruction*> control_preds =
        ControlPredecessorSet(*computation);
    std::vector<HloInstruction*> maps;
    for (const auto& instr : computation->instructions()) {
      if (instr->opcode() == HloOpcode::kMap && CanInline(*instr, control_preds)) {
        maps.push_back(instr.get());
      }
    }
    if (maps.empty()) continue;
    NameUniquer names(*computation);
    for (HloInstruction* map : maps) {
      if (absl::Status s = InlineMap(map, &names); !s.ok()) return s;
      changed = true;
    }
  }
  return changed;
}

}  // namespace xla
