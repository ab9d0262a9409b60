// CholeskyExpander: rewrites `cholesky(a), lower=L` on real floating-point
// matrices into a while loop of ops every target runs (dynamic slices, a
// batched matrix-vector dot, elementwise ops), one loop iteration per
// column.
//
// cholesky(a) factors each Hermitian positive-definite matrix of a's two
// minor dimensions as a = l l^H (lower=true: the result holds l, with zeros
// above the diagonal) or a = u^H u (lower=false: the result holds u = l^H,
// zeros below the diagonal). Only the triangle named by `lower` is read.
// For real matrices ^H is the transpose.
//
// Expansion, with the batch dimensions flattened into one of size b and
// the upper form read as the conjugate transpose of the lower one:
//
//   x = reshape(a) to [b, n, n]   (transposed when lower=false)
//   l = zeros [b, n, n]
//   for j in [0, n):                            // while loop over j
//     row = l[:, j, :]                          // entries k < j are set
//     s   = x[:, :, j] - dot(l, conj(row))      // s_i = a_ij - sum_k l_ik l_jk^*
//     d   = sqrt(real(s[:, j]))                 // the diagonal entry (real)
//     l[:, :, j] = select(i > j, s / d, select(i == j, d, 0))
//   result = reshape(l) (transposed back when lower=false)
//
// This is the column-by-column (left-looking) algorithm the evaluator
// runs, so a matrix that is not positive definite gives NaNs in the same
// places (from the first column whose pivot is negative on). f16, bf16 and
// narrower floats are computed in f32 and rounded once at the end. Complex
// matrices (c64, c128) expand into complex ops (conjugates as
// complex(real, -imag)), which ComplexExpander then makes real. Cholesky
// ops with control edges are left alone (the targets then refuse them by
// name).
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_CHOLESKY_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_CHOLESKY_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class CholeskyExpander : public HloPass {
 public:
  absl::string_view name() const override { return "cholesky-expander"; }
  // Returns whether a cholesky was expanded. InvalidArgument naming the
  // instruction when its operand is not an array with square minor
  // dimensions or its result shape differs from the operand's.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_CHOLESKY_EXPANDER_H_
