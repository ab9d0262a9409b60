// MpiApi: the MPI functions the runtime uses, resolved at run time with
// dlopen("libmpi.so.40") (Debian's OpenMPI 4.x), so that nothing links
// libmpi and the single-process runtime never needs it.
//
// Loaded the way every dlopen table of the runtime is (NCCL's, NcclApi in
// xla/stream_executor/cuda/nccl_api.h, and cuBLAS' and the driver's next to
// it): an X-macro list of entry points resolved through dso_loader.h's
// OpenLibrary and LookupSymbol. The table itself stays here, with the MPI
// communicators, because MPI serves the host target and is no CUDA
// library; only the loading is shared.
//
// The types come from OpenMPI's own mpi.h (compiled against, never linked).
// OpenMPI's handles (MPI_COMM_WORLD, MPI_BYTE, ...) are macros taking the
// address of library globals (ompi_mpi_comm_world, ...); using the macros
// would reference libmpi at link time, so the globals are resolved with
// dlsym too and exposed as fields below. Code using MpiApi must not use
// those handle macros.
//
// MPI_RETURN_IF_ERROR(api, MPI_Fn, args...) calls api.MPI_Fn(args...) and
// returns an error naming MPI_Fn and MPI's error string when it fails; it
// works only where the communicator's error handler returns codes
// (MpiCliques sets MPI_ERRORS_RETURN on the world communicator).
//
// Thread-safety: an MpiApi is immutable after loading; whether its
// functions may be called concurrently is MPI's thread level (see
// mpi_communicator.h).
#ifndef XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_MPI_API_H_
#define XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_MPI_API_H_

// OpenMPI's mpi.h pulls in its deprecated C++ bindings unless told not to.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#include <openmpi/mpi.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace xla::gpu {

// The library LoadMpiApi opens by default.
inline constexpr char kMpiLibrary[] = "libmpi.so.40";

// Every MPI function the runtime calls: X(name).
#define XLA_MPI_FUNCTIONS(X) \
  X(MPI_Initialized)         \
  X(MPI_Finalized)           \
  X(MPI_Init_thread)         \
  X(MPI_Finalize)            \
  X(MPI_Abort)               \
  X(MPI_Error_string)        \
  X(MPI_Comm_set_errhandler) \
  X(MPI_Comm_rank)           \
  X(MPI_Comm_size)           \
  X(MPI_Comm_split)          \
  X(MPI_Comm_free)           \
  X(MPI_Iallgather)          \
  X(MPI_Ialltoall)           \
  X(MPI_Ibcast)              \
  X(MPI_Isend)               \
  X(MPI_Irecv)               \
  X(MPI_Testall)             \
  X(MPI_Cancel)              \
  X(MPI_Request_free)

// Every predefined handle the runtime uses: X(field, type, symbol).
#define XLA_MPI_HANDLES(X)                                      \
  X(comm_world, MPI_Comm, ompi_mpi_comm_world)                  \
  X(comm_null, MPI_Comm, ompi_mpi_comm_null)                    \
  X(byte, MPI_Datatype, ompi_mpi_byte)                          \
  X(errors_return, MPI_Errhandler, ompi_mpi_errors_return)

struct MpiApi {
#define XLA_MPI_DECLARE_FUNCTION(name) decltype(&::name) name = nullptr;
  XLA_MPI_FUNCTIONS(XLA_MPI_DECLARE_FUNCTION)
#undef XLA_MPI_DECLARE_FUNCTION
#define XLA_MPI_DECLARE_HANDLE(field, type, symbol) type field = nullptr;
  XLA_MPI_HANDLES(XLA_MPI_DECLARE_HANDLE)
#undef XLA_MPI_DECLARE_HANDLE
  // The file the symbols came from.
  std::string library;
};

// Opens `library` and resolves every function and handle above. A new,
// independent table each call (the library stays loaded for the process'
// lifetime). FailedPrecondition when the library cannot be opened (naming
// the file and dlerror, and suggesting `apt-get install libopenmpi-dev`
// or running without multiple processes), or when a symbol is missing
// (naming the symbol and the file: not OpenMPI 4.x). Thread-safe.
absl::StatusOr<std::unique_ptr<MpiApi>> LoadMpiApiFrom(absl::string_view library);

// The process-wide table for kMpiLibrary, loaded on first use; later calls
// return the same table or the same error. Thread-safe.
absl::StatusOr<const MpiApi*> LoadMpiApi();

// The error for MPI call `call` having returned `code`: Internal,
// "<call> failed: <MPI's error string> (MPI error <code>)"; the string is
// "unknown MPI error" outside MPI_Init..MPI_Finalize (where OpenMPI would
// abort when asked). Success (0) gives OK. Thread-safe.
absl::Status MpiError(const MpiApi& api, int code, absl::string_view call);

}  // namespace xla::gpu

// Calls (api).fn(args...) and returns MpiError naming `fn` when it fails.
#define MPI_RETURN_IF_ERROR(api, fn, ...)                              \
  do {                                                                 \
    const int xla_mpi_rc_ = (api).fn(__VA_ARGS__);                     \
    if (xla_mpi_rc_ != MPI_SUCCESS) {                                  \
      return ::xla::gpu::MpiError((api), xla_mpi_rc_, #fn);            \
    }                                                                  \
  } while (false)

#endif  // XLA_BACKENDS_GPU_RUNTIME_COLLECTIVES_MPI_API_H_
