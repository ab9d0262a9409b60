// Opening the NVIDIA libraries the runtime never links (libcuda, cuBLAS,
// NCCL) with dlopen, for their X-macro symbol tables.
//
// Thread-safety: thread-safe (dlopen/dlsym are).
#ifndef XLA_STREAM_EXECUTOR_CUDA_DSO_LOADER_H_
#define XLA_STREAM_EXECUTOR_CUDA_DSO_LOADER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace stream_executor::cuda {

// An open library (never closed: its function pointers are handed out).
struct OpenedLibrary {
  void* handle = nullptr;
  std::string path;  // the candidate that opened
};

// Opens the first of `candidates` that dlopen accepts, unless the
// environment variable `env_override` is set and non-empty, in which case
// only its value is tried. FailedPrecondition "<what> not found: cannot
// dlopen <candidates> (<last dlerror>); <advice>" when none opens.
absl::StatusOr<OpenedLibrary> OpenLibrary(
    absl::string_view what, const std::vector<std::string>& candidates,
    const char* env_override, absl::string_view advice);

// dlsym of `symbol`, or FailedPrecondition "<library path> has no symbol
// '<symbol>'; <advice>".
absl::StatusOr<void*> LookupSymbol(const OpenedLibrary& library,
                                   const char* symbol, absl::string_view advice);

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_DSO_LOADER_H_
