#include "xla/stream_executor/cuda/cublas_api.h"

#include <iterator>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/dso_loader.h"

namespace stream_executor::cuda {
namespace {

constexpr char kAdvice[] =
    "GEMMs on CUDA targets need cuBLAS: install the CUDA toolkit's cuBLAS "
    "libraries, or recompile with --target=host";

void ResolveSymbols(SymbolResolver& symbols, CublasApi& api) {
#define XLA_CUBLAS_RESOLVE(name, type) symbols.Required(#name, api.name);
  XLA_CUBLAS_API(XLA_CUBLAS_RESOLVE)
#undef XLA_CUBLAS_RESOLVE
}

absl::StatusOr<CublasApi> Load() {
  return OpenApi<CublasApi>(
      "cuBLAS", {std::begin(kCublasLibraries), std::end(kCublasLibraries)},
      kCublasLibraryEnv, kAdvice, &ResolveSymbols);
}

ABSL_CONST_INIT LazyApi<CublasApi> cublas_api(&Load);

struct CodeMapping {
  cublasStatus_t status;
  absl::StatusCode code;
};

constexpr CodeMapping kCodes[] = {
    {CUBLAS_STATUS_INVALID_VALUE, absl::StatusCode::kInvalidArgument},
    {CUBLAS_STATUS_ALLOC_FAILED, absl::StatusCode::kResourceExhausted},
    {CUBLAS_STATUS_NOT_SUPPORTED, absl::StatusCode::kUnimplemented},
    {CUBLAS_STATUS_ARCH_MISMATCH, absl::StatusCode::kFailedPrecondition},
    {CUBLAS_STATUS_NOT_INITIALIZED, absl::StatusCode::kFailedPrecondition},
};

}  // namespace

absl::StatusOr<const CublasApi*> LoadCublasApi() { return cublas_api.Get(); }

void SetCublasApiForTesting(const CublasApi* api) { cublas_api.SetForTesting(api); }

const CublasApi* CublasApiForTesting() { return cublas_api.ForTesting(); }

absl::Status CublasStatusFromParts(absl::string_view call, cublasStatus_t status,
                                   const char* name, const char* text) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  absl::StatusCode code = absl::StatusCode::kInternal;
  for (const CodeMapping& mapping : kCodes) {
    if (mapping.status == status) code = mapping.code;
  }
  return absl::Status(
      code, absl::StrCat(call, ": ",
                         name != nullptr ? name
                                         : absl::StrCat("cublasStatus_t ",
                                                        static_cast<int>(status)),
                         ": ", text != nullptr ? text : "no description"));
}

absl::Status CublasStatus(const CublasApi& api, absl::string_view call,
                          cublasStatus_t status) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return CublasStatusFromParts(
      call, status,
      api.cublasGetStatusName != nullptr ? api.cublasGetStatusName(status) : nullptr,
      api.cublasGetStatusString != nullptr ? api.cublasGetStatusString(status) : nullptr);
}

}  // namespace stream_executor::cuda
