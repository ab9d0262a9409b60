#include "xla/stream_executor/cuda/cuda_driver_api.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"

namespace stream_executor::cuda {
namespace {

std::atomic<const CudaDriverApi*> testing_api{nullptr};

// The advice every "driver missing" error ends with.
constexpr char kAdvice[] =
    "run on a machine with an NVIDIA GPU and driver, or recompile with "
    "--target=host";

}  // namespace

absl::StatusOr<CudaDriverApi> OpenCudaDriverLibrary(absl::string_view path_view) {
  const std::string path(path_view);
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return absl::FailedPreconditionError(
        absl::StrCat("no NVIDIA driver: cannot dlopen ", path, " (",
                     reason != nullptr ? reason : "unknown reason", ")"));
  }
  // The handle is kept open for the life of the process: function pointers
  // into it are handed out.
  CudaDriverApi api;
#define XLA_CUDA_RESOLVE(name)                                              \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(handle, #name));   \
  if (api.name == nullptr) {                                                \
    return absl::FailedPreconditionError(absl::StrCat(                      \
        "NVIDIA driver too old: ", path, " has no symbol '" #name           \
        "' (the runtime needs CUDA ", CUDA_VERSION / 1000, ".",             \
        CUDA_VERSION % 1000 / 10, " driver API entry points); update the "  \
        "NVIDIA driver"));                                                  \
  }
  XLA_CUDA_DRIVER_API(XLA_CUDA_RESOLVE)
#undef XLA_CUDA_RESOLVE
  // Optional: a driver without the graph API still runs, with graphs off.
#define XLA_CUDA_RESOLVE_OPTIONAL(name) \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(handle, #name));
  XLA_CUDA_DRIVER_GRAPH_API(XLA_CUDA_RESOLVE_OPTIONAL)
  XLA_CUDA_DRIVER_CAPTURE_API(XLA_CUDA_RESOLVE_OPTIONAL)
#undef XLA_CUDA_RESOLVE_OPTIONAL
#define XLA_CUDA_CLEAR(name) api.name = nullptr;
  if (!HasCudaGraphApi(api)) {
    XLA_CUDA_DRIVER_GRAPH_API(XLA_CUDA_CLEAR)
  }
  if (!HasCudaGraphCaptureApi(api)) {
    XLA_CUDA_DRIVER_CAPTURE_API(XLA_CUDA_CLEAR)
  }
#undef XLA_CUDA_CLEAR
  return api;
}

std::string MissingCudaGraphEntryPoint(const CudaDriverApi& api) {
#define XLA_CUDA_FIRST_MISSING(name) \
  if (api.name == nullptr) return #name;
  XLA_CUDA_DRIVER_GRAPH_API(XLA_CUDA_FIRST_MISSING)
#undef XLA_CUDA_FIRST_MISSING
  return "";
}

bool HasCudaGraphApi(const CudaDriverApi& api) {
  return MissingCudaGraphEntryPoint(api).empty();
}

bool HasCudaGraphCaptureApi(const CudaDriverApi& api) {
  if (!HasCudaGraphApi(api)) return false;
#define XLA_CUDA_CAPTURE_MISSING(name) \
  if (api.name == nullptr) return false;
  XLA_CUDA_DRIVER_CAPTURE_API(XLA_CUDA_CAPTURE_MISSING)
#undef XLA_CUDA_CAPTURE_MISSING
  return true;
}

