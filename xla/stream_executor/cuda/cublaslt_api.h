// CublasLtApi: the cuBLASLt entry points of a (strided-batched) GEMM, as one
// table of function pointers filled by dlopen of libcublasLt (never linked).
//
// XLA_CUBLASLT_API(X) lists X(symbol, pointer type); the types come from
// the toolkit's cublasLt.h. CUBLASLT_RETURN_IF_ERROR / CUBLASLT_STATUS make
// every call through the table name the entry point and cuBLASLt's status.
//
// Thread-safety: the table is immutable once loaded; LoadCublasLtApi may be
// called from any thread (it loads once).
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUBLASLT_API_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUBLASLT_API_H_

#include <cublasLt.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stream_executor::cuda {

#define XLA_CUBLASLT_API(X)                                                   \
  X(cublasLtCreate, decltype(&::cublasLtCreate))                              \
  X(cublasLtDestroy, decltype(&::cublasLtDestroy))                            \
  X(cublasLtGetVersion, decltype(&::cublasLtGetVersion))                      \
  X(cublasLtGetStatusName, decltype(&::cublasLtGetStatusName))                \
  X(cublasLtGetStatusString, decltype(&::cublasLtGetStatusString))            \
  X(cublasLtMatmulDescCreate, decltype(&::cublasLtMatmulDescCreate))          \
  X(cublasLtMatmulDescDestroy, decltype(&::cublasLtMatmulDescDestroy))        \
  X(cublasLtMatmulDescSetAttribute,                                           \
    decltype(&::cublasLtMatmulDescSetAttribute))                              \
  X(cublasLtMatrixLayoutCreate, decltype(&::cublasLtMatrixLayoutCreate))      \
  X(cublasLtMatrixLayoutDestroy, decltype(&::cublasLtMatrixLayoutDestroy))    \
  X(cublasLtMatrixLayoutSetAttribute,                                         \
    decltype(&::cublasLtMatrixLayoutSetAttribute))                            \
  X(cublasLtMatmulPreferenceCreate,                                           \
    decltype(&::cublasLtMatmulPreferenceCreate))                              \
  X(cublasLtMatmulPreferenceDestroy,                                          \
    decltype(&::cublasLtMatmulPreferenceDestroy))                             \
  X(cublasLtMatmulPreferenceSetAttribute,                                     \
    decltype(&::cublasLtMatmulPreferenceSetAttribute))                        \
  X(cublasLtMatmulAlgoGetHeuristic,                                           \
    decltype(&::cublasLtMatmulAlgoGetHeuristic))                              \
  X(cublasLtMatmul, decltype(&::cublasLtMatmul))

// One function pointer per entry point; all non-null in a loaded table.
struct CublasLtApi {
#define XLA_CUBLASLT_API_FIELD(name, type) type name = nullptr;
  XLA_CUBLASLT_API(XLA_CUBLASLT_API_FIELD)
#undef XLA_CUBLASLT_API_FIELD
};

// The sonames tried, newest first, unless XLA_CUBLASLT_LIBRARY names a path
// (pointing it at a missing file makes the CUDA executor use classic cuBLAS).
inline constexpr const char* kCublasLtLibraries[] = {
    "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"};
inline constexpr char kCublasLtLibraryEnv[] = "XLA_CUBLASLT_LIBRARY";

// Opens the first of `candidates` that dlopen accepts (no environment
// override) and resolves every symbol of the table, without caching.
// FailedPrecondition "cuBLASLt not found: cannot dlopen <candidates>
// (<dlerror>); <advice>", or "<path> has no symbol '<name>'; <advice>".
// Thread-safe.
absl::StatusOr<CublasLtApi> OpenCublasLtApi(
    const std::vector<std::string>& candidates);

// The cuBLASLt table: the one set by SetCublasLtApiForTesting, otherwise
// kCublasLtLibraries (or $XLA_CUBLASLT_LIBRARY) opened on the first call;
// the result, error included, is kept. Errors as OpenCublasLtApi.
// Thread-safe.
absl::StatusOr<const CublasLtApi*> LoadCublasLtApi();

// Makes LoadCublasLtApi return `api` (not owned); nullptr restores the real
// loader. For tests. Thread-safe.
void SetCublasLtApiForTesting(const CublasLtApi* api);

// The table set by SetCublasLtApiForTesting, or nullptr. Thread-safe.
const CublasLtApi* CublasLtApiForTesting();

// OK for CUBLAS_STATUS_SUCCESS; otherwise "<call>: <status name>: <status
// string>" with the same codes as CublasStatus (InvalidArgument,
// ResourceExhausted, Unimplemented, FailedPrecondition, Internal).
// Thread-safe.
absl::Status CublasLtStatus(const CublasLtApi& api, absl::string_view call,
                            cublasStatus_t status);

}  // namespace stream_executor::cuda

// Calls `fn` through `api` and returns its error from the enclosing
// function, naming `fn`.
#define CUBLASLT_RETURN_IF_ERROR(api, fn, ...)                              \
  do {                                                                      \
    ::absl::Status cublaslt_status_ =                                       \
        ::stream_executor::cuda::CublasLtStatus((api), #fn,                 \
                                                (api).fn(__VA_ARGS__));     \
    if (!cublaslt_status_.ok()) return cublaslt_status_;                    \
  } while (0)

// Calls `fn` through `api`; the absl::Status naming `fn`.
#define CUBLASLT_STATUS(api, fn, ...) \
  ::stream_executor::cuda::CublasLtStatus((api), #fn, (api).fn(__VA_ARGS__))

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUBLASLT_API_H_
