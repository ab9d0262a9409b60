// CudaDriverApi: the CUDA driver API entry points the runtime uses, as one
// table of function pointers filled by dlopen("libcuda.so.1") + dlsym.
//
// Nothing links libcuda: every binary builds, links and starts on a machine
// without an NVIDIA driver, and the first use of the CUDA platform reports
// what is missing (see LoadCudaDriverApi). Tests replace the table with a
// test double (fake_cuda_driver.h) through SetCudaDriverApiForTesting.
//
// The table is one X-macro, XLA_CUDA_DRIVER_API(X): X(symbol) for every entry
// point. The field is named after the exported symbol (the versioned name,
// e.g. cuMemAlloc_v2, since cuda.h maps cuMemAlloc to it) and its type is
// taken from cuda.h's declaration, so a signature cannot drift.
//
// Every call's CUresult goes through CudaStatus / CU_RETURN_IF_ERROR, which
// name the API call, cuGetErrorName and cuGetErrorString.
//
// Thread-safety: the table is immutable once loaded; LoadCudaDriverApi may be
// called from any thread (it loads once).
#ifndef XLA_STREAM_EXECUTOR_CUDA_CUDA_DRIVER_API_H_
#define XLA_STREAM_EXECUTOR_CUDA_CUDA_DRIVER_API_H_

#include <cuda.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stream_executor::cuda {

// Every driver entry point the runtime calls, by exported symbol name.
#define XLA_CUDA_DRIVER_API(X)  \
  X(cuGetErrorName)             \
  X(cuGetErrorString)           \
  X(cuInit)                     \
  X(cuDriverGetVersion)         \
  X(cuDeviceGet)                \
  X(cuDeviceGetCount)           \
  X(cuDeviceGetAttribute)       \
  X(cuDeviceGetName)            \
  X(cuDeviceTotalMem_v2)        \
  X(cuDevicePrimaryCtxRetain)   \
  X(cuDevicePrimaryCtxRelease_v2) \
  X(cuCtxSetCurrent)            \
  X(cuModuleLoadDataEx)         \
  X(cuModuleUnload)             \
  X(cuModuleGetFunction)        \
  X(cuLaunchKernel)             \
  X(cuMemAlloc_v2)              \
  X(cuMemFree_v2)               \
  X(cuMemHostAlloc)             \
  X(cuMemFreeHost)              \
  X(cuMemcpyHtoDAsync_v2)       \
  X(cuMemcpyDtoHAsync_v2)       \
  X(cuMemcpyDtoDAsync_v2)       \
  X(cuMemsetD32Async)           \
  X(cuMemsetD8Async)            \
  X(cuStreamCreate)             \
  X(cuStreamDestroy_v2)         \
  X(cuStreamSynchronize)        \
  X(cuStreamWaitEvent)          \
  X(cuLaunchHostFunc)           \
  X(cuEventCreate)              \
  X(cuEventRecord)              \
  X(cuEventQuery)               \
  X(cuEventSynchronize)         \
  X(cuEventElapsedTime)         \
  X(cuEventDestroy_v2)

// The CUDA graph entry points (explicit construction, instantiation,
// executable-graph update, launch), used by CudaCommandBuffer. Optional: a
// driver without one of them still loads, with every entry of this list
// left null, and HasCudaGraphApi says false (CUDA graphs are then off, see
// CudaExecutor::CreateCommandBuffer). All are in CUDA 12.0's driver API.
#define XLA_CUDA_DRIVER_GRAPH_API(X) \
  X(cuGraphCreate)                   \
  X(cuGraphAddKernelNode_v2)         \
  X(cuGraphAddMemsetNode)            \
  X(cuGraphAddMemcpyNode)            \
  X(cuGraphInstantiateWithFlags)     \
  X(cuGraphExecKernelNodeSetParams_v2) \
  X(cuGraphExecMemsetNodeSetParams)  \
  X(cuGraphExecMemcpyNodeSetParams)  \
  X(cuGraphLaunch)                   \
  X(cuGraphExecDestroy)              \
  X(cuGraphDestroy)

// Stream capture into a graph and child-graph nodes, used by
// CudaCommandBuffer for library calls (cuBLAS, cuBLASLt, cuDNN, cuFFT),
// whose kernels can enter a graph only by capture: the call is captured on
// a stream into a graph of its own, which becomes one child-graph node, and
// an address change re-captures that call and swaps the node's graph in the
// executable graph. Optional like the graph API, and only used with it: a
// driver without one of them still loads, with every entry of this list
// left null, and HasCudaGraphCaptureApi says false (library calls then end
// a graph, as before). All are in CUDA 12.0's driver API.
#define XLA_CUDA_DRIVER_CAPTURE_API(X) \
  X(cuStreamBeginCapture_v2)           \
  X(cuStreamEndCapture)                \
  X(cuGraphAddChildGraphNode)          \
  X(cuGraphExecChildGraphNodeSetParams)

