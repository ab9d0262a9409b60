// AlgebraicSimplifier: local rewrites that keep the exact result.
//
// Identities removed (the replacement is the operand x):
//   x + (-0.0) and x + 0 (ints); x - (+0.0) and x - 0; x * 1; x / 1;
//   reshape/transpose/broadcast/convert/copy that keep the shape (and
//   layout); slice of the full range; pad with zero padding; concatenate of
//   one operand; reverse of size-1 dimensions; negate(negate(x));
//   select with a constant predicate (-> the chosen operand).
// Chains merged:
//   reshape(reshape(x)) -> reshape(x); transpose(transpose(x)) -> one
//   transpose or x; broadcast(broadcast(x)) -> one broadcast;
//   reshape/transpose of broadcast(scalar) -> broadcast(scalar).
// Cheaper forms:
//   x / c -> x * (1/c) when c is a uniform float constant whose reciprocal
//   is exact (a power of two), or any finite nonzero c with allow_inexact;
//   x - x -> 0 for integers only (for floats NaN and inf make it wrong).
// Not rewritten, on purpose: x + 0.0 for floats (-0.0 + 0.0 is +0.0).
//
// Rewrites repeat until nothing changes (bounded), then dead instructions
// are removed. Deterministic. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_ALGEBRAIC_SIMPLIFIER_H_
#define XLA_HLO_TRANSFORMS_ALGEBRAIC_SIMPLIFIER_H_

#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

struct AlgebraicSimplifierOptions {
  // Allow rewrites that may change results by rounding (x / c -> x * (1/c)
  // for any float constant c).
  bool allow_inexact = false;
  // Sweeps over a computation before giving up on reaching a fixed point.
  int max_sweeps = 8;
};

class AlgebraicSimplifier : public HloPass {
 public:
  explicit AlgebraicSimplifier(AlgebraicSimplifierOptions options = {}) : options_(options) {}
  absl::string_view name() const override { return "algebraic-simplifier"; }
  // Never fails on a verified module.
  absl::StatusOr<bool> Run(HloModule* module) override;

 private:
  AlgebraicSimplifierOptions options_;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_ALGEBRAIC_SIMPLIFIER_H_
