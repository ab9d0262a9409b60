#include "xla/stream_executor/cuda/cudnn_api.h"

#include <iterator>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/dso_loader.h"

namespace stream_executor::cuda {
namespace {

constexpr char kAdvice[] =
    "convolutions compiled with --emit_cudnn_convolutions need cuDNN 9: install it (it comes "
    "with the CUDA toolkit or jax[cuda]) or point XLA_CUDNN_LIBRARY at libcudnn.so.9, or "
    "recompile without --emit_cudnn_convolutions";

void ResolveSymbols(SymbolResolver& symbols, CudnnApi& api) {
#define XLA_CUDNN_RESOLVE(name) symbols.Required(#name, api.name);
  XLA_CUDNN_API(XLA_CUDNN_RESOLVE)
#undef XLA_CUDNN_RESOLVE
}

absl::StatusOr<CudnnApi> Load() {
  return OpenApi<CudnnApi>(
      "cuDNN", {std::begin(kCudnnLibraries), std::end(kCudnnLibraries)},
      kCudnnLibraryEnv, kAdvice, &ResolveSymbols);
}

ABSL_CONST_INIT LazyApi<CudnnApi> cudnn_api(&Load);

struct CodeMapping {
  cudnnStatus_t status;
  absl::StatusCode code;
};

constexpr CodeMapping kCodes[] = {
    {CUDNN_STATUS_BAD_PARAM, absl::StatusCode::kInvalidArgument},
    {CUDNN_STATUS_ALLOC_FAILED, absl::StatusCode::kResourceExhausted},
    {CUDNN_STATUS_NOT_SUPPORTED, absl::StatusCode::kUnimplemented},
    {CUDNN_STATUS_NOT_INITIALIZED, absl::StatusCode::kFailedPrecondition},
};

}  // namespace

absl::StatusOr<const CudnnApi*> LoadCudnnApi() { return cudnn_api.Get(); }

void SetCudnnApiForTesting(const CudnnApi* api) { cudnn_api.SetForTesting(api); }

absl::Status CudnnStatus(const CudnnApi& api, absl::string_view call, cudnnStatus_t status) {
  if (status == CUDNN_STATUS_SUCCESS) return absl::OkStatus();
  absl::StatusCode code = absl::StatusCode::kInternal;
  for (const CodeMapping& mapping : kCodes) {
    if (mapping.status == status) code = mapping.code;
  }
  const char* text = api.cudnnGetErrorString != nullptr ? api.cudnnGetErrorString(status) : nullptr;
  return absl::Status(code, absl::StrCat(call, ": ",
                                         text != nullptr ? text
                                                         : absl::StrCat("cudnnStatus_t ",
                                                                        static_cast<int>(status))));
}

}  // namespace stream_executor::cuda
