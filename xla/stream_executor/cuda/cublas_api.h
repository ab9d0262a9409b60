// CublasApi: the cuBLAS entry points the GEMM thunk uses, as one table of
// function pointers filled by dlopen of libcublas (never linked).
//
// XLA_CUBLAS_API(X) lists X(symbol, pointer type). The types come from
// cublas_api.h; cublasGemmStridedBatchedEx is spelled out because cuBLAS
// also declares a C++ overload of it.
//
// Thread-safety: the table is immutable once loaded; LoadCublasApi may be
// called from any thread (it loads once).
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUBLAS_API_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUBLAS_API_H_

#include <cublas_v2.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stream_executor::cuda {

using CublasGemmStridedBatchedExFn = cublasStatus_t (*)(
    cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
    const void*, const void*, cudaDataType, int, long long int, const void*,
    cudaDataType, int, long long int, const void*, void*, cudaDataType, int,
    long long int, int, cublasComputeType_t, cublasGemmAlgo_t);

#define XLA_CUBLAS_API(X)                                       \
  X(cublasCreate_v2, decltype(&::cublasCreate_v2))              \
  X(cublasDestroy_v2, decltype(&::cublasDestroy_v2))            \
  X(cublasSetStream_v2, decltype(&::cublasSetStream_v2))        \
  X(cublasSetMathMode, decltype(&::cublasSetMathMode))          \
  X(cublasGetVersion_v2, decltype(&::cublasGetVersion_v2))      \
  X(cublasGetStatusName, decltype(&::cublasGetStatusName))      \
  X(cublasGetStatusString, decltype(&::cublasGetStatusString))  \
  X(cublasGemmStridedBatchedEx, CublasGemmStridedBatchedExFn)

// One function pointer per entry point; all non-null in a loaded table.
struct CublasApi {
#define XLA_CUBLAS_API_FIELD(name, type) type name = nullptr;
  XLA_CUBLAS_API(XLA_CUBLAS_API_FIELD)
#undef XLA_CUBLAS_API_FIELD
};

// The sonames tried, newest first, unless XLA_CUBLAS_LIBRARY names a path.
inline constexpr const char* kCublasLibraries[] = {
    "libcublas.so.13", "libcublas.so.12", "libcublas.so.11"};
inline constexpr char kCublasLibraryEnv[] = "XLA_CUBLAS_LIBRARY";

// The cuBLAS table: the one set by SetCublasApiForTesting, otherwise the
// library loaded on the first call (the result, error included, is kept).
// FailedPrecondition naming the sonames tried and dlerror ("cuBLAS not
// found: ..."), or the missing symbol, with what to do. Thread-safe.
absl::StatusOr<const CublasApi*> LoadCublasApi();

// Makes LoadCublasApi return `api` (not owned); nullptr restores the real
// loader. For tests. Thread-safe.
void SetCublasApiForTesting(const CublasApi* api);

// The table set by SetCublasApiForTesting, or nullptr. Thread-safe.
const CublasApi* CublasApiForTesting();

// The status of a cuBLAS or cuBLASLt call (both use cublasStatus_t): OK for
// CUBLAS_STATUS_SUCCESS, else "<call>: <name>: <text>" with the code
// CublasStatus documents; `name`/`text` come from the library's
// GetStatusName/GetStatusString and may be null (the number is printed
// instead). Pure; thread-safe.
absl::Status CublasStatusFromParts(absl::string_view call, cublasStatus_t status,
                                   const char* name, const char* text);

// OK for CUBLAS_STATUS_SUCCESS; otherwise "<call>: <status name>: <status
// string>" (InvalidArgument for invalid values, ResourceExhausted for
// allocation failures, Unimplemented for unsupported ones, Internal
// otherwise). Thread-safe.
absl::Status CublasStatus(const CublasApi& api, absl::string_view call,
                          cublasStatus_t status);

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUBLAS_API_H_
