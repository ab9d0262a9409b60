// TriangularSolveExpander: rewrites `triangular-solve(a, b)` on real
// floating-point and complex matrices into a while loop of ops every target runs
// (dynamic slices, a batched vector-matrix dot, elementwise ops), one loop
// iteration per row of the solution.
//
// triangular-solve solves op(t) x = b (left_side=true) or x op(t) = b
// (left_side=false) for x, where t is the triangle of a that `lower` names
// (the other triangle is never read), with ones on its diagonal when
// unit_diagonal=true, and op is the identity (NO_TRANSPOSE), the
// transpose (TRANSPOSE) or the conjugate transpose (ADJOINT; the transpose
// for real numbers). a is
// [..., m, m] and b [..., m, n] (left) or [..., n, m] (right); x has b's
// shape.
//
// Every case becomes one forward substitution with a lower-triangular
// matrix, batch dimensions flattened into one of size B:
//
//   t = op(masked triangle of a)           (transposed once more for right
//                                           side: x t = b <=> t^T x^T = b^T)
//   if t is upper: t = reverse(t) on both matrix dimensions and b's rows
//                  reversed (J t J is lower for the reversal J)
//   x = zeros [B, m, n]
//   for i in [0, m):                       // while loop over rows
//     s = b[:, i, :] - dot(t[:, i, k < i], x)
//     x[:, i, :] = s / t[:, i, i]
//   undo the reversal and the transpose of the right-side case
//
// This is the substitution the evaluator runs, up to the order in which
// each row's sum is added. f16, bf16 and narrower floats are computed in
// f32 and rounded once. Complex operands (c64, c128) expand into complex
// ops, which ComplexExpander then makes real. Instructions with control
// edges are left alone (the targets then refuse them by name).
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_TRIANGULAR_SOLVE_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_TRIANGULAR_SOLVE_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class TriangularSolveExpander : public HloPass {
 public:
  absl::string_view name() const override { return "triangular-solve-expander"; }
  // Returns whether a triangular-solve was expanded. InvalidArgument naming
  // the instruction when the shapes of a, b and the result do not fit
  // together or transpose_a is not NO_TRANSPOSE, TRANSPOSE or ADJOINT.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_TRIANGULAR_SOLVE_EXPANDER_H_
