#include "xla/backends/gpu/runtime/collectives/mpi_api.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "xla/stream_executor/cuda/dso_loader.h"
#include "xla/util/status_macros.h"

namespace xla::gpu {

namespace se = ::stream_executor;

namespace {

constexpr char kAdvice[] =
    "running across processes needs OpenMPI: install it (apt-get install libopenmpi-dev "
    "openmpi-bin), or run without multiple processes (xla_aot run --replicas=N runs N replicas "
    "in one process)";
constexpr char kSymbolAdvice[] = "the runtime needs OpenMPI 4.x (apt-get install libopenmpi-dev)";

// dlsym of `symbol` in the opened MPI library, with MPI's wording of a miss.
absl::StatusOr<void*> Resolve(const se::cuda::OpenedLibrary& library, const char* symbol) {
  absl::StatusOr<void*> p = se::cuda::LookupSymbol(library, symbol, kSymbolAdvice);
  if (p.ok()) return p;
  return absl::FailedPreconditionError(absl::StrCat("the MPI library ", library.path,
                                                    " has no symbol ", symbol, "; ",
                                                    kSymbolAdvice));
}

}  // namespace

absl::StatusOr<std::unique_ptr<MpiApi>> LoadMpiApiFrom(absl::string_view library) {
  const std::string file(library);
  // kGlobal: OpenMPI's plugins (mca components) dlopen themselves and need
  // libmpi's symbols in the global scope.
  absl::StatusOr<se::cuda::OpenedLibrary> opened = se::cuda::OpenLibrary(
      "MPI", {file}, /*env_override=*/nullptr, kAdvice, se::cuda::SymbolScope::kGlobal);
  if (!opened.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot load the MPI library ", file, ": ", opened.status().message()));
  }
  auto api = std::make_unique<MpiApi>();
  api->library = file;
#define XLA_MPI_RESOLVE_FUNCTION(name)                   \
  {                                                      \
    ASSIGN_OR_RETURN(void* p, Resolve(*opened, #name));  \
    api->name = reinterpret_cast<decltype(&::name)>(p);  \
  }
  XLA_MPI_FUNCTIONS(XLA_MPI_RESOLVE_FUNCTION)
#undef XLA_MPI_RESOLVE_FUNCTION
#define XLA_MPI_RESOLVE_HANDLE(field, type, symbol)        \
  {                                                        \
    ASSIGN_OR_RETURN(void* p, Resolve(*opened, #symbol));  \
    api->field = static_cast<type>(p);                     \
  }
  XLA_MPI_HANDLES(XLA_MPI_RESOLVE_HANDLE)
#undef XLA_MPI_RESOLVE_HANDLE
  return api;
}

absl::StatusOr<const MpiApi*> LoadMpiApi() {
  static const absl::StatusOr<std::unique_ptr<MpiApi>>* loaded =
      new absl::StatusOr<std::unique_ptr<MpiApi>>(LoadMpiApiFrom(kMpiLibrary));
  if (!loaded->ok()) return loaded->status();
  return loaded->value().get();
}

absl::Status MpiError(const MpiApi& api, int code, absl::string_view call) {
  if (code == MPI_SUCCESS) return absl::OkStatus();
  char text[MPI_MAX_ERROR_STRING + 1] = {0};
  int length = 0;
  std::string what = "unknown MPI error";
  // OpenMPI aborts the process when MPI_Error_string runs outside
  // MPI_Init..MPI_Finalize.
  int initialized = 0, finalized = 0;
  if (api.MPI_Initialized != nullptr && api.MPI_Finalized != nullptr &&
      api.MPI_Error_string != nullptr && api.MPI_Initialized(&initialized) == MPI_SUCCESS &&
      api.MPI_Finalized(&finalized) == MPI_SUCCESS && initialized && !finalized &&
      api.MPI_Error_string(code, text, &length) == MPI_SUCCESS && length > 0) {
    what.assign(text, static_cast<size_t>(std::min(length, MPI_MAX_ERROR_STRING)));
  }
  return absl::InternalError(absl::StrCat(call, " failed: ", what, " (MPI error ", code, ")"));
}

}  // namespace xla::gpu
