// The ConvolutionThunkProto of a cuDNN convolution custom call (made by
// CudnnConvolutionRewriter, cudnn_convolution_rewriter.h): everything but
// the buffer slices, from the call's dimension labels, window, feature
// group count and the physical layouts of its operands and result.
//
//   forward         x = operand 0 (dim_labels' input part), w = operand 1
//                   (K = o, C = i), y = the result (output part); padding,
//                   strides and dilations are the window's.
//   backward data   y = operand 0 (dy), w = operand 1 (K = i, C = o; its
//                   spatial dimensions already reversed), x = the result
//                   (dx); stride = the base dilation, padding =
//                   (size - 1) * window dilation - pad_low, dilation = the
//                   window dilation.
//   backward filter x = operand 0 (N = its f label, C = its b label),
//                   y = operand 1 (dy: N = i, K = o), w = the result (dw:
//                   K = f, C = b, packed); stride = the window dilation,
//                   dilation = the window stride, padding = the window's.
// A forward call with a fused epilogue (cudnn_epilogue_fuser.h: operand 2
// is the bias [K]) is a forward convolution whose activation is RELU for
// the _bias_relu target; the caller sets the bias slice.
// Strides come from each shape's layout (row-major when unset). A 1-D
// convolution gains a trailing spatial dimension of extent 1. The filter
// must be packed [K, C, W..] or [K, W.., C] in memory (the rewriter
// transposes it so); anything else is an Internal error naming the
// instruction.
//
// The workspace bound (CudnnWorkspaceBound): the compiler cannot ask cuDNN
// (it may run without a GPU), so it reserves for each convolution
// max(4 MiB, the bytes of x, w and y together), at most 256 MiB; one
// region of the largest such bound, at the end of the temp allocation, is
// shared by all convolutions of the artifact (they run on the compute
// stream, one at a time). The runtime then takes cuDNN's fastest heuristic
// choice that fits; algorithms without workspace (implicit GEMM) always do.
//
// Thread-safety: pure functions.
#ifndef XLA_BACKENDS_GPU_COMPILER_CUDNN_CONVOLUTION_EMITTER_H_
#define XLA_BACKENDS_GPU_COMPILER_CUDNN_CONVOLUTION_EMITTER_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "xla/backends/gpu/runtime/executable.pb.h"
#include "xla/hlo/ir/hlo_instruction.h"

namespace xla::gpu {

// The thunk's description (kind, element type, dims, strides, filter
// layout, window, groups, allow_tf32 as given) for `call`. Internal for a
// call the rewriter would not have made (naming what is wrong).
absl::StatusOr<ConvolutionThunkProto> CudnnConvolutionThunkConfig(const HloInstruction& call,
                                                                  bool allow_tf32);

// True for the calls of cudnn-epilogue-fuser (a bias operand). Pure.
bool IsFusedEpilogue(const HloInstruction& call);

// Bytes of workspace the compiler reserves for `call` (see above).
int64_t CudnnWorkspaceBound(const HloInstruction& call);

}  // namespace xla::gpu

#endif  // XLA_BACKENDS_GPU_COMPILER_CUDNN_CONVOLUTION_EMITTER_H_
