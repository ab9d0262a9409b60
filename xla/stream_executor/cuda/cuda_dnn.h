// Convolutions (dnn.h's DnnConvolutionConfig) on a CudaStream through
// cuDNN's legacy convolution API.
//
// Why the legacy API and not the backend graph API: the three convolution
// kinds map one to one onto cudnnConvolutionForward / BackwardData /
// BackwardFilter with four descriptors each, the *_v7 heuristics rank the
// algorithms with their workspace sizes in one call, and a fake cuDNN for
// tests stays small enough to check every descriptor field. What it cannot
// say, the compiler refuses or normalizes before emission (cudnn_convolution
// _rewriter.h): asymmetric padding (the input is padded explicitly), filters
// that are not packed [K, C, W..] or [K, W.., C] (transposed first), base
// dilation and window reversal outside the backward-data pattern. The
// backend API's richer epilogues and its filter strides are the reason to
// move later.
//
// A forward convolution with an epilogue (dnn.h: kBias, kBiasRelu) runs as
// cudnnConvolutionBiasActivationForward: y = act(1 * conv(x, w) + 0 * z +
// bias), z = y (alpha2 is 0, so z is never read), bias a tensor descriptor
// [1, K, 1, 1(, 1)] packed, act an activation descriptor of
// CUDNN_ACTIVATION_IDENTITY (kBias) or CUDNN_ACTIVATION_RELU (kBiasRelu)
// with CUDNN_PROPAGATE_NAN. cuDNN runs IDENTITY only with
// CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, so kBias takes that
// algorithm (its workspace from cudnnGetConvolutionForwardWorkspaceSize)
// instead of the heuristics' choice; kBiasRelu takes the heuristics'.
//
// The mapping (CudnnConvolutionArgs, pure): x and y are Nd tensor
// descriptors with the config's dims and strides; w is an Nd filter
// descriptor in CUDNN_TENSOR_NCHW (kOIHW) or CUDNN_TENSOR_NHWC (kOHWI)
// format; the convolution descriptor is CUDNN_CROSS_CORRELATION with the
// padding, strides, dilations and group count, computing in f32. Math type:
// f32 without allow_tf32 CUDNN_FMA_MATH (no tensor cores, so no TF32), and
// only algorithms the heuristics report with that math type; otherwise
// CUDNN_DEFAULT_MATH and the math type the heuristics report for the chosen
// algorithm (tensor cores: TF32 for f32, f16/bf16 natively).
//
// Thread-safety: CudnnConvolutionArgs is pure; a CudnnHandle may be used
// from any thread and stream (calls are serialized on the handle); a plan
// is immutable.
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_DNN_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_DNN_H_

#include <cuda.h>
#include <cudnn.h>

#include <memory>
#include <mutex>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cuda_stream.h"
#include "xla/stream_executor/cuda/cudnn_api.h"
#include "xla/stream_executor/dnn.h"

namespace stream_executor::cuda {

// What the descriptors of one convolution are set to.
struct CudnnConvolutionArgs {
  cudnnDataType_t data_type = CUDNN_DATA_FLOAT;     // x, w, y
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;  // the convolution descriptor's
  cudnnMathType_t math_type = CUDNN_FMA_MATH;
  std::vector<int> x_dims, x_strides;
  std::vector<int> y_dims, y_strides;
  cudnnTensorFormat_t filter_format = CUDNN_TENSOR_NCHW;
  std::vector<int> filter_dims;
  std::vector<int> padding, strides, dilations;
  int groups = 1;
  // With an epilogue: the bias descriptor ([1, K, 1..], packed) and the
  // activation; bias_dims is empty without one.
  std::vector<int> bias_dims, bias_strides;
  cudnnActivationMode_t activation = CUDNN_ACTIVATION_IDENTITY;
};

// The descriptor values for `config`. InvalidArgument when CheckDnnConvolution
// fails or a value does not fit cuDNN's int.
absl::StatusOr<CudnnConvolutionArgs> CudnnConvolutionArgsFor(const DnnConvolutionConfig& config);

// A cuDNN handle bound to one device context.
class CudnnHandle {
 public:
  // cudnnCreate in `context` (made current first). cuDNN's error otherwise.
  static absl::StatusOr<std::unique_ptr<CudnnHandle>> Create(const CudnnApi& cudnn,
                                                             const CudaDriverApi& driver,
                                                             CUcontext context);
  ~CudnnHandle();
  CudnnHandle(const CudnnHandle&) = delete;
  CudnnHandle& operator=(const CudnnHandle&) = delete;

  // Builds the descriptors of `config` and takes the first algorithm of
  // the kind's *_v7 heuristics that succeeds, needs at most
  // `workspace_limit` bytes and (f32 without TF32) does not use tensor
  // cores (a kBias epilogue: IMPLICIT_PRECOMP_GEMM, see above). InvalidArgument for a bad config, NotFound naming the limit and
  // the smallest need when nothing fits, cuDNN's error otherwise.
  absl::StatusOr<std::unique_ptr<DnnConvolutionPlan>> Prepare(const DnnConvolutionConfig& config,
                                                              uint64_t workspace_limit);

  // Enqueues `plan` (made by this handle) on `stream`: cudnnSetStream, then
  // the kind's call with alpha 1 and beta 0 (the fused call with `bias`
  // when the plan has an epilogue), on the stream's worker.
  // InvalidArgument at enqueue for small buffers or workspace; cuDNN's
  // failures become the stream's sticky error ("convolution failed: ...").
  absl::Status Convolution(CudaStream& stream, const DnnConvolutionPlan& plan,
                           const DeviceMemoryBase& x, const DeviceMemoryBase& w,
                           const DeviceMemoryBase& y, const DeviceMemoryBase& workspace,
                           const DeviceMemoryBase& bias);

 private:
  CudnnHandle(const CudnnApi& cudnn, const CudaDriverApi& driver, CUcontext context,
              cudnnHandle_t handle)
      : cudnn_(cudnn), driver_(driver), context_(context), handle_(handle) {}

  const CudnnApi& cudnn_;
  const CudaDriverApi& driver_;
  const CUcontext context_;
  const cudnnHandle_t handle_;
  std::mutex mu_;  // serializes SetStream + call pairs, and the heuristics
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_DNN_H_
