// CudnnEpilogueFuser ("cudnn-epilogue-fuser"): a forward cuDNN convolution
// (a custom call of cudnn-convolution-rewriter) followed by the add of a
// per-output-feature bias, and optionally max(., 0), becomes one custom
// call that cuDNN runs as cudnnConvolutionBiasActivationForward (xla_aot
// compile --emit_cudnn_convolutions, for runtimes that read feature
// "cudnn_convolutions.fused_epilogue"; runs right after the rewriter):
//
//   add(conv, broadcast(b))            custom-call(x, w', bias),
//                                      custom_call_target=
//                                      "__xla_aot$cudnn_conv_forward_bias"
//   maximum(that, broadcast(0))        custom-call(x, w', bias),
//                                      custom_call_target=
//                                      "__xla_aot$cudnn_conv_forward_bias_relu"
//
// as JAX and Keras print a convolution layer's bias (ResNet-50 in the
// corpus: broadcast(reshape(p)) along the output feature dimension, which
// the simplifier leaves as broadcast(f32[1,64]) or broadcast(f32[64])).
// The call keeps the convolution's window, dim_labels, feature groups and
// operand precision; `bias` is the broadcast's operand reshaped to [K].
// Either operand order of add and maximum matches, and the zero may be a
// broadcast scalar or a constant of the full shape (both also -0).
//
// Matched only when: the convolution's only user is the add (and the bias
// call's only user the maximum), and it is not its computation's root; the
// add and maximum have the convolution's shape and element type, the type is
// f32 or f16 (cuDNN's legacy fused call takes its bias in the data type;
// bf16 is left alone, as its support there is not documented), and the
// broadcast puts its operand's one non-unit dimension (of extent K) on the
// output feature dimension. Anything else stays as it was: the add and
// maximum fuse into a loop kernel as before. A fused convolution whose old
// call is left without users is removed.
//
// Not thread-safe (mutates the module).
#ifndef XLA_SERVICE_CANONICALIZE_CUDNN_EPILOGUE_FUSER_H_
#define XLA_SERVICE_CANONICALIZE_CUDNN_EPILOGUE_FUSER_H_

#include "absl/strings/string_view.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

class CudnnEpilogueFuser : public HloPass {
 public:
  absl::string_view name() const override { return "cudnn-epilogue-fuser"; }
  // Never fails on a verified module.
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_CUDNN_EPILOGUE_FUSER_H_
