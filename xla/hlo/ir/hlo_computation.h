// HloComputation: a list of instructions with parameters and a root.
//
// Instructions keep the order in which they were added (the parser adds them
// in text order); MakePostOrder() gives a topological order. The computation
// owns its instructions. Not thread-safe for mutation.
#ifndef XLA_HLO_IR_HLO_COMPUTATION_H_
#define XLA_HLO_IR_HLO_COMPUTATION_H_

#include <memory>
#include <string>
#include <vector>

#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/shape.h"

namespace xla {

class HloModule;

class HloComputation {
 public:
  explicit HloComputation(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }

  // Takes ownership; parameters are also recorded by number. Returns the
  // added instruction.
  HloInstruction* AddInstruction(std::unique_ptr<HloInstruction> instruction);
  // Removes an instruction that has no users, is not the root and is no
  // instruction's control predecessor. Returns false otherwise.
  bool RemoveInstruction(HloInstruction* instruction);
  // Removes every instruction of `dead` in one sweep over the instruction
  // list (RemoveInstruction is linear per call). Each must be removable on
  // its own terms once the others are gone: its users all in `dead`, not the
  // root, no control successors outside `dead`. Returns the number removed;
  // instructions that do not qualify are kept.
  int64_t RemoveInstructions(const std::vector<HloInstruction*>& dead);

  // Reorders the instruction list into MakePostOrder() order, so printing
  // lists operands before users. Instructions are not otherwise changed.
  void SortInstructionsInPostOrder();
  // Reorders the instruction list to `order`, which must name every
  // instruction of this computation exactly once. Returns false, changing
  // nothing, otherwise. Does not check that `order` is topological.
  bool ReorderInstructions(const std::vector<const HloInstruction*>& order);

  // `base` if no instruction of this computation has that name, otherwise
  // `base.N` for the smallest N that is free.
  std::string UniqueInstructionName(const std::string& base) const;
  // Finds an instruction by name; nullptr when absent. Linear time.
  HloInstruction* GetInstruction(const std::string& name) const;

  const std::vector<std::unique_ptr<HloInstruction>>& instructions() const {
    return instructions_;
  }
  int64_t instruction_count() const { return static_cast<int64_t>(instructions_.size()); }

  HloInstruction* root_instruction() const { return root_; }
  void set_root_instruction(HloInstruction* root) { root_ = root; }

  // Parameters indexed by parameter number (nullptr where a number is
  // missing, which the verifier reports).
  const std::vector<HloInstruction*>& parameter_instructions() const { return params_; }
  HloInstruction* parameter_instruction(int64_t i) const { return params_[i]; }
  int64_t num_parameters() const { return static_cast<int64_t>(params_.size()); }

  // Operands before users; control predecessors before their successors.
  // Every instruction appears once. Assumes the graph is acyclic.
  std::vector<HloInstruction*> MakePostOrder() const;

  // The signature from the parameters and the root.
  ProgramShape ComputeProgramShape() const;

  HloModule* parent() const { return parent_; }
  void set_parent(HloModule* parent) { parent_ = parent; }

  bool is_entry() const { return is_entry_; }
  void set_is_entry(bool e) { is_entry_ = e; }

  // The signature written in the text (`(p: f32[]) -> f32[]`), if any. Kept
  // so the printer reproduces parameter names exactly as given.
  bool has_printed_signature() const { return has_signature_; }
  void set_has_printed_signature(bool s) { has_signature_ = s; }

  // The execution thread written after the body (`}, execution_thread="x"`);
  // empty for the main thread.
  const std::string& execution_thread() const { return execution_thread_; }
  void set_execution_thread(std::string t) { execution_thread_ = std::move(t); }

 private:
  // Clears the parameter slot that points at `instruction`, if any.
  void ForgetParameter(const HloInstruction* instruction);

  std::string name_;
  std::vector<std::unique_ptr<HloInstruction>> instructions_;
  std::vector<HloInstruction*> params_;
  HloInstruction* root_ = nullptr;
  HloModule* parent_ = nullptr;
  bool is_entry_ = false;
  bool has_signature_ = false;
  std::string execution_thread_;
};

}  // namespace xla

#endif  // XLA_HLO_IR_HLO_COMPUTATION_H_
