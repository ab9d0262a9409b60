// CudnnConvolutionRewriter ("cudnn-convolution-rewriter"): convolutions
// that cuDNN's legacy API runs become custom calls the GPU thunk emitter
// lowers to ConvolutionThunkProto (xla_aot compile --emit_cudnn_convolutions,
// CUDA targets only; runs before convolution-canonicalizer, so the
// activations keep their dimension numbers and reach cuDNN as strided
// tensor descriptors, never transposed).
//
//   forward          custom-call(input, kernel'), custom_call_target=
//                    "__xla_aot$cudnn_conv_forward"
//   backward data    custom-call(dy, kernel'), custom_call_target=
//                    "__xla_aot$cudnn_conv_backward_data"
//   backward filter  transpose(custom-call(x, dy)), custom_call_target=
//                    "__xla_aot$cudnn_conv_backward_filter"
// Each keeps the convolution's window, feature_group_count and
// operand_precision; its dim_labels are the convolution's with the kernel
// part rewritten for kernel'. kernel' is the kernel transposed, when it is
// not already, to cuDNN's packed filter order: [o, spatial.., i] when the
// input's feature dimension is its last, [o, i, spatial..] otherwise (the
// filter descriptor has no strides; a weight transpose is one small fused
// copy kernel). Backward data also reverses the kernel's spatial dimensions
// and swaps the roles of i and o ([i, spatial.., o] or [i, o, spatial..]).
//
// Forward: every window stride, window dilation and feature group count;
// 1, 2 or 3 spatial dimensions (1-D as 2-D with a unit dimension);
// symmetric padding. Backward data: a convolution with base (lhs) dilation
// s > 1 in some dimension, window strides 1, no feature groups, and per
// dimension (window size K, window dilation d, padding lo/hi) the
// transposed-convolution shape: p = (K - 1) * d - lo >= 0 and
// 0 <= hi - lo < s (cuDNN's dx size formula then gives the output size); it
// computes dx with stride s, padding p, dilation d.
//
// Backward filter: a convolution that passes the forward rules, has no
// feature groups, and whose dilated window is wider than its output in
// every spatial dimension (a weight gradient: the window is the output
// gradient dy, the result the filter gradient dw), when cuDNN's dy size
// formula holds with forward stride = window dilation and forward dilation
// = window stride. x and dy reach cuDNN as strided descriptors; dw is
// computed packed as [f, b, spatial..] when the result already is so,
// else [f, spatial.., b], and transposed back (a filter-sized copy).
//
// Left alone (they keep the im2col + GEMM or direct-kernel path), with the
// reason CudnnConvolutionRefusal gives: element types other than one of
// f16, bf16, f32 for operands and result; dynamic shapes; no or more than
// three spatial dimensions; batch_group_count > 1 (depthwise weight
// gradients); window reversal; asymmetric or negative padding of a forward
// convolution; a base-dilated convolution outside the backward-data shape
// above.
//
// Not thread-safe (mutates the module).
#ifndef XLA_SERVICE_CANONICALIZE_CUDNN_CONVOLUTION_REWRITER_H_
#define XLA_SERVICE_CANONICALIZE_CUDNN_CONVOLUTION_REWRITER_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "xla/hlo/ir/hlo_instruction.h"
#include "xla/hlo/transforms/hlo_pass.h"

namespace xla {

inline constexpr absl::string_view kCudnnConvForwardTarget = "__xla_aot$cudnn_conv_forward";
inline constexpr absl::string_view kCudnnConvBackwardDataTarget =
    "__xla_aot$cudnn_conv_backward_data";
inline constexpr absl::string_view kCudnnConvBackwardFilterTarget =
    "__xla_aot$cudnn_conv_backward_filter";
// A forward convolution with its bias (+ ReLU) fused: operands (x, w', bias
// [K]); made by cudnn-epilogue-fuser (cudnn_epilogue_fuser.h).
inline constexpr absl::string_view kCudnnConvForwardBiasTarget =
    "__xla_aot$cudnn_conv_forward_bias";
inline constexpr absl::string_view kCudnnConvForwardBiasReluTarget =
    "__xla_aot$cudnn_conv_forward_bias_relu";

// True for a custom call this pass or cudnn-epilogue-fuser made.
bool IsCudnnConvolutionCall(const HloInstruction& instr);

// Why `conv` (a convolution) stays off cuDNN, or nullopt when the pass
// rewrites it. Pure.
std::optional<std::string> CudnnConvolutionRefusal(const HloInstruction& conv);

class CudnnConvolutionRewriter : public HloPass {
 public:
  absl::string_view name() const override { return "cudnn-convolution-rewriter"; }
  // Fails only on a convolution with malformed dim_labels (run the verifier).
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace xla

#endif  // XLA_SERVICE_CANONICALIZE_CUDNN_CONVOLUTION_REWRITER_H_
