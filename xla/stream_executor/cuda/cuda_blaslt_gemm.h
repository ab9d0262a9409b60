// Row-major batched GEMM on a CudaStream through cuBLASLt, with the same
// semantics as cuda_gemm.h (the platform-neutral BlasGemmConfig):
//
//   out[b] = alpha * op(lhs[b]) x op(rhs[b]) + beta * out[b],  b < batch
//
// The mapping is cuda_gemm.h's column-major swap (cuBLASLt's A is `rhs`,
// B is `lhs`, m and n swapped), expressed as cuBLASLt descriptors:
// a matmul descriptor (compute type, scale type, transposes) and one
// column-major matrix layout per operand (type, stored rows x cols, leading
// dimension, batch count, batch stride). C and D are the output. F32 uses
// CUBLAS_COMPUTE_32F (no TF32) unless allow_tf32; F16/BF16 accumulate in f32;
// F64 in f64. FP8 GEMMs (blas.h: f8e4m3fn / f8e5m2 operands, TN form,
// checked by CheckCudaGemmOperands) give A and B their own type
// (CUDA_R_8F_E4M3 = 28, CUDA_R_8F_E5M2 = 29), compute in CUBLAS_COMPUTE_32F
// with f32 scalars, and pass the scales as CUBLASLT_MATMUL_DESC_A_SCALE_POINTER
// (rhs's) and B_SCALE_POINTER (lhs's) when given. The algorithm is cuBLASLt's first heuristic choice for the
// plan and the operands' pointer alignments, cached per handle.
//
// Thread-safety: the free functions are pure; a CublasLtHandle may be used
// from any thread and stream.
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_BLASLT_GEMM_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_BLASLT_GEMM_H_

#include <cublasLt.h>
#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "xla/stream_executor/cuda/cublaslt_api.h"
#include "xla/stream_executor/cuda/cuda_driver_api.h"
#include "xla/stream_executor/cuda/cuda_gemm.h"
#include "xla/stream_executor/cuda/cuda_stream.h"
#include "xla/stream_executor/device_memory.h"

namespace stream_executor::cuda {

// One cublasLtMatrixLayout_t: a column-major matrix as stored (before any
// transpose of the matmul descriptor).
struct CublasLtLayout {
  cudaDataType type = CUDA_R_32F;
  uint64_t rows = 0;
  uint64_t cols = 0;
  int64_t ld = 0;
  int32_t batch_count = 1;
  int64_t batch_stride = 0;  // elements between batches
};

// Everything cuBLASLt is told about one GEMM, before pointers.
struct CublasLtGemmPlan {
  cublasComputeType_t compute_type = CUBLAS_COMPUTE_32F;
  cudaDataType scale_type = CUDA_R_32F;  // of alpha and beta
  cublasOperation_t transa = CUBLAS_OP_N;
  cublasOperation_t transb = CUBLAS_OP_N;
  CublasLtLayout a;  // rhs
  CublasLtLayout b;  // lhs
  CublasLtLayout c;  // output, also D
};

// Maps a row-major config to cuBLASLt's descriptors. InvalidArgument under
// the same conditions as MapRowMajorGemmToCublas (extents < 1, negative
// strides, values beyond cuBLAS's 32-bit int).
absl::StatusOr<CublasLtGemmPlan> MapRowMajorGemmToCublasLt(
    const CudaGemmConfig& config);

// The alignment in bytes (a power of two, at most 256) that every batch of
// an operand at `base` keeps: the largest power of two dividing the
// address and, when batch_count > 1, the batch stride in bytes. cuBLASLt's
// heuristic assumes 256 unless told, so slices at odd offsets need this.
uint32_t CublasLtOperandAlignment(const void* base, int64_t batch_count,
                                  int64_t batch_stride_bytes);

// Workspace handed to cuBLASLt per stream (cuBLAS's recommendation for
// Hopper; enough for every earlier architecture).
inline constexpr uint64_t kCublasLtWorkspaceBytes = uint64_t{32} << 20;

// A cuBLASLt handle bound to one device context, with one workspace per
// stream it has run on (allocated on first use, freed with the handle) and
// a cache of heuristic choices.
class CublasLtHandle {
 public:
  // cublasLtCreate in `context` (made current first). cuBLASLt's error
  // otherwise.
  static absl::StatusOr<std::unique_ptr<CublasLtHandle>> Create(
      const CublasLtApi& lt, const CudaDriverApi& driver, CUcontext context);
  // Frees the workspaces and destroys the handle; streams that used it
  // must have finished (CudaStream's destructor synchronizes).
  ~CublasLtHandle();
  CublasLtHandle(const CublasLtHandle&) = delete;
  CublasLtHandle& operator=(const CublasLtHandle&) = delete;

  // Enqueues the GEMM on `stream`: on the stream's worker, builds the
  // descriptors, picks the algorithm (cublasLtMatmulAlgoGetHeuristic, once
  // per plan and alignment) and calls cublasLtMatmul with the stream's
  // workspace. InvalidArgument at enqueue for an invalid config or a small
  // buffer (CheckCudaGemmOperands); cuBLASLt failures, a missing algorithm
  // (Unimplemented) and workspace allocation failures become the stream's
  // sticky error ("gemm failed: <entry point>: ...").
  absl::Status Gemm(CudaStream& stream, const CudaGemmConfig& config,
                    const DeviceMemoryBase& lhs, const DeviceMemoryBase& rhs,
                    const DeviceMemoryBase& output);

  // How many heuristic queries ran (cache misses). For tests.
  int heuristic_queries() const;

 private:
  struct Operands {
    const void* a;
    const void* b;
    void* c;
    uint32_t alignment[3];  // a, b, c (= d)
    const void* a_scale;    // fp8 only: f32 device scalars, or null
    const void* b_scale;
  };
  struct Choice {
    cublasLtMatmulAlgo_t algo;
  };

  CublasLtHandle(const CublasLtApi& lt, const CudaDriverApi& driver,
                 CUcontext context, cublasLtHandle_t handle)
      : lt_(lt), driver_(driver), context_(context), handle_(handle) {}

  // The worker-side half of Gemm.
  absl::Status Run(CUstream stream, const CublasLtGemmPlan& plan,
                   const Operands& operands, double alpha, double beta);
  absl::StatusOr<cublasLtMatmulAlgo_t> ChooseAlgorithm(
      const CublasLtGemmPlan& plan, const Operands& operands,
      cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
      cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c);
  absl::StatusOr<CUdeviceptr> Workspace(CUstream stream);

  const CublasLtApi& lt_;
  const CudaDriverApi& driver_;
  const CUcontext context_;
  const cublasLtHandle_t handle_;
  mutable std::mutex mu_;
  std::map<CUstream, CUdeviceptr> workspaces_;  // guarded by mu_
  std::map<std::string, Choice> choices_;       // guarded by mu_
  int heuristic_queries_ = 0;                   // guarded by mu_
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_BLASLT_GEMM_H_
