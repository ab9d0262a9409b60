#include "xla/stream_executor/cuda/cuda_gemm.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "xla/util/status_macros.h"

namespace stream_executor::cuda {
namespace {

struct TypeInfo {
  CudaGemmType type;
  const char* name;
  int64_t bytes;
  cudaDataType data_type;
};

constexpr TypeInfo kTypes[] = {
    {CudaGemmType::kF16, "f16", 2, CUDA_R_16F},
    {CudaGemmType::kBF16, "bf16", 2, CUDA_R_16BF},
    {CudaGemmType::kF32, "f32", 4, CUDA_R_32F},
    {CudaGemmType::kF64, "f64", 8, CUDA_R_64F},
    {CudaGemmType::kF8E4M3FN, "f8e4m3fn", 1, CUDA_R_8F_E4M3},
    {CudaGemmType::kF8E5M2, "f8e5m2", 1, CUDA_R_8F_E5M2},
};

const TypeInfo& Info(CudaGemmType type) {
  for (const TypeInfo& info : kTypes) {
    if (info.type == type) return info;
  }
  return kTypes[2];
}

absl::StatusOr<int> ToInt(const char* what, int64_t value) {
  if (value > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "gemm ", what, " = ", value, " does not fit cuBLAS's 32-bit int"));
  }
  return static_cast<int>(value);
}

// Elements an operand must hold: the last batch's start plus one matrix.
absl::Status CheckOperand(const char* what, const DeviceMemoryBase& memory,
                          int64_t batch, int64_t stride, int64_t elements,
                          int64_t element_bytes) {
  const __int128 needed =
      (static_cast<__int128>(batch - 1) * stride + elements) * element_bytes;
  if (memory.opaque == nullptr || needed > memory.size) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the gemm ", what, " buffer has ", memory.size, " bytes but needs ",
        static_cast<int64_t>(needed)));
  }
  return absl::OkStatus();
}

}  // namespace

int64_t CudaGemmElementBytes(CudaGemmType type) { return Info(type).bytes; }

cudaDataType CudaGemmDataType(CudaGemmType type) { return Info(type).data_type; }

absl::StatusOr<CublasGemmArgs> MapRowMajorGemmToCublas(
    const CudaGemmConfig& config) {
  if (config.m < 1 || config.n < 1 || config.k < 1 || config.batch_size < 0 ||
      config.lhs_batch_stride < 0 || config.rhs_batch_stride < 0 ||
      config.output_batch_stride < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "invalid gemm: m=", config.m, " n=", config.n, " k=", config.k,
        " batch=", config.batch_size, " strides=", config.lhs_batch_stride,
        ",", config.rhs_batch_stride, ",", config.output_batch_stride,
        " (extents must be >= 1 and strides >= 0)"));
  }
  CublasGemmArgs args;
  // Column-major C^T (n x m) = op(rhs)^T (n x k) x op(lhs)^T (k x m).
  ASSIGN_OR_RETURN(args.m, ToInt("n", config.n));
  ASSIGN_OR_RETURN(args.n, ToInt("m", config.m));
  ASSIGN_OR_RETURN(args.k, ToInt("k", config.k));
  args.transa = config.transpose_rhs ? CUBLAS_OP_T : CUBLAS_OP_N;
  args.transb = config.transpose_lhs ? CUBLAS_OP_T : CUBLAS_OP_N;
  // A leading dimension is the stored row-major row length: rhs is k x n
  // (n x k when transposed), lhs is m x k (k x m when transposed).
  args.lda = config.transpose_rhs ? args.k : args.m;
  args.ldb = config.transpose_lhs ? args.n : args.k;
  args.ldc = args.m;
  args.stride_a = config.rhs_batch_stride;
  args.stride_b = config.lhs_batch_stride;
  args.stride_c = config.output_batch_stride;
  ASSIGN_OR_RETURN(args.batch_count,
                   ToInt("batch", std::max<int64_t>(config.batch_size, 1)));
  const TypeInfo& info = Info(config.element_type);
  args.data_type = info.data_type;
  if (IsBlasFp8Gemm(config)) {
    args.compute_type = CUBLAS_COMPUTE_32F;  // cuBLASLt's only fp8 compute type
  } else if (config.element_type == CudaGemmType::kF64) {
    args.compute_type = CUBLAS_COMPUTE_64F;
  } else if (config.element_type == CudaGemmType::kF32 && config.allow_tf32) {
    args.compute_type = CUBLAS_COMPUTE_32F_FAST_TF32;
  } else {
    args.compute_type = CUBLAS_COMPUTE_32F;
  }
  return args;
}

