// DynamicReshapeRewriter: turns `dynamic-reshape(x, size_0, ..., size_r-1)`
// into `reshape(x)` wherever the bounds of the result fix its sizes.
//
// A dynamic-reshape keeps x's elements in row-major order and gives the
// result the runtime sizes `size_i`, each at most the result's bound
// `<=b_i`; their product must equal x's element count. When x is static and
// the product of the bounds equals x's element count, the only sizes that
// satisfy both are the bounds themselves, so the op is exactly the static
// reshape to those bounds for every valid input (the size operands are then
// unused). That is the form JAX's bounded-dynamic export leaves when the
// sizes are known to fill the bounds.
//
// Any other dynamic-reshape (a dynamic or unbounded operand, or bounds that
// hold more elements than the operand) needs sizes known only at run time,
// which this compiler does not support: the pass fails with Unimplemented,
// naming the instruction, the bounds and the operand.
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_DYNAMIC_RESHAPE_REWRITER_H_
#define XLA_HLO_TRANSFORMS_DYNAMIC_RESHAPE_REWRITER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class DynamicReshapeRewriter : public HloPass {
 public:
  absl::string_view name() const override { return "dynamic-reshape-rewriter"; }
  // Returns whether a dynamic-reshape was rewritten; Unimplemented
  // "dynamic-reshape '<name>': ..." for one whose sizes the bounds do not
  // fix (nothing is rewritten then).
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_DYNAMIC_RESHAPE_REWRITER_H_
