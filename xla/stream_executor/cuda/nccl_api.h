// NcclApi: the NCCL entry points the collective thunks use, as one table of
// function pointers filled by dlopen("libnccl.so.2") (never linked).
//
// Thread-safety: the table is immutable once loaded; LoadNcclApi may be
// called from any thread (it loads once).
#ifndef XLA_STREAM_EXECUTOR_CUDA_NCCL_API_H_
#define XLA_STREAM_EXECUTOR_CUDA_NCCL_API_H_

#include <nccl.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stream_executor::cuda {

#define XLA_NCCL_API(X)   \
  X(ncclGetVersion)       \
  X(ncclGetUniqueId)      \
  X(ncclCommInitRank)     \
  X(ncclCommDestroy)      \
  X(ncclCommAbort)        \
  X(ncclAllReduce)        \
  X(ncclAllGather)        \
  X(ncclReduceScatter)    \
  X(ncclBroadcast)        \
  X(ncclSend)             \
  X(ncclRecv)             \
  X(ncclGroupStart)       \
  X(ncclGroupEnd)         \
  X(ncclGetErrorString)

// One function pointer per entry point (types from nccl.h); all non-null in
// a loaded table.
struct NcclApi {
#define XLA_NCCL_API_FIELD(name) decltype(&::name) name = nullptr;
  XLA_NCCL_API(XLA_NCCL_API_FIELD)
#undef XLA_NCCL_API_FIELD
};

inline constexpr char kNcclLibrary[] = "libnccl.so.2";
inline constexpr char kNcclLibraryEnv[] = "XLA_NCCL_LIBRARY";

// The NCCL table: the one set by SetNcclApiForTesting, otherwise
// libnccl.so.2 (or $XLA_NCCL_LIBRARY) loaded on the first call.
// FailedPrecondition "NCCL not found: cannot dlopen libnccl.so.2 (...);
// ..." or naming the missing symbol. Thread-safe.
absl::StatusOr<const NcclApi*> LoadNcclApi();

// Makes LoadNcclApi return `api` (not owned); nullptr restores the real
// loader. For tests. Thread-safe.
void SetNcclApiForTesting(const NcclApi* api);

// OK for ncclSuccess; otherwise "<call>: <ncclGetErrorString>" (Unavailable
// for remote errors, InvalidArgument for invalid arguments and usage,
// Internal otherwise). Thread-safe.
absl::Status NcclStatus(const NcclApi& api, absl::string_view call,
                        ncclResult_t result);

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_NCCL_API_H_
