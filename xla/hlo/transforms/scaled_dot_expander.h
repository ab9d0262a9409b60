// ScaledDotExpander: `scaled-dot(lhs, rhs, lhs_scale, rhs_scale)` (block
// scaled, MX formats) becomes the dot of the dequantized operands:
//
//   x' = convert(x, T) * expand(convert(scale, T))   for (lhs, lhs_scale)
//                                                     and (rhs, rhs_scale)
//   result = convert(dot(lhs', rhs'), result type)
//
// with the scaled-dot's dimension numbers and precisions. A scale of the
// operand's rank covers blocks of x.dims[d] / scale.dims[d] elements per
// dimension (expanded by a broadcast to [s0, b0, s1, b1, ...] and a reshape);
// a scalar scale multiplies everything. T is f64 when the result is f64,
// f32 otherwise. No native block-scaled GEMM is used (sm_90 has none).
//
// InvalidArgument naming the instruction when an operand or scale is not a
// float array or a scale neither is a scalar nor divides its operand.
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_SCALED_DOT_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_SCALED_DOT_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class ScaledDotExpander : public HloPass {
 public:
  absl::string_view name() const override { return "scaled-dot-expander"; }
  // Returns whether a scaled-dot was expanded (errors: see the file comment).
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_SCALED_DOT_EXPANDER_H_
