// EinsumExpander: XLA's `xla_builder.matrix.Einsum` custom call (the
// equation in backend_config, xla/hlo/ir/einsum_spec.h) becomes ops every
// target runs:
//
//   1. in each operand, a repeated label keeps the diagonal: select(iota_p ==
//      iota_q, x, 0) summed over q, until its labels are distinct;
//   2. labels in one operand only and not in the output are summed away;
//   3. two operands meet in one dot: labels in both and in the output are
//      batch dimensions, labels in both and not in the output contracting;
//   4. a transpose puts the labels in the output's order, converted to the
//      result type;
//   5. a label repeated in the output is written on the diagonal: a
//      broadcast to the output's dimensions, zeros where the repeated
//      positions' coordinates differ.
//
// The equation's errors (ReadEinsumSpec) are returned naming the call; an
// ellipsis is Unimplemented. Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_EINSUM_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_EINSUM_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class EinsumExpander : public HloPass {
 public:
  absl::string_view name() const override { return "einsum-expander"; }
  // Returns whether an einsum custom call was expanded (errors: see the
  // file comment).
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_EINSUM_EXPANDER_H_
