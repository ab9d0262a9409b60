// Opening the libraries the runtime never links with dlopen, for their
// X-macro symbol tables: the NVIDIA ones (libcuda, cuBLAS(Lt), NCCL) and
// MPI's (xla/backends/gpu/runtime/collectives/mpi_api.h), so that every
// dlopen table is loaded the same way.
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

// Where an opened library's symbols are visible: to the table only
// (RTLD_LOCAL), or to every later dlopen as well (RTLD_GLOBAL: OpenMPI's
// plugins need libmpi's symbols there).
enum class SymbolScope { kLocal, kGlobal };

// Opens the first of `candidates` that dlopen accepts, unless the
// environment variable `env_override` is set and non-empty, in which case
// only its value is tried. FailedPrecondition "<what> not found: cannot
// dlopen <candidates> (<last dlerror>); <advice>" when none opens.
absl::StatusOr<OpenedLibrary> OpenLibrary(
    absl::string_view what, const std::vector<std::string>& candidates,
    const char* env_override, absl::string_view advice,
    SymbolScope scope = SymbolScope::kLocal);

// dlsym of `symbol`, or FailedPrecondition "<library path> has no symbol
// '<symbol>'; <advice>".
absl::StatusOr<void*> LookupSymbol(const OpenedLibrary& library,
                                   const char* symbol, absl::string_view advice);

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_DSO_LOADER_H_
