#include "xla/stream_executor/cuda/nccl_api.h"

#include "absl/base/attributes.h"
#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/dso_loader.h"

namespace stream_executor::cuda {
namespace {

constexpr char kAdvice[] =
    "collectives on CUDA targets need NCCL: install NCCL 2 (libnccl2), or "
    "run single-device / recompile with --target=host";

void ResolveSymbols(SymbolResolver& symbols, NcclApi& api) {
#define XLA_NCCL_RESOLVE(name) symbols.Required(#name, api.name);
  XLA_NCCL_API(XLA_NCCL_RESOLVE)
#undef XLA_NCCL_RESOLVE
}

absl::StatusOr<NcclApi> Load() {
  return OpenApi<NcclApi>("NCCL", {kNcclLibrary}, kNcclLibraryEnv, kAdvice,
                          &ResolveSymbols);
}

ABSL_CONST_INIT LazyApi<NcclApi> nccl_api(&Load);

}  // namespace

absl::StatusOr<const NcclApi*> LoadNcclApi() { return nccl_api.Get(); }

void SetNcclApiForTesting(const NcclApi* api) { nccl_api.SetForTesting(api); }

absl::Status NcclStatus(const NcclApi& api, absl::string_view call,
                        ncclResult_t result) {
  if (result == ncclSuccess) return absl::OkStatus();
  absl::StatusCode code = absl::StatusCode::kInternal;
  if (result == ncclRemoteError) code = absl::StatusCode::kUnavailable;
  if (result == ncclInvalidArgument || result == ncclInvalidUsage) {
    code = absl::StatusCode::kInvalidArgument;
  }
  const char* text =
      api.ncclGetErrorString != nullptr ? api.ncclGetErrorString(result) : nullptr;
  return absl::Status(
      code, absl::StrCat(call, ": ncclResult_t ", static_cast<int>(result), ": ",
                         text != nullptr ? text : "no description"));
}

}  // namespace stream_executor::cuda
