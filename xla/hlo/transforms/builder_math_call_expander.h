// BuilderMathCallExpander: expands the custom calls XLA's builder library
// leaves for math functions it has no HLO opcode for, on real floating-point
// operands, into elementwise HLO every target runs:
//
//   custom-call(x), custom_call_target="xla_builder.math.Acos"
//     -> atan2(sqrt((1 - x) * (1 + x)), x)
//
// This is acos's principal value: 0 at 1, pi at -1 (atan2(0, -1)), and NaN
// outside [-1, 1] (the square root of a negative number), as the evaluator's
// std::acos gives. (1 - x)(1 + x) loses less precision near |x| = 1 than
// 1 - x * x. f16, bf16 and narrower floats are computed in f32. A complex
// operand becomes the `acos` opcode (principal value, as std::acos), which
// ComplexExpander writes in real ops. Other xla_builder targets are left
// alone (the targets then refuse them by name).
//
// Not thread-safe (mutates the module).
#ifndef XLA_HLO_TRANSFORMS_BUILDER_MATH_CALL_EXPANDER_H_
#define XLA_HLO_TRANSFORMS_BUILDER_MATH_CALL_EXPANDER_H_

#include "absl/status/statusor.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class BuilderMathCallExpander : public HloPass {
 public:
  absl::string_view name() const override { return "builder-math-call-expander"; }
  // Returns whether a custom call was expanded.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_HLO_TRANSFORMS_BUILDER_MATH_CALL_EXPANDER_H_
