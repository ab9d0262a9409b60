// CufftApi: the cuFFT entry points the FFT thunk uses (CudaFft), as one table
// of function pointers filled by dlopen of libcufft (never linked).
//
// XLA_CUFFT_API(X) lists X(symbol, pointer type); the types come from
// cufft.h. Plans are made with cufftMakePlanMany64 with auto-allocation off,
// so that the caller owns the scratch (cufftSetWorkArea).
//
// Thread-safety: the table is immutable once loaded; LoadCufftApi may be
// called from any thread (it loads once).
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUFFT_API_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUFFT_API_H_

#include <cufft.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stream_executor::cuda {

#define XLA_CUFFT_API(X)                                          \
  X(cufftCreate, decltype(&::cufftCreate))                        \
  X(cufftDestroy, decltype(&::cufftDestroy))                      \
  X(cufftSetStream, decltype(&::cufftSetStream))                  \
  X(cufftSetAutoAllocation, decltype(&::cufftSetAutoAllocation))  \
  X(cufftSetWorkArea, decltype(&::cufftSetWorkArea))              \
  X(cufftMakePlanMany64, decltype(&::cufftMakePlanMany64))        \
  X(cufftExecC2C, decltype(&::cufftExecC2C))                      \
  X(cufftExecZ2Z, decltype(&::cufftExecZ2Z))                      \
  X(cufftExecR2C, decltype(&::cufftExecR2C))                      \
  X(cufftExecD2Z, decltype(&::cufftExecD2Z))                      \
  X(cufftExecC2R, decltype(&::cufftExecC2R))                      \
  X(cufftExecZ2D, decltype(&::cufftExecZ2D))                      \
  X(cufftGetVersion, decltype(&::cufftGetVersion))

// One function pointer per entry point; all non-null in a loaded table.
struct CufftApi {
#define XLA_CUFFT_API_FIELD(name, type) type name = nullptr;
  XLA_CUFFT_API(XLA_CUFFT_API_FIELD)
#undef XLA_CUFFT_API_FIELD
};

// The sonames tried, newest first, unless XLA_CUFFT_LIBRARY names a path.
inline constexpr const char* kCufftLibraries[] = {"libcufft.so.12", "libcufft.so.11",
                                                  "libcufft.so.10"};
inline constexpr char kCufftLibraryEnv[] = "XLA_CUFFT_LIBRARY";

// The cuFFT table: the one set by SetCufftApiForTesting, otherwise the
// library loaded on the first call (the result, error included, is kept).
// FailedPrecondition naming the sonames tried and dlerror ("cuFFT not
// found: ..."), or the missing symbol, with what to do. Thread-safe.
absl::StatusOr<const CufftApi*> LoadCufftApi();

// Makes LoadCufftApi return `api` (not owned); nullptr restores the real
// loader. For tests. Thread-safe.
void SetCufftApiForTesting(const CufftApi* api);

// OK for CUFFT_SUCCESS; otherwise "<call>: <CUFFT_... name> (<number>)"
// with InvalidArgument for invalid values and sizes, ResourceExhausted for
// allocation failures, Unimplemented for unsupported transforms, Internal
// otherwise. Pure; thread-safe.
absl::Status CufftStatus(absl::string_view call, cufftResult result);

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUFFT_API_H_
