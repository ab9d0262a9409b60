#include "xla/stream_executor/cuda/cublaslt_api.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/cublas_api.h"
#include "xla/stream_executor/cuda/dso_loader.h"

namespace stream_executor::cuda {
namespace {

constexpr char kAdvice[] =
    "GEMMs on CUDA targets use cuBLASLt when it loads: install the CUDA "
    "toolkit's cuBLAS libraries (libcublasLt ships with libcublas), set "
    "XLA_CUBLASLT_LIBRARY to its path, or recompile with --target=host";

std::atomic<const CublasLtApi*> testing_api{nullptr};

absl::StatusOr<CublasLtApi> Resolve(const OpenedLibrary& library) {
  CublasLtApi api;
#define XLA_CUBLASLT_RESOLVE(name, type)                                   \
  {                                                                        \
    absl::StatusOr<void*> symbol = LookupSymbol(library, #name, kAdvice);  \
    if (!symbol.ok()) return symbol.status();                              \
    api.name = reinterpret_cast<type>(*symbol);                            \
  }
  XLA_CUBLASLT_API(XLA_CUBLASLT_RESOLVE)
#undef XLA_CUBLASLT_RESOLVE
  return api;
}

absl::StatusOr<CublasLtApi> Load() {
  const std::vector<std::string> candidates(std::begin(kCublasLtLibraries),
                                            std::end(kCublasLtLibraries));
  absl::StatusOr<OpenedLibrary> library =
      OpenLibrary("cuBLASLt", candidates, kCublasLtLibraryEnv, kAdvice);
  if (!library.ok()) return library.status();
  return Resolve(*library);
}


}  // namespace

absl::StatusOr<CublasLtApi> OpenCublasLtApi(
    const std::vector<std::string>& candidates) {
  absl::StatusOr<OpenedLibrary> library =
      OpenLibrary("cuBLASLt", candidates, /*env_override=*/nullptr, kAdvice);
  if (!library.ok()) return library.status();
  return Resolve(*library);
}

absl::StatusOr<const CublasLtApi*> LoadCublasLtApi() {
  if (const CublasLtApi* api = testing_api.load()) return api;
  static const absl::StatusOr<CublasLtApi>* const loaded =
      new absl::StatusOr<CublasLtApi>(Load());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

void SetCublasLtApiForTesting(const CublasLtApi* api) {
  testing_api.store(api);
}

const CublasLtApi* CublasLtApiForTesting() { return testing_api.load(); }

absl::Status CublasLtStatus(const CublasLtApi& api, absl::string_view call,
                            cublasStatus_t status) {
  if (status == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return CublasStatusFromParts(
      call, status,
      api.cublasLtGetStatusName != nullptr ? api.cublasLtGetStatusName(status) : nullptr,
      api.cublasLtGetStatusString != nullptr ? api.cublasLtGetStatusString(status) : nullptr);
}

}  // namespace stream_executor::cuda
