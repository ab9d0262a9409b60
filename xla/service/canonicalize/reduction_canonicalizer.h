// ReductionCanonicalizer ("reduction-canonicalizer"): every reduce becomes a
// row, column or whole-tensor reduction (see reduction_kind.h).
//
// The inputs (all of them, for a variadic reduce) are reshaped so that
// unit dims disappear and adjacent kept or reduced dims merge; when the
// reduced dims are not contiguous they are transposed to the minor end
// first (row form). The result is reshaped back to the original shape.
// Reduced elements are still visited in the same order, so results are
// bit-identical. Reduces with dynamic dims or control edges are left alone.
// Idempotent. Not thread-safe.
#ifndef XLA_SERVICE_CANONICALIZE_REDUCTION_CANONICALIZER_H_
#define XLA_SERVICE_CANONICALIZE_REDUCTION_CANONICALIZER_H_

#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class ReductionCanonicalizer : public HloPass {
 public:
  absl::string_view name() const override { return "reduction-canonicalizer"; }
  // Fails only on a malformed reduce (odd operand count, invalid
  // dimensions: an unverified module); the error names it.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_REDUCTION_CANONICALIZER_H_
