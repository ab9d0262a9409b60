// HloInstruction: one operation in an HloComputation.
//
// An instruction has a name (unique within its computation), an opcode, a result
// shape, operands (other instructions of the same computation), and typed
// attributes from the table in hlo_attribute.h. Parameters carry their
// number; constants own their Literal. Called computations (to_apply, body,
// calls, ...) are attributes that point at computations of the same module.
//
// Ownership: the parent HloComputation owns its instructions. Operand and
// user pointers are non-owning. Not thread-safe for mutation; const access
// from several threads is fine.
#ifndef XLA_HLO_IR_HLO_INSTRUCTION_H_
#define XLA_HLO_IR_HLO_INSTRUCTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "xla/hlo/ir/hlo_attribute.h"
#include "xla/hlo/ir/hlo_opcode.h"
#include "xla/types/literal.h"
#include "xla/types/shape.h"

namespace xla {

class HloComputation;

class HloInstruction {
 public:
  HloInstruction(HloOpcode opcode, std::string name, Shape shape);

  // Factories for the common cases.
  static std::unique_ptr<HloInstruction> CreateParameter(int64_t number, Shape shape,
                                                         std::string name);
  static std::unique_ptr<HloInstruction> CreateConstant(Literal literal, std::string name);
  static std::unique_ptr<HloInstruction> Create(HloOpcode opcode, Shape shape,
                                                std::vector<HloInstruction*> operands,
                                                std::string name);

  HloOpcode opcode() const { return opcode_; }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  const Shape& shape() const { return shape_; }
  Shape* mutable_shape() { return &shape_; }

  // Operands, in order. AppendOperand/ReplaceOperandWith keep users in sync.
  const std::vector<HloInstruction*>& operands() const { return operands_; }
  HloInstruction* operand(int64_t i) const { return operands_[i]; }
  int64_t operand_count() const { return static_cast<int64_t>(operands_.size()); }
  void AppendOperand(HloInstruction* operand);
  void ReplaceOperandWith(int64_t i, HloInstruction* operand);
  // Drops all operands (and this instruction from their user lists).
  void DetachFromOperands();
  // Makes every user of this instruction (and the parent's root, if this is
  // the root) use `replacement` instead. Fails, changing nothing, when the
  // shapes are not compatible (layouts ignored) or `replacement` belongs to
  // another computation.
  absl::Status ReplaceAllUsesWith(HloInstruction* replacement);
  // Replaces every occurrence of `old_operand` among the operands.
  void ReplaceOperand(HloInstruction* old_operand, HloInstruction* new_operand);

  // A copy with the same opcode, attributes, parameter number and literal,
  // the given shape and operands, and `name`. Control predecessors are not
  // copied. The copy has no parent until added to a computation.
  std::unique_ptr<HloInstruction> CloneWithNewOperands(const Shape& shape,
                                                       const std::vector<HloInstruction*>& operands,
                                                       std::string name) const;
  // Instructions that use this one as an operand (each listed once).
  const std::vector<HloInstruction*>& users() const { return users_; }

  // Control predecessors: instructions that must run before this one.
  const std::vector<HloInstruction*>& control_predecessors() const { return control_preds_; }
  // Instructions that name this one as a control predecessor (kept in sync
  // by AddControlPredecessor / DropControlEdges).
  const std::vector<HloInstruction*>& control_successors() const { return control_succs_; }
  void AddControlPredecessor(HloInstruction* pred);
  // Removes every control edge into and out of this instruction.
  void DropControlEdges();

  HloComputation* parent() const { return parent_; }
  void set_parent(HloComputation* parent) { parent_ = parent; }

  // parameter(N): the parameter number.
  int64_t parameter_number() const { return parameter_number_; }
  void set_parameter_number(int64_t n) { parameter_number_ = n; }
  // constant(...): the value. Must only be called when has_literal().
  bool has_literal() const { return literal_ != nullptr; }
  const Literal& literal() const { return *literal_; }
  void set_literal(Literal literal);

  // Attributes, kept sorted by AttrId (the canonical print order).
  bool has_attr(AttrId id) const { return FindAttr(id) != nullptr; }
  const AttrValue* FindAttr(AttrId id) const;
  // `value` must hold the type that AttrKindOf(id) calls for (checked: a
  // mismatch is a programmer error).
  void SetAttr(AttrId id, AttrValue value);
  void ClearAttr(AttrId id);
  const std::vector<std::pair<AttrId, AttrValue>>& attrs() const { return attrs_; }

  // Typed attribute access. Each returns the given default when absent; the
  // attribute's kind must match the accessor (a programmer error otherwise).
  int64_t GetInt(AttrId id, int64_t default_value = 0) const;
  bool GetBool(AttrId id, bool default_value = false) const;
  double GetFloat(AttrId id, double default_value = 0) const;
  const std::vector<int64_t>& GetIntList(AttrId id) const;  // empty when absent
  const std::string& GetString(AttrId id) const;            // empty when absent
  // A single-computation attribute, or nullptr.
  HloComputation* GetComputation(AttrId id) const;
  // Every computation this instruction calls, in attribute order.
  std::vector<HloComputation*> called_computations() const;

  // Convenience for frequent attributes.
  const std::vector<int64_t>& dimensions() const { return GetIntList(AttrId::kDimensions); }
  int64_t tuple_index() const { return GetInt(AttrId::kIndex); }
  HloComputation* to_apply() const { return GetComputation(AttrId::kToApply); }

  // One line of HLO text, without indentation or the ROOT marker.
  std::string ToString() const;

  // Unique id within the module (assigned when added to a computation).
  int64_t unique_id() const { return unique_id_; }
  void set_unique_id(int64_t id) { unique_id_ = id; }

  // Where the instruction was written in the module's source text (the
  // parser sets it; clones keep their original's). Line and column count
  // from 1; {0, 0} means unknown (made by a pass, or built in code).
  struct SourceLocation {
    int32_t line = 0;
    int32_t column = 0;
    bool known() const { return line > 0; }
  };
  const SourceLocation& source_location() const { return source_location_; }
  void set_source_location(SourceLocation location) { source_location_ = location; }

 private:
  void AddUser(HloInstruction* user);
  void RemoveUser(HloInstruction* user);

  HloOpcode opcode_;
  std::string name_;
  Shape shape_;
  std::vector<HloInstruction*> operands_;
  std::vector<HloInstruction*> users_;
  std::vector<HloInstruction*> control_preds_;
  std::vector<HloInstruction*> control_succs_;
  HloComputation* parent_ = nullptr;
  int64_t parameter_number_ = -1;
  std::unique_ptr<Literal> literal_;
  std::vector<std::pair<AttrId, AttrValue>> attrs_;
  int64_t unique_id_ = -1;
  SourceLocation source_location_;
};

}  // namespace xla

#endif  // XLA_HLO_IR_HLO_INSTRUCTION_H_
