// XLA:CPU's oneDNN layer-norm custom call, `__onednn$layernorm` (XLA:CPU's
// oneDNN rewriter makes it from a layer norm; it appears in programs dumped
// after XLA:CPU's optimizations): what one computes, read and checked once
// so that the evaluator (onednn_layer_norm_op.cc) and the middle-end
// rewrite (onednn_layer_norm_expander.h) agree.
//
// Operands (x, scale, shift): x is a float array [..., C] of rank >= 1,
// scale and shift are float vectors [C]; the result has x's shape and type.
// Over each row of the last dimension, as oneDNN's
// layer_normalization_forward (inference, use_scale | use_shift):
//
//   mean = sum(x) / C,  var = sum((x - mean)^2) / C   (biased)
//   y = (x - mean) / sqrt(var + epsilon) * scale + shift
//
// computed in f32 (f16 and bf16 values are converted; the result is rounded
// once to x's type). The backend_config is JSON:
// {"onednn_layer_norm_config": {"rescale": "SCALE_AND_SHIFT",
//  "epsilon_typecast": <the f32 epsilon's bits as an int32>, "fusions": ...}};
// a missing epsilon_typecast is 0, epsilon 0 (XLA:CPU's handler reads it so).
//
// Pure functions; thread-safe. No compiler code (the evaluator uses it).
#ifndef XLA_HLO_PROTO_ONEDNN_LAYER_NORM_CALL_H_
#define XLA_HLO_PROTO_ONEDNN_LAYER_NORM_CALL_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::onednn {

// The custom-call target, "__onednn$layernorm".
inline constexpr absl::string_view kLayerNormTarget = "__onednn$layernorm";

// One call's meaning.
struct LayerNormCall {
  float epsilon = 0;
};

// Reads `instr` (a custom call to kLayerNormTarget). InvalidArgument naming
// the instruction when: the backend_config is not such JSON; epsilon is
// negative or not finite; there are not 3 operands; x or the result is not
// an f16, bf16 or f32 array of rank >= 1 and one shape; scale or shift is
// not a float vector of x's last dimension. Unimplemented naming the value
// when `rescale` is not SCALE_AND_SHIFT (XLA:CPU emits only that one) or
// `fusions` lists operations (oneDNN post-ops this reader does not apply).
absl::StatusOr<LayerNormCall> ReadLayerNormCall(const HloInstruction& instr);

}  // namespace xla::onednn

#endif  // XLA_HLO_PROTO_ONEDNN_LAYER_NORM_CALL_H_
