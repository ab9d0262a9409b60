#include "xla/stream_executor/cuda/nccl_api.h"

#include <atomic>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/dso_loader.h"

namespace stream_executor::cuda {
namespace {

constexpr char kAdvice[] =
    "collectives on CUDA targets need NCCL: install NCCL 2 (libnccl2), or "
    "run single-device / recompile with --target=host";

std::atomic<const NcclApi*> testing_api{nullptr};

absl::StatusOr<NcclApi> Load() {
  absl::StatusOr<OpenedLibrary> library =
      OpenLibrary("NCCL", {kNcclLibrary}, kNcclLibraryEnv, kAdvice);
  if (!library.ok()) return library.status();
  NcclApi api;
#define XLA_NCCL_RESOLVE(name)                                             \
  {                                                                        \
    absl::StatusOr<void*> symbol = LookupSymbol(*library, #name, kAdvice); \
    if (!symbol.ok()) return symbol.status();                              \
    api.name = reinterpret_cast<decltype(api.name)>(*symbol);              \
  }
  XLA_NCCL_API(XLA_NCCL_RESOLVE)
#undef XLA_NCCL_RESOLVE
  return api;
}

}  // namespace

absl::StatusOr<const NcclApi*> LoadNcclApi() {
  if (const NcclApi* api = testing_api.load()) return api;
  static const absl::StatusOr<NcclApi>* const loaded =
      new absl::StatusOr<NcclApi>(Load());
  if (!loaded->ok()) return loaded->status();
  return &**loaded;
}

void SetNcclApiForTesting(const NcclApi* api) { testing_api.store(api); }

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
