// CudnnApi: the cuDNN entry points the convolution thunk uses (the legacy
// convolution API of cuDNN 9: tensor, filter, convolution and activation
// descriptors, the *_v7 heuristics, the three convolution calls and the
// fused forward convolution with bias and activation), as one table of
// function pointers filled by dlopen of libcudnn (never linked).
//
// XLA_CUDNN_API(X) lists X(symbol); every pointer has the type of the
// declaration in cudnn.h.
//
// Thread-safety: the table is immutable once loaded; LoadCudnnApi may be
// called from any thread (it loads once).
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDNN_API_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDNN_API_H_

#include <cudnn.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stream_executor::cuda {

#define XLA_CUDNN_API(X)                             \
  X(cudnnGetVersion)                                 \
  X(cudnnGetErrorString)                             \
  X(cudnnCreate)                                     \
  X(cudnnDestroy)                                    \
  X(cudnnSetStream)                                  \
  X(cudnnCreateTensorDescriptor)                     \
  X(cudnnSetTensorNdDescriptor)                      \
  X(cudnnDestroyTensorDescriptor)                    \
  X(cudnnCreateFilterDescriptor)                     \
  X(cudnnSetFilterNdDescriptor)                      \
  X(cudnnDestroyFilterDescriptor)                    \
  X(cudnnCreateConvolutionDescriptor)                \
  X(cudnnSetConvolutionNdDescriptor)                 \
  X(cudnnSetConvolutionGroupCount)                   \
  X(cudnnSetConvolutionMathType)                     \
  X(cudnnDestroyConvolutionDescriptor)               \
  X(cudnnGetConvolutionForwardAlgorithm_v7)          \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)     \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)   \
  X(cudnnGetConvolutionForwardWorkspaceSize)         \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)    \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize)  \
  X(cudnnConvolutionForward)                         \
  X(cudnnConvolutionBackwardData)                    \
  X(cudnnConvolutionBackwardFilter)                  \
  X(cudnnCreateActivationDescriptor)                 \
  X(cudnnSetActivationDescriptor)                    \
  X(cudnnDestroyActivationDescriptor)                \
  X(cudnnConvolutionBiasActivationForward)

// One function pointer per entry point; all non-null in a loaded table.
struct CudnnApi {
#define XLA_CUDNN_API_FIELD(name) decltype(&::name) name = nullptr;
  XLA_CUDNN_API(XLA_CUDNN_API_FIELD)
#undef XLA_CUDNN_API_FIELD
};

// The sonames tried unless XLA_CUDNN_LIBRARY names a path.
inline constexpr const char* kCudnnLibraries[] = {"libcudnn.so.9"};
inline constexpr char kCudnnLibraryEnv[] = "XLA_CUDNN_LIBRARY";

// The cuDNN table: the one set by SetCudnnApiForTesting, otherwise the
// library loaded on the first call (the result, error included, is kept).
// FailedPrecondition naming the sonames tried and dlerror ("cuDNN not
// found: ..."), or the missing symbol, with what to do. Thread-safe.
absl::StatusOr<const CudnnApi*> LoadCudnnApi();

// Makes LoadCudnnApi return `api` (not owned); nullptr restores the real
// loader. For tests. Thread-safe.
void SetCudnnApiForTesting(const CudnnApi* api);

// OK for CUDNN_STATUS_SUCCESS; otherwise "<call>: <cudnnGetErrorString>"
// (InvalidArgument for bad parameters, ResourceExhausted for allocation
// failures, Unimplemented for unsupported configurations, Internal
// otherwise). `api` may lack cudnnGetErrorString (the number is printed).
// Thread-safe.
absl::Status CudnnStatus(const CudnnApi& api, absl::string_view call, cudnnStatus_t status);

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDNN_API_H_