absl::Status CheckCudaGemmOperands(const CudaGemmConfig& config,
                                   const DeviceMemoryBase& lhs,
                                   const DeviceMemoryBase& rhs,
                                   const DeviceMemoryBase& output) {
  RETURN_IF_ERROR(MapRowMajorGemmToCublas(config).status());
  RETURN_IF_ERROR(CheckBlasFp8Gemm(config));
  const int64_t batch = std::max<int64_t>(config.batch_size, 1);
  const int64_t bytes = CudaGemmElementBytes(config.element_type);
  RETURN_IF_ERROR(CheckOperand("lhs", lhs, batch, config.lhs_batch_stride,
                               config.m * config.k,
                               CudaGemmElementBytes(BlasLhsType(config))));
  RETURN_IF_ERROR(CheckOperand("rhs", rhs, batch, config.rhs_batch_stride,
                               config.k * config.n,
                               CudaGemmElementBytes(BlasRhsType(config))));
  return CheckOperand("output", output, batch, config.output_batch_stride,
                      config.m * config.n, bytes);
}

absl::StatusOr<std::unique_ptr<CublasHandle>> CublasHandle::Create(
    const CublasApi& cublas, const CudaDriverApi& driver, CUcontext context) {
  CU_RETURN_IF_ERROR(driver, cuCtxSetCurrent, context);
  cublasHandle_t handle = nullptr;
  RETURN_IF_ERROR(
      CublasStatus(cublas, "cublasCreate_v2", cublas.cublasCreate_v2(&handle)));
  absl::Status status = CublasStatus(
      cublas, "cublasSetMathMode",
      cublas.cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  if (!status.ok()) {
    (void)cublas.cublasDestroy_v2(handle);
    return status;
  }
  return std::unique_ptr<CublasHandle>(
      new CublasHandle(cublas, driver, context, handle));
}

CublasHandle::~CublasHandle() {
  (void)CU_STATUS(driver_, cuCtxSetCurrent, context_);
  (void)cublas_.cublasDestroy_v2(handle_);
}

absl::Status CublasHandle::Gemm(CudaStream& stream, const CudaGemmConfig& config,
                                const DeviceMemoryBase& lhs,
                                const DeviceMemoryBase& rhs,
                                const DeviceMemoryBase& output) {
  absl::StatusOr<CublasGemmArgs> mapped = MapRowMajorGemmToCublas(config);
  absl::Status valid = CheckCudaGemmOperands(config, lhs, rhs, output);
  if (valid.ok() && IsBlasFp8Gemm(config)) {
    valid = absl::UnimplementedError(
        "fp8 gemm: classic cuBLAS runs no fp8 GEMMs; they need cuBLASLt "
        "(install libcublasLt, and do not point XLA_CUBLASLT_LIBRARY elsewhere)");
  }
  if (!valid.ok()) {
    // Becomes the stream's error in stream order, like other bad enqueues.
    return stream.RejectAtEnqueue("gemm", valid);
  }
  const CublasGemmArgs args = *mapped;
  const bool f64 = args.compute_type == CUBLAS_COMPUTE_64F;
  const void* a = rhs.opaque;
  const void* b = lhs.opaque;
  void* c = output.opaque;
  return stream.EnqueueDriverWork(
      "gemm", [this, args, f64, a, b, c, alpha = config.alpha,
               beta = config.beta](CUstream cu_stream) {
        // Host pointer mode: the scalars are read during the call.
        const float alpha_f = static_cast<float>(alpha);
        const float beta_f = static_cast<float>(beta);
        const void* alpha_p = f64 ? static_cast<const void*>(&alpha)
                                  : static_cast<const void*>(&alpha_f);
        const void* beta_p = f64 ? static_cast<const void*>(&beta)
                                 : static_cast<const void*>(&beta_f);
        std::lock_guard<std::mutex> lock(mu_);
        RETURN_IF_ERROR(CublasStatus(
            cublas_, "cublasSetStream_v2",
            cublas_.cublasSetStream_v2(handle_,
                                       reinterpret_cast<cudaStream_t>(cu_stream))));
        return CublasStatus(
            cublas_, "cublasGemmStridedBatchedEx",
            cublas_.cublasGemmStridedBatchedEx(
                handle_, args.transa, args.transb, args.m, args.n, args.k,
                alpha_p, a, args.data_type, args.lda, args.stride_a, b,
                args.data_type, args.ldb, args.stride_b, beta_p, c,
                args.data_type, args.ldc, args.stride_c, args.batch_count,
                args.compute_type, CUBLAS_GEMM_DEFAULT));
      });
}

}  // namespace stream_executor::cuda
