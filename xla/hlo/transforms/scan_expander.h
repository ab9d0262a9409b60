// ScanExpander: rewrites `scan` into a while loop over its dimension made of
// dynamic-slice, the scan's own computation (inlined) and
// dynamic-update-slice, as XLA does for a scan it does not treat as
// associative. Every target runs the result; no new thunk or artifact field.
//
// scan(inputs..., carries...), dimensions={d}, num_carries=C, to_apply=f
// with inputs of length n along d and f returning (outputs..., carries...):
//
//   acc_k = zeros of result k's shape (each output stacked along d)
//   for i in [0, n):                                  // while loop over i
//     x_j   = reshape(dynamic-slice(input_j, i along d, size 1)) without d
//     (y..., c...) = f(x..., c...)                    // inlined
//     acc_k = dynamic-update-slice(acc_k, reshape(y_k) with d of size 1)
//   result = (acc..., c...)
//
// which is the evaluator's order, step by step (is_associative is ignored:
// the sequential loop is correct for any computation). Left alone: scans
// with control edges or a non-array operand or result element (the targets
// then refuse them by name).
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_SCAN_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_SCAN_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class ScanExpander : public HloPass {
 public:
  absl::string_view name() const override { return "scan-expander"; }
  // Returns whether a scan was expanded. InvalidArgument naming the
  // instruction when its attributes do not match its operands (the
  // verifier catches these first in the pipeline); inlining errors as
  // InlineCall's.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_SCAN_EXPANDER_H_
