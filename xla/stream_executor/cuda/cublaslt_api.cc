#include "xla/stream_executor/cuda/cublaslt_api.h"

#include <iterator>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/cublas_api.h"
#include "xla/stream_executor/cuda/dso_loader.h"

namespace stream_executor::cuda {
namespace {

constexpr char kAdvice[] =
    "GEMMs on CUDA targets use cuBLASLt when it loads: install the CUDA "
    "toolkit's cuBLAS libraries (libcublasLt ships with libcublas), set "
    "XLA_CUBLASLT_LIBRARY to its path, or recompile with --target=host";

void ResolveSymbols(SymbolResolver& symbols, CublasLtApi& api) {
#define XLA_CUBLASLT_RESOLVE(name, type) symbols.Required(#name, api.name);
  XLA_CUBLASLT_API(XLA_CUBLASLT_RESOLVE)
#undef XLA_CUBLASLT_RESOLVE
}

absl::StatusOr<CublasLtApi> Load() {
  return OpenApi<CublasLtApi>(
      "cuBLASLt", {std::begin(kCublasLtLibraries), std::end(kCublasLtLibraries)},
      kCublasLtLibraryEnv, kAdvice, &ResolveSymbols);
}

ABSL_CONST_INIT LazyApi<CublasLtApi> cublaslt_api(&Load);

}  // namespace

absl::StatusOr<CublasLtApi> OpenCublasLtApi(
    const std::vector<std::string>& candidates) {
  return OpenApi<CublasLtApi>("cuBLASLt", candidates, /*env_override=*/nullptr,
                              kAdvice, &ResolveSymbols);
}

absl::StatusOr<const CublasLtApi*> LoadCublasLtApi() { return cublaslt_api.Get(); }

void SetCublasLtApiForTesting(const CublasLtApi* api) {
  cublaslt_api.SetForTesting(api);
}

const CublasLtApi* CublasLtApiForTesting() { return cublaslt_api.ForTesting(); }

absl::Status CublasLtStatus(const CublasLtApi& api, absl::string_view call,
                            cublasStatus_t status) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return CublasStatusFromParts(
      call, status,
      api.cublasLtGetStatusName != nullptr ? api.cublasLtGetStatusName(status) : nullptr,
      api.cublasLtGetStatusString != nullptr ? api.cublasLtGetStatusString(status) : nullptr);
}

}  // namespace stream_executor::cuda
