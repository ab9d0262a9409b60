// Internal to the evaluator: Transformer Engine's fused attention custom
// calls (`te_fused_attn_forward_ffi`, `te_fused_attn_backward_ffi`) in
// plain f64 arithmetic, the oracle for the built-in host handlers.
//
// Forward: scores = scaling_factor * Q K^T, masked (xla/backends/gpu/ffi/
// te_fused_attention.h says which keys a query sees), softmax per row,
// times V. Results: output (rounded to Q's type), softmax_aux (the f32
// log-sum-exp of each row's visible scores), rng_state and workspace
// (zeros; the workspace is scratch, not a value anyone should compare).
//
// Backward: the textbook gradient, recomputed from Q, K, V and dO alone
// (the softmax_aux and output operands are not read): P as above,
// dV = P^T dO, dP = dO V^T, dS = P * (dP - rowsum(P * dP)),
// dQ = scale dS K, dK = scale dS^T Q; GQA sums dK and dV over the query
// heads that share a key/value head; packed layouts get packed gradients.
// Results: dq, dk, dv, dbias (empty), workspace (zeros).
//
// Unsupported attributes (dropout, bias, sliding windows, THD layouts,
// bottom-right causal masks), shapes that do not match the attributes and
// bad cu_seqlens fail with InvalidArgument naming the instruction and the
// attribute, operand or sequence.
//
// Thread-safety: pure functions.
#ifndef XLA_HLO_EVALUATOR_FUSED_ATTENTION_OP_H_
#define XLA_HLO_EVALUATOR_FUSED_ATTENTION_OP_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/types/literal.h"

namespace xla::evaluator {

// True for the custom-call targets EvalTeFusedAttention implements.
bool IsTeFusedAttentionCall(absl::string_view target);

// Evaluates a te_fused_attn_forward_ffi or te_fused_attn_backward_ffi
// custom call (see above) on its operands' values.
absl::StatusOr<Literal> EvalTeFusedAttention(const HloInstruction& instr,
                                             absl::Span<const Literal* const> operands);

}  // namespace xla::evaluator

#endif  // XLA_HLO_EVALUATOR_FUSED_ATTENTION_OP_H_
