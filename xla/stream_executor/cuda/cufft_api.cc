#include "xla/stream_executor/cuda/cufft_api.h"

#include <iterator>

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/dso_loader.h"

namespace stream_executor::cuda {
namespace {

constexpr char kAdvice[] =
    "FFTs on CUDA targets need cuFFT: install the CUDA toolkit's cuFFT "
    "library (libcufft.so.12) or point XLA_CUFFT_LIBRARY at it, or recompile "
    "with --target=host";

void ResolveSymbols(SymbolResolver& symbols, CufftApi& api) {
#define XLA_CUFFT_RESOLVE(name, type) symbols.Required(#name, api.name);
  XLA_CUFFT_API(XLA_CUFFT_RESOLVE)
#undef XLA_CUFFT_RESOLVE
}

absl::StatusOr<CufftApi> Load() {
  return OpenApi<CufftApi>(
      "cuFFT", {std::begin(kCufftLibraries), std::end(kCufftLibraries)},
      kCufftLibraryEnv, kAdvice, &ResolveSymbols);
}

ABSL_CONST_INIT LazyApi<CufftApi> cufft_api(&Load);

struct ResultInfo {
  cufftResult result;
  const char* name;
  absl::StatusCode code;
};

constexpr ResultInfo kResults[] = {
    {CUFFT_INVALID_PLAN, "CUFFT_INVALID_PLAN", absl::StatusCode::kInvalidArgument},
    {CUFFT_ALLOC_FAILED, "CUFFT_ALLOC_FAILED", absl::StatusCode::kResourceExhausted},
    {CUFFT_INVALID_TYPE, "CUFFT_INVALID_TYPE", absl::StatusCode::kInvalidArgument},
    {CUFFT_INVALID_VALUE, "CUFFT_INVALID_VALUE", absl::StatusCode::kInvalidArgument},
    {CUFFT_INTERNAL_ERROR, "CUFFT_INTERNAL_ERROR", absl::StatusCode::kInternal},
    {CUFFT_EXEC_FAILED, "CUFFT_EXEC_FAILED", absl::StatusCode::kInternal},
    {CUFFT_SETUP_FAILED, "CUFFT_SETUP_FAILED", absl::StatusCode::kFailedPrecondition},
    {CUFFT_INVALID_SIZE, "CUFFT_INVALID_SIZE", absl::StatusCode::kInvalidArgument},
    {CUFFT_UNALIGNED_DATA, "CUFFT_UNALIGNED_DATA", absl::StatusCode::kInvalidArgument},
    {CUFFT_INVALID_DEVICE, "CUFFT_INVALID_DEVICE", absl::StatusCode::kFailedPrecondition},
    {CUFFT_NO_WORKSPACE, "CUFFT_NO_WORKSPACE", absl::StatusCode::kFailedPrecondition},
    {CUFFT_NOT_IMPLEMENTED, "CUFFT_NOT_IMPLEMENTED", absl::StatusCode::kUnimplemented},
    {CUFFT_NOT_SUPPORTED, "CUFFT_NOT_SUPPORTED", absl::StatusCode::kUnimplemented},
};

}  // namespace

absl::StatusOr<const CufftApi*> LoadCufftApi() { return cufft_api.Get(); }

void SetCufftApiForTesting(const CufftApi* api) { cufft_api.SetForTesting(api); }

absl::Status CufftStatus(absl::string_view call, cufftResult result) {
  if (result == CUFFT_SUCCESS) return absl::OkStatus();
  for (const ResultInfo& info : kResults) {
    if (info.result == result) {
      return absl::Status(info.code, absl::StrCat(call, ": ", info.name, " (",
                                                  static_cast<int>(result), ")"));
    }
  }
  return absl::InternalError(
      absl::StrCat(call, ": cufftResult ", static_cast<int>(result)));
}

}  // namespace stream_executor::cuda