namespace {

// The process-wide result of loading libcuda, computed once.
const absl::StatusOr<CudaDriverApi>& LoadedOnce() {
  static const absl::StatusOr<CudaDriverApi>* const loaded = [] {
    const char* override_path = std::getenv(kCudaDriverLibraryEnv);
    return new absl::StatusOr<CudaDriverApi>(OpenCudaDriverLibrary(
        override_path != nullptr && override_path[0] != '\0'
            ? override_path
            : kCudaDriverLibrary));
  }();
  return *loaded;
}

struct ErrorCodeMapping {
  CUresult result;
  absl::StatusCode code;
};

// CUresults with a more specific status code than kInternal.
constexpr ErrorCodeMapping kErrorCodes[] = {
    {CUDA_ERROR_OUT_OF_MEMORY, absl::StatusCode::kResourceExhausted},
    {CUDA_ERROR_INVALID_VALUE, absl::StatusCode::kInvalidArgument},
    {CUDA_ERROR_INVALID_HANDLE, absl::StatusCode::kInvalidArgument},
    {CUDA_ERROR_INVALID_IMAGE, absl::StatusCode::kInvalidArgument},
    {CUDA_ERROR_INVALID_PTX, absl::StatusCode::kInvalidArgument},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, absl::StatusCode::kInvalidArgument},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, absl::StatusCode::kInvalidArgument},
    {CUDA_ERROR_INVALID_SOURCE, absl::StatusCode::kInvalidArgument},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, absl::StatusCode::kInvalidArgument},
    {CUDA_ERROR_NOT_FOUND, absl::StatusCode::kNotFound},
    {CUDA_ERROR_NOT_READY, absl::StatusCode::kUnavailable},
    {CUDA_ERROR_NO_DEVICE, absl::StatusCode::kFailedPrecondition},
    {CUDA_ERROR_INVALID_DEVICE, absl::StatusCode::kInvalidArgument},
    {CUDA_ERROR_NOT_INITIALIZED, absl::StatusCode::kFailedPrecondition},
    {CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, absl::StatusCode::kFailedPrecondition},
    {CUDA_ERROR_NOT_SUPPORTED, absl::StatusCode::kUnimplemented},
};

absl::StatusCode CodeFor(CUresult result) {
  for (const ErrorCodeMapping& mapping : kErrorCodes) {
    if (mapping.result == result) return mapping.code;
  }
  return absl::StatusCode::kInternal;
}

}  // namespace

absl::StatusOr<const CudaDriverApi*> LoadCudaDriverApi() {
  if (const CudaDriverApi* api = testing_api.load()) return api;
  const absl::StatusOr<CudaDriverApi>& loaded = LoadedOnce();
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(),
                        absl::StrCat(loaded.status().message(), "; ", kAdvice));
  }
  return &*loaded;
}

absl::StatusOr<const CudaDriverApi*> LoadCudaDriverApiForArtifact(
    absl::string_view target) {
  if (const CudaDriverApi* api = testing_api.load()) return api;
  const absl::StatusOr<CudaDriverApi>& loaded = LoadedOnce();
  if (!loaded.ok()) {
    return absl::Status(
        loaded.status().code(),
        absl::StrCat(loaded.status().message(),
                     "; this artifact was compiled for ", target, "; ",
                     kAdvice));
  }
  return &*loaded;
}

void SetCudaDriverApiForTesting(const CudaDriverApi* api) {
  testing_api.store(api);
}

std::string CudaErrorName(const CudaDriverApi& api, CUresult result) {
  const char* name = nullptr;
  if (api.cuGetErrorName != nullptr &&
      api.cuGetErrorName(result, &name) == CUDA_SUCCESS && name != nullptr) {
    return name;
  }
  return absl::StrCat("CUresult ", static_cast<int>(result));
}

absl::Status CudaStatus(const CudaDriverApi& api, absl::string_view call,
                        CUresult result) {
  if (result == CUDA_SUCCESS) return absl::OkStatus();
  const char* description = nullptr;
  if (api.cuGetErrorString == nullptr ||
      api.cuGetErrorString(result, &description) != CUDA_SUCCESS ||
      description == nullptr) {
    description = "no description from the driver";
  }
  return absl::Status(CodeFor(result),
                      absl::StrCat(call, ": ", CudaErrorName(api, result),
                                   ": ", description));
}

}  // namespace stream_executor::cuda
