// HloDCE: dead code elimination.
//
// Removes instructions whose value nobody uses (not the root, no users, not a
// control predecessor) unless they have side effects (HasSideEffect:
// collectives, send/recv, infeed/outfeed, rng, tokens, side-effecting custom
// calls, and calls/whiles/conditionals that contain such ops) or are
// parameters. Then removes computations that the entry no longer reaches.
// Deterministic. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_HLO_DCE_H_
#define XLA_HLO_TRANSFORMS_HLO_DCE_H_

#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class HloDCE : public HloPass {
 public:
  absl::string_view name() const override { return "dce"; }
  // Never fails on a verified module.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

// Removes dead instructions of one computation (as HloDCE does). Returns
// true when something was removed.
bool RemoveDeadInstructions(HloComputation* computation);

// Removes computations unreachable from the entry. Returns true when
// something was removed.
bool RemoveUnreachableComputations(HloModule* module);

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_HLO_DCE_H_
