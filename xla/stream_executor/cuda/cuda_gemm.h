// Row-major batched GEMM on a CudaStream through cuBLAS, with the runtime's
// GemmThunkProto semantics:
//
//   out[b] = alpha * op(lhs[b]) x op(rhs[b]) + beta * out[b],  b < batch
//
// op(lhs) is m x k, op(rhs) is k x n, out is m x n, all dense row-major; a
// transposed operand is stored transposed (lhs then k x m). Batch b of an
// operand starts b * stride elements in.
//
// cuBLAS is column-major. A row-major matrix read as column-major is its
// transpose, so row-major C = A x B is computed as column-major
// C^T = B^T x A^T: cuBLAS's first operand is `rhs`, its second is `lhs`,
// with m and n swapped (MapRowMajorGemmToCublas).
//
// F32 computes in f32 with TF32 off unless allow_tf32 (CUBLAS_COMPUTE_32F,
// CUBLAS_DEFAULT_MATH); F16 and BF16 accumulate in f32; F64 in f64.
//
// Thread-safety: MapRowMajorGemmToCublas is pure; a CublasHandle may be
// used from any thread and stream (calls are serialized on the handle).
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_GEMM_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_GEMM_H_

#include <cublas_v2.h>
#include <cuda.h>

#include <cstdint>
#include <memory>
#include <mutex>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/stream_executor/blas.h"
#include "xla/stream_executor/cuda/cublas_api.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cuda_stream.h"
#include "xla/stream_executor/device_memory.h"

namespace stream_executor::cuda {

// The GEMM description is the platform-neutral one (../blas.h).
using CudaGemmType = ::stream_executor::BlasElementType;
using CudaGemmConfig = ::stream_executor::BlasGemmConfig;

// The arguments of one cublasGemmStridedBatchedEx call (column-major).
struct CublasGemmArgs {
  cublasOperation_t transa = CUBLAS_OP_N;
  cublasOperation_t transb = CUBLAS_OP_N;
  int m = 0, n = 0, k = 0;
  int lda = 0, ldb = 0, ldc = 0;
  long long stride_a = 0, stride_b = 0, stride_c = 0;
  int batch_count = 0;
  cudaDataType data_type = CUDA_R_32F;
  cublasComputeType_t compute_type = CUBLAS_COMPUTE_32F;
};

// Maps a row-major config to cuBLAS's column-major call (A is rhs, B is
// lhs). InvalidArgument when an extent is < 1, a stride is negative, or a
// value does not fit cuBLAS's 32-bit int.
absl::StatusOr<CublasGemmArgs> MapRowMajorGemmToCublas(
    const CudaGemmConfig& config);

// Bytes per element of `type`.
int64_t CudaGemmElementBytes(CudaGemmType type);

// The cudaDataType of `type` (CUDA_R_8F_E4M3 = 28 and CUDA_R_8F_E5M2 = 29
// for the fp8 operand types).
cudaDataType CudaGemmDataType(CudaGemmType type);

// OK when `config` maps onto cuBLAS (MapRowMajorGemmToCublas) and each
// buffer is non-null and holds its batches (the last batch's start plus one
// matrix); otherwise InvalidArgument naming the operand and both sizes.
// FP8 GEMMs must also pass CheckBlasFp8Gemm (classic cuBLAS then refuses
// them at enqueue with Unimplemented: only cuBLASLt runs them). Each
// operand is sized with its own element type. Shared by the cuBLAS and
// cuBLASLt paths. Thread-safe.
absl::Status CheckCudaGemmOperands(const CudaGemmConfig& config,
                                   const DeviceMemoryBase& lhs,
                                   const DeviceMemoryBase& rhs,
                                   const DeviceMemoryBase& output);

// A cuBLAS handle bound to one device context.
class CublasHandle {
 public:
  // cublasCreate_v2 in `context` (made current first), with
  // CUBLAS_DEFAULT_MATH. The cuBLAS error otherwise.
  static absl::StatusOr<std::unique_ptr<CublasHandle>> Create(
      const CublasApi& cublas, const CudaDriverApi& driver, CUcontext context);
  ~CublasHandle();
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;

  // Enqueues the GEMM on `stream` (cublasSetStream_v2 then
  // cublasGemmStridedBatchedEx, on the stream's worker). InvalidArgument at
  // enqueue when the config is invalid or a buffer is smaller than the
  // extents it must hold (naming the operand and both sizes); cuBLAS
  // failures become the stream's sticky error ("gemm failed: ...").
  absl::Status Gemm(CudaStream& stream, const CudaGemmConfig& config,
                    const DeviceMemoryBase& lhs, const DeviceMemoryBase& rhs,
                    const DeviceMemoryBase& output);

 private:
  CublasHandle(const CublasApi& cublas, const CudaDriverApi& driver,
               CUcontext context, cublasHandle_t handle)
      : cublas_(cublas), driver_(driver), context_(context), handle_(handle) {}

  const CublasApi& cublas_;
  const CudaDriverApi& driver_;
  const CUcontext context_;
  const cublasHandle_t handle_;
  std::mutex mu_;  // serializes SetStream + Gemm pairs
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_GEMM_H_