// One function pointer per entry point; all of XLA_CUDA_DRIVER_API non-null
// in a loaded table; those of XLA_CUDA_DRIVER_GRAPH_API all non-null or all
// null; those of XLA_CUDA_DRIVER_CAPTURE_API all non-null or all null (and
// all null when the graph API is missing).
struct CudaDriverApi {
#define XLA_CUDA_DRIVER_API_FIELD(name) decltype(&::name) name = nullptr;
  XLA_CUDA_DRIVER_API(XLA_CUDA_DRIVER_API_FIELD)
  XLA_CUDA_DRIVER_GRAPH_API(XLA_CUDA_DRIVER_API_FIELD)
  XLA_CUDA_DRIVER_CAPTURE_API(XLA_CUDA_DRIVER_API_FIELD)
#undef XLA_CUDA_DRIVER_API_FIELD
};

// Whether `api` has every CUDA graph entry point. Thread-safe.
bool HasCudaGraphApi(const CudaDriverApi& api);
// The first graph entry point `api` lacks ("cuGraphCreate"), or "" when it
// has them all. Thread-safe.
std::string MissingCudaGraphEntryPoint(const CudaDriverApi& api);
// Whether `api` has every CUDA graph entry point and every stream-capture
// and child-graph entry point (XLA_CUDA_DRIVER_CAPTURE_API), so library
// calls can be graph nodes. Thread-safe.
bool HasCudaGraphCaptureApi(const CudaDriverApi& api);

// The library LoadCudaDriverApi opens, unless the environment variable
// XLA_CUDA_DRIVER_LIBRARY names another path (for tests).
inline constexpr char kCudaDriverLibrary[] = "libcuda.so.1";
inline constexpr char kCudaDriverLibraryEnv[] = "XLA_CUDA_DRIVER_LIBRARY";

// The driver table: the one installed by SetCudaDriverApiForTesting if any,
// otherwise libcuda loaded on the first call (later calls return the same
// result, error included). FailedPrecondition when the library cannot be
// opened: "no NVIDIA driver: cannot dlopen libcuda.so.1 (<dlerror>); run on
// a machine with an NVIDIA GPU and driver, or recompile with --target=host";
// FailedPrecondition naming the symbol when the driver lacks an entry point
// (too old). The graph entry points are optional (HasCudaGraphApi). Never
// crashes. Thread-safe.
absl::StatusOr<const CudaDriverApi*> LoadCudaDriverApi();

// Opens the driver library at `path` (not cached; the library stays loaded)
// and resolves every symbol of the table. FailedPrecondition naming the path
// and dlerror when it cannot be opened ("no NVIDIA driver: cannot dlopen
// ..."), or naming the first missing symbol. LoadCudaDriverApi adds the
// advice. Thread-safe.
absl::StatusOr<CudaDriverApi> OpenCudaDriverLibrary(absl::string_view path);

// LoadCudaDriverApi for loading an artifact compiled for `target` (e.g.
// "sm_90"): the same, with "this artifact was compiled for <target>" in the
// error. Thread-safe.
absl::StatusOr<const CudaDriverApi*> LoadCudaDriverApiForArtifact(
    absl::string_view target);

// Makes LoadCudaDriverApi return `api` (not owned; must outlive its users)
// instead of loading libcuda; nullptr restores the real loader. For tests;
// call it before the CUDA platform is first used. Thread-safe.
void SetCudaDriverApiForTesting(const CudaDriverApi* api);

// The name of `result` as cuGetErrorName reports it ("CUDA_ERROR_..."), or
// "CUresult <n>" when the driver does not know the value. Thread-safe.
std::string CudaErrorName(const CudaDriverApi& api, CUresult result);

// OK for CUDA_SUCCESS; otherwise an error whose message is
// "<call>: <CUDA_ERROR_NAME>: <cuGetErrorString text>", with a code mapped
// from the result (out of memory -> ResourceExhausted, invalid value/handle
// -> InvalidArgument, not found -> NotFound, not ready -> Unavailable, no
// device/driver -> FailedPrecondition, everything else -> Internal).
// Thread-safe.
absl::Status CudaStatus(const CudaDriverApi& api, absl::string_view call,
                        CUresult result);

}  // namespace stream_executor::cuda

// Calls `api.fn(args...)` and returns the translated error from the
// enclosing function when it fails. Every driver call goes through this
// macro (or CudaStatus where the caller keeps the status).
#define CU_RETURN_IF_ERROR(api, fn, ...)                                  \
  do {                                                                    \
    ::absl::Status cu_status_ = ::stream_executor::cuda::CudaStatus(      \
        (api), #fn, (api).fn(__VA_ARGS__));                               \
    if (!cu_status_.ok()) return cu_status_;                              \
  } while (0)

// Evaluates to the absl::Status of `api.fn(args...)`.
#define CU_STATUS(api, fn, ...) \
  ::stream_executor::cuda::CudaStatus((api), #fn, (api).fn(__VA_ARGS__))

#endif  // XLA_STREAM_EXECUTOR_CUDA_CUDA_DRIVER_API_H_
