#include "xla/stream_executor/cuda/cuda_driver_api.h"

#include <string>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/dso_loader.h"

namespace stream_executor::cuda {
namespace {

// The advice every "driver missing" error ends with.
constexpr char kAdvice[] =
    "run on a machine with an NVIDIA GPU and driver, or recompile with "
    "--target=host";

// A driver without a required entry point is too old; the advice is added
// by LoadCudaDriverApi, not here.
absl::Status DriverTooOld(const OpenedLibrary& library, const char* symbol,
                          absl::string_view /*advice*/) {
  return absl::FailedPreconditionError(absl::StrCat(
      "NVIDIA driver too old: ", library.path, " has no symbol '", symbol,
      "' (the runtime needs CUDA ", CUDA_VERSION / 1000, ".",
      CUDA_VERSION % 1000 / 10,
      " driver API entry points); update the NVIDIA driver"));
}

// Required entry points, then the optional graph and capture ones: a driver
// without the graph API still runs, with graphs off.
void ResolveSymbols(SymbolResolver& symbols, CudaDriverApi& api) {
#define XLA_CUDA_RESOLVE(name) symbols.Required(#name, api.name);
  XLA_CUDA_DRIVER_API(XLA_CUDA_RESOLVE)
#undef XLA_CUDA_RESOLVE
#define XLA_CUDA_RESOLVE_OPTIONAL(name) symbols.Optional(#name, api.name);
  XLA_CUDA_DRIVER_GRAPH_API(XLA_CUDA_RESOLVE_OPTIONAL)
  XLA_CUDA_DRIVER_CAPTURE_API(XLA_CUDA_RESOLVE_OPTIONAL)
#undef XLA_CUDA_RESOLVE_OPTIONAL
}

}  // namespace

absl::StatusOr<CudaDriverApi> OpenCudaDriverLibrary(absl::string_view path) {
  // The handle is kept open for the life of the process: function pointers
  // into it are handed out.
  absl::StatusOr<OpenedLibrary> library = OpenFirst({std::string(path)});
  if (!library.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("no NVIDIA driver: ", library.status().message()));
  }
  absl::StatusOr<CudaDriverApi> resolved =
      ResolveApi<CudaDriverApi>(*library, kAdvice, &ResolveSymbols, &DriverTooOld);
  if (!resolved.ok()) return resolved.status();
  CudaDriverApi& api = *resolved;
#define XLA_CUDA_CLEAR(name) api.name = nullptr;
  if (!HasCudaGraphApi(api)) {
    XLA_CUDA_DRIVER_GRAPH_API(XLA_CUDA_CLEAR)
  }
  if (!HasCudaGraphCaptureApi(api)) {
    XLA_CUDA_DRIVER_CAPTURE_API(XLA_CUDA_CLEAR)
  }
#undef XLA_CUDA_CLEAR
  return resolved;
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

absl::StatusOr<CudaDriverApi> Load() {
  return OpenCudaDriverLibrary(
      LibraryPaths({kCudaDriverLibrary}, kCudaDriverLibraryEnv).front());
}

// The process-wide libcuda table, loaded once; its error gets the advice
// when it is handed out.
ABSL_CONST_INIT LazyApi<CudaDriverApi> driver_api(&Load);

// The loaded table, or its error followed by `context` and the advice.
absl::StatusOr<const CudaDriverApi*> LoadedWithAdvice(absl::string_view context) {
  if (const CudaDriverApi* api = driver_api.ForTesting()) return api;
  const absl::StatusOr<CudaDriverApi>& loaded = driver_api.Loaded();
  if (!loaded.ok()) {
    return absl::Status(loaded.status().code(),
                        absl::StrCat(loaded.status().message(), context, "; ",
                                     kAdvice));
  }
  return &*loaded;
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
  return LoadedWithAdvice("");
}

absl::StatusOr<const CudaDriverApi*> LoadCudaDriverApiForArtifact(
    absl::string_view target) {
  return LoadedWithAdvice(
      absl::StrCat("; this artifact was compiled for ", target));
}

void SetCudaDriverApiForTesting(const CudaDriverApi* api) {
  driver_api.SetForTesting(api);
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
