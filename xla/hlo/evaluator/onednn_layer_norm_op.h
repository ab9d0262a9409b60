// Internal to the evaluator: XLA:CPU's oneDNN layer-norm custom call
// (`__onednn$layernorm`; xla/hlo/proto/onednn_layer_norm_call.h says what
// it computes) in plain f64 arithmetic over each row of the last
// dimension, rounded once to the result type: the oracle for the middle
// end's rewrite (onednn_layer_norm_expander.h), which computes in f32.
//
// Calls the reader refuses (config, rescale, fused ops, operands, epsilon)
// fail with its error, naming the instruction.
//
// Thread-safety: pure functions.
#ifndef XLA_HLO_EVALUATOR_ONEDNN_LAYER_NORM_OP_H_
#define XLA_HLO_EVALUATOR_ONEDNN_LAYER_NORM_OP_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/literal.h"

namespace xla::evaluator {

// Evaluates a `__onednn$layernorm` custom call on its operands' values
// (x, scale, shift).
absl::StatusOr<Literal> EvalOneDnnLayerNorm(const HloInstruction& instr,
                                            absl::Span<const Literal* const> operands);

}  // namespace xla::evaluator

#endif  // XLA_HLO_EVALUATOR_ONEDNN_LAYER_NORM_OP_H_
