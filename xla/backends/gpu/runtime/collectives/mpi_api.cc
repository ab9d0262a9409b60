#include "xla/backends/gpu/runtime/collectives/mpi_api.h"

#include <dlfcn.h>

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"

namespace xla::gpu {

absl::StatusOr<std::unique_ptr<MpiApi>> LoadMpiApiFrom(absl::string_view library) {
  const std::string file(library);
  // RTLD_GLOBAL: OpenMPI's plugins (mca components) dlopen themselves and
  // need libmpi's symbols in the global scope.
  void* handle = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot load the MPI library ", file, " (", why == nullptr ? "unknown error" : why,
        "); running across processes needs OpenMPI: install it (apt-get install "
        "libopenmpi-dev openmpi-bin), or run without multiple processes "
        "(xla_aot run --replicas=N runs N replicas in one process)"));
  }
  auto api = std::make_unique<MpiApi>();
  api->library = file;
  auto resolve = [&](const char* symbol) -> absl::StatusOr<void*> {
    dlerror();
    void* p = dlsym(handle, symbol);
    if (p == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the MPI library ", file, " has no symbol ", symbol,
          "; the runtime needs OpenMPI 4.x (apt-get install libopenmpi-dev)"));
    }
    return p;
  };
#define XLA_MPI_RESOLVE_FUNCTION(name)                                   \
  {                                                                      \
    absl::StatusOr<void*> p = resolve(#name);                            \
    if (!p.ok()) return p.status();                                      \
    api->name = reinterpret_cast<decltype(&::name)>(*p);                 \
  }
  XLA_MPI_FUNCTIONS(XLA_MPI_RESOLVE_FUNCTION)
#undef XLA_MPI_RESOLVE_FUNCTION
#define XLA_MPI_RESOLVE_HANDLE(field, type, symbol)                      \
  {                                                                      \
    absl::StatusOr<void*> p = resolve(#symbol);                          \
    if (!p.ok()) return p.status();                                      \
    api->field = static_cast<type>(*p);                                  \
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
