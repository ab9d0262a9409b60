// Transformer Engine's scaled-softmax custom calls, as its JAX bindings
// emit them (typed FFI, `backend_config={scale_factor = ... : f64}`): what
// one computes, read and checked once so that the evaluator
// (te_softmax_op.cc) and the middle-end rewrite (te_softmax_expander.h)
// agree.
//
// Over the last dimension (a row of length Sk), with s = scale_factor:
//
//   forward:   y = softmax(s * x)
//   backward:  dx = s * y * (dy - sum(dy * y))      (operands dy, y)
//
// and the masked forms, from TE's kernels (transformer_engine/common/
// fused_softmax/):
//
// * `te_scaled_masked_softmax_forward_ffi` takes (x, mask): a mask byte
//   equal to 1 replaces the position's value with -10000 (not scaled; any
//   other byte keeps s * x), and a row whose maximum is then exactly
//   -10000 (every position masked) gives zeros. x is [..., H, Sq, Sk]
//   (rank >= 3); mask is [..., 1, Sq, Sk], u8 (TE's dtype; pred and s8 are
//   read as the same bytes), its leading dimensions' product 1 (shared) or
//   that of x (one per batch). Its backward is the plain backward.
// * `te_scaled_upper_triang_masked_softmax_*_ffi` are causal: x is
//   [..., S, S] and query row i sees keys j <= i; the others are left out
//   of the row and get 0 (the backward reads y as 0 there too, so dx is 0).
//
// Element types: f16 and bf16 (TE's), and f32; the result has the
// operands' type and shape. All six targets are known; no other `te_*`
// softmax target exists in TE's JAX bindings.
//
// Pure functions; thread-safe. No compiler code (the evaluator uses it).
#ifndef XLA_HLO_PROTO_TE_SOFTMAX_CALL_H_
#define XLA_HLO_PROTO_TE_SOFTMAX_CALL_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::te_softmax {

// How a call masks its rows.
enum class TeSoftmaxMask {
  kNone,     // every position
  kOperand,  // the forward's mask operand (operand 1)
  kCausal,   // upper-triangular: key j visible to query i when j <= i
};

// One call's meaning.
struct TeSoftmaxCall {
  bool backward = false;  // operands (dy, y) instead of (x[, mask])
  TeSoftmaxMask mask = TeSoftmaxMask::kNone;
  double scale = 1;  // scale_factor, rounded to f32 as TE's handlers do
};

// True for the six `te_scaled_*softmax_{forward,backward}_ffi` targets.
bool IsTeSoftmaxTarget(absl::string_view target);

// Reads `instr` (a custom call of such a target). InvalidArgument naming
// the instruction and the target when: the backend_config does not parse
// as a typed-FFI dictionary, `scale_factor` is missing or not a float; the
// operand count is not the target's; an operand or the result is not an
// f16, bf16 or f32 array of one shape and rank >= 1; a causal call's last two
// dimensions differ; a masked call's x has rank < 3 or its mask's type,
// rank or dimensions do not fit x (as above).
absl::StatusOr<TeSoftmaxCall> ReadTeSoftmaxCall(const HloInstruction& instr);

}  // namespace xla::te_softmax

#endif  // XLA_HLO_PROTO_TE_SOFTMAX_CALL_H_
