// WhileLoopInvariantCodeMotion: hoists loop-invariant computations out of
// while bodies.
//
// A tuple element of the loop state is invariant when the body passes it
// through unchanged (root operand j is gte(param, j)). A body instruction is
// invariant when it is such a gte, a constant, or a pure, cheap-to-clone op
// (no side effects, no rng, no control flow or custom calls, array result,
// no control edges) whose operands are all invariant. Invariant instructions
// used by the rest of the body (the "frontier") are computed once before the
// loop and passed in as extra tuple elements; the body reads them with a
// gte. Frontier instructions that grow the data (broadcasts and any result
// larger than its operands) or cost nothing (reshape, bitcast) stay inside.
//
// Only loops whose body and condition are called by this loop alone, whose
// body root is a tuple, whose parameters are only read through gte, and that
// have no control edges are rewritten; the rest are skipped, unchanged. The
// old loop is replaced by a new one with a wider state and a tuple of its
// first elements (TupleSimplifier and HloDCE clean up). Inner loops are
// processed before outer ones. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_WHILE_LOOP_INVARIANT_CODE_MOTION_H_
#define XLA_HLO_TRANSFORMS_WHILE_LOOP_INVARIANT_CODE_MOTION_H_

#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class WhileLoopInvariantCodeMotion : public HloPass {
 public:
  absl::string_view name() const override { return "while-loop-invariant-code-motion"; }
  // Fails only on malformed IR (a shape mismatch while rewiring, naming the
  // loop).
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_WHILE_LOOP_INVARIANT_CODE_MOTION_H_
