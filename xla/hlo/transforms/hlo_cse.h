// HloCSE: common subexpression elimination.
//
// Within each computation, an instruction equal to an earlier one (same
// opcode, shape including layout, operands, attributes other than metadata,
// parameter number and literal) is replaced by the earlier one. Constants
// merge by value (bitwise equal literals of the same shape). Never merges
// instructions with side effects (HasSideEffect), rng ops, parameters, or
// instructions with control edges. Deterministic: the first instruction in
// post order survives. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_HLO_CSE_H_
#define XLA_HLO_TRANSFORMS_HLO_CSE_H_

#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class HloCSE : public HloPass {
 public:
  absl::string_view name() const override { return "cse"; }
  // Never fails on a verified module.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// True when `a` and `b` compute the same value by the rules above (operands
// compared by identity).
bool InstructionsEquivalent(const HloInstruction& a, const HloInstruction& b);

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_HLO_CSE_H_
