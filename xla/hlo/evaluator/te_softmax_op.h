// Internal to the evaluator: Transformer Engine's scaled-softmax custom
// calls (`te_scaled_softmax_forward_ffi` and its masked, upper-triangular
// and backward neighbours; xla/hlo/proto/te_softmax_call.h says what each
// computes) in plain f64 arithmetic over each row of the last dimension,
// rounded once to the result type: the oracle for the middle end's rewrite
// (te_softmax_expander.h).
//
// Calls the reader refuses (a missing or non-float scale_factor, wrong
// operand counts, types or mask shapes) fail with its InvalidArgument,
// naming the instruction.
//
// Thread-safety: pure functions.
#ifndef XLA_HLO_EVALUATOR_TE_SOFTMAX_OP_H_
#define XLA_HLO_EVALUATOR_TE_SOFTMAX_OP_H_

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/literal.h"

namespace xla::evaluator {

// Evaluates a TE softmax custom call (te_softmax::IsTeSoftmaxTarget of its
// target) on its operands' values.
absl::StatusOr<Literal> EvalTeSoftmax(const HloInstruction& instr,
                                      absl::Span<const Literal* const> operands);

}  // namespace xla::evaluator

#endif  // XLA_HLO_EVALUATOR_TE_SOFTMAX_OP_H_
