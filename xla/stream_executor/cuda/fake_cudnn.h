// FakeCudnn: a test double of the cuDNN table (CudnnApi) for the fake CUDA
// driver. It keeps every descriptor it is given, records every convolution
// call with copies of its descriptors, and computes the convolution from
// those descriptors alone (dims, strides, filter format, padding, strides,
// dilations, groups, math type) in stream order on the fake device
// (through the driver's cuLaunchHostFunc), in f32, f16 or bf16. So a wrong
// descriptor gives a wrong number, not just a wrong record. With a math
// type other than CUDNN_FMA_MATH an f32 convolution rounds its operands to
// TF32 first (xla::RoundToTf32), as tensor cores read them.
//
// cudnnConvolutionBiasActivationForward is computed too: y = act(alpha1 *
// conv + alpha2 * z + bias[k]), reading bias through its own descriptor and
// pointer (so a wrong bias pointer or descriptor gives wrong numbers) and z
// only when alpha2 is not 0. Like cuDNN it refuses (CUDNN_STATUS_NOT_SUPPORTED)
// an activation other than RELU and IDENTITY, and IDENTITY with an
// algorithm other than IMPLICIT_PRECOMP_GEMM (1); and (BAD_PARAM) a bias
// descriptor that is not [1, K, 1..] or a z descriptor unlike y's. ReLU
// keeps NaN with CUDNN_PROPAGATE_NAN and makes it 0 otherwise.
//
// Heuristics: every *_v7 call returns two algorithms, fastest first:
// algorithm 1 needing kFakeCudnnWorkspaceBytes with CUDNN_TENSOR_OP_MATH,
// then algorithm 0 needing none with CUDNN_FMA_MATH. A convolution run with
// algorithm 1 first fills its workspace with 0xff bytes, so a workspace that
// overlaps a live buffer corrupts it.
//
// Only one FakeCudnn may exist at a time (its C entry points reach it
// through a global); constructing a second one aborts.
//
// Thread-safety: the fake's entry points and accessors may be called from
// any thread.
#ifndef XLA_STREAM_EXECUTOR_CUDA_FAKE_CUDNN_H_
#define XLA_STREAM_EXECUTOR_CUDA_FAKE_CUDNN_H_

#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cudnn_api.h"
#include "xla/stream_executor/dnn.h"

namespace stream_executor::cuda {

inline constexpr size_t kFakeCudnnWorkspaceBytes = size_t{1} << 16;

struct FakeCudnnTensor {
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  std::vector<int> dims, strides;
};

struct FakeCudnnFilter {
  cudnnDataType_t type = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  std::vector<int> dims;
};

struct FakeCudnnConvolution {
  std::vector<int> padding, strides, dilations;
  cudnnConvolutionMode_t mode = CUDNN_CONVOLUTION;
  cudnnDataType_t compute_type = CUDNN_DATA_FLOAT;
  int groups = 1;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

struct FakeCudnnActivation {
  cudnnActivationMode_t mode = CUDNN_ACTIVATION_SIGMOID;
  cudnnNanPropagation_t nan = CUDNN_NOT_PROPAGATE_NAN;
  double coef = 0;
};

// What one convolution call saw.
struct FakeCudnnCall {
  DnnConvolutionKind kind = DnnConvolutionKind::kForward;
  FakeCudnnTensor x, y;
  FakeCudnnFilter w;
  FakeCudnnConvolution conv;
  int algorithm = 0;
  size_t workspace_bytes = 0;
  const void* x_data = nullptr;
  const void* w_data = nullptr;
  const void* y_data = nullptr;
  void* workspace = nullptr;
  float alpha = 0, beta = 0;
  cudaStream_t stream = nullptr;  // bound with cudnnSetStream
  // cudnnConvolutionBiasActivationForward only (fused is false otherwise):
  // alpha is alpha1, beta stays 0.
  bool fused = false;
  FakeCudnnTensor z, bias;
  FakeCudnnActivation activation;
  const void* z_data = nullptr;
  const void* bias_data = nullptr;
  float alpha2 = 0;
};

class FakeCudnn {
 public:
  // A fake running its convolutions on `driver` (the fake driver's table),
  // which must outlive this object.
  explicit FakeCudnn(const CudaDriverApi& driver);
  ~FakeCudnn();
  FakeCudnn(const FakeCudnn&) = delete;
  FakeCudnn& operator=(const FakeCudnn&) = delete;

  // The table; valid while this object lives.
  const CudnnApi& api() const { return api_; }

  // Every convolution call so far, in call order.
  std::vector<FakeCudnnCall> recorded() const;
  // Handles and descriptors created and not yet destroyed.
  int live_handles() const;
  int live_descriptors() const;
  // How many *_v7 heuristics calls were made.
  int heuristics_calls() const;
  // The next convolution call returns `status` and does nothing.
  void FailNextConvolution(cudnnStatus_t status);

 private:
  friend struct FakeCudnnEntryPoints;

  const CudaDriverApi& driver_;
  CudnnApi api_;
  mutable std::mutex mu_;
  std::vector<FakeCudnnCall> recorded_;                       // guarded by mu_
  cudaStream_t bound_stream_ = nullptr;                       // guarded by mu_
  int live_handles_ = 0;                                      // guarded by mu_
  int live_descriptors_ = 0;                                  // guarded by mu_
  int heuristics_calls_ = 0;                                  // guarded by mu_
  cudnnStatus_t next_status_ = CUDNN_STATUS_SUCCESS;          // guarded by mu_
  // The calls handed to the device, kept for the fake's lifetime: a call
  // captured into a CUDA graph runs at every launch of the graph.
  std::vector<std::unique_ptr<FakeCudnnCall>> enqueued_;     // guarded by mu_
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_FAKE_CUDNN_H_
