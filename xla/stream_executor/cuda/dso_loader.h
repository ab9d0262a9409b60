// Opening the libraries the runtime never links with dlopen, for their
// X-macro symbol tables: the NVIDIA ones (libcuda, cuBLAS(Lt), cuDNN, cuFFT,
// NCCL) and MPI's (xla/backends/gpu/runtime/collectives/mpi_api.h), so that
// every dlopen table is loaded the same way.
//
// A table's file keeps only what is its own: the X-macro of its symbols, its
// advice, its status-code table. The rest is here: which path to open
// (candidates, or an environment variable's path), one error wording for a
// library or a symbol that is missing, required and optional entry points
// (SymbolResolver), and the process-wide, load-once table with its testing
// override (LazyApi).
//
// Thread-safety: every function here is thread-safe (dlopen/dlsym are);
// SymbolResolver is one thread's; LazyApi is thread-safe.
#ifndef XLA_STREAM_EXECUTOR_CUDA_DSO_LOADER_H_
#define XLA_STREAM_EXECUTOR_CUDA_DSO_LOADER_H_

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
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

// The paths to try: the value of the environment variable `env_override`
// alone when it is set and non-empty (`env_override` may be nullptr),
// `candidates` otherwise. Never fails.
std::vector<std::string> LibraryPaths(const std::vector<std::string>& candidates,
                                      const char* env_override);

// Opens the first of `paths` that dlopen accepts. FailedPrecondition
// "cannot dlopen <paths> (<last dlerror>)" when none opens; callers put
// what was missing in front and what to do behind.
absl::StatusOr<OpenedLibrary> OpenFirst(const std::vector<std::string>& paths,
                                        SymbolScope scope = SymbolScope::kLocal);

// OpenFirst of LibraryPaths(candidates, env_override), with the error
// "<what> not found: cannot dlopen <paths> (<last dlerror>); <advice>".
absl::StatusOr<OpenedLibrary> OpenLibrary(
    absl::string_view what, const std::vector<std::string>& candidates,
    const char* env_override, absl::string_view advice,
    SymbolScope scope = SymbolScope::kLocal);

// dlsym of `symbol`, or FailedPrecondition "<library path> has no symbol
// '<symbol>'; <advice>".
absl::StatusOr<void*> LookupSymbol(const OpenedLibrary& library,
                                   const char* symbol, absl::string_view advice);

// Fills a table's function pointers from one opened library. Required()
// stops at the first missing symbol (status() then says which, and every
// later Required() leaves its slot null); Optional() leaves a missing
// symbol's slot null and never fails. Not thread-safe: one resolver per
// load.
class SymbolResolver {
 public:
  // The error for a required symbol the library lacks.
  using MissingSymbolError = absl::Status (*)(const OpenedLibrary& library,
                                              const char* symbol,
                                              absl::string_view advice);

  // `library` must outlive the resolver. The default error is
  // LookupSymbol's ("<path> has no symbol '<symbol>'; <advice>").
  SymbolResolver(const OpenedLibrary& library, absl::string_view advice,
                 MissingSymbolError missing = &DefaultMissingSymbolError);

  template <typename Fn>
  void Required(const char* symbol, Fn*& slot) {
    slot = nullptr;
    if (!status_.ok()) return;
    void* address = Find(symbol);
    if (address == nullptr) {
      status_ = missing_(library_, symbol, advice_);
      return;
    }
    slot = reinterpret_cast<Fn*>(address);
  }

  template <typename Fn>
  void Optional(const char* symbol, Fn*& slot) {
    slot = reinterpret_cast<Fn*>(Find(symbol));
  }

  // OK, or the error of the first missing required symbol.
  const absl::Status& status() const { return status_; }

  static absl::Status DefaultMissingSymbolError(const OpenedLibrary& library,
                                                const char* symbol,
                                                absl::string_view advice);

 private:
  void* Find(const char* symbol) const;  // dlsym, nullptr when absent

  const OpenedLibrary& library_;
  std::string advice_;
  MissingSymbolError missing_;
  absl::Status status_;
};

// A table `Api` filled by `resolve` (which calls Required/Optional once per
// entry point, usually through the table's X-macro) from `library`; the
// resolver's error when a required symbol is missing.
template <typename Api>
absl::StatusOr<Api> ResolveApi(
    const OpenedLibrary& library, absl::string_view advice,
    void (*resolve)(SymbolResolver& symbols, Api& api),
    SymbolResolver::MissingSymbolError missing =
        &SymbolResolver::DefaultMissingSymbolError) {
  SymbolResolver symbols(library, advice, missing);
  Api api;
  resolve(symbols, api);
  if (!symbols.status().ok()) return symbols.status();
  return api;
}

// OpenLibrary, then ResolveApi: the usual way to load a table. Errors as
// those two.
template <typename Api>
absl::StatusOr<Api> OpenApi(absl::string_view what,
                            const std::vector<std::string>& candidates,
                            const char* env_override, absl::string_view advice,
                            void (*resolve)(SymbolResolver& symbols, Api& api)) {
  absl::StatusOr<OpenedLibrary> library =
      OpenLibrary(what, candidates, env_override, advice);
  if (!library.ok()) return library.status();
  return ResolveApi(*library, advice, resolve);
}

// A process-wide table: the one a test installed with SetForTesting, or
// else the result of `load`, run once on first use and kept (error
// included) for the life of the process. The loaded table is never freed:
// function pointers into it are handed out and may be used from static
// destructors. Constant-initialized, so it can be a namespace-scope
// ABSL_CONST_INIT object. Thread-safe: concurrent first calls run `load`
// once and all see its result.
template <typename Api>
class LazyApi {
 public:
  using Loader = absl::StatusOr<Api> (*)();

  constexpr explicit LazyApi(Loader load) : load_(load) {}
  LazyApi(const LazyApi&) = delete;
  LazyApi& operator=(const LazyApi&) = delete;

  // The testing table if one is set, otherwise the loaded one or the
  // loader's error.
  absl::StatusOr<const Api*> Get() {
    if (const Api* api = ForTesting()) return api;
    const absl::StatusOr<Api>& loaded = Loaded();
    if (!loaded.ok()) return loaded.status();
    return &*loaded;
  }

  // The loader's result, ignoring the testing table (for callers that
  // reword the error).
  const absl::StatusOr<Api>& Loaded() {
    std::call_once(once_, [this] { loaded_ = new absl::StatusOr<Api>(load_()); });
    return *loaded_;
  }

  // Makes Get() return `api` (not owned; must outlive its users); nullptr
  // restores the loaded table.
  void SetForTesting(const Api* api) { testing_.store(api); }
  // The table SetForTesting installed, or nullptr.
  const Api* ForTesting() const { return testing_.load(); }

 private:
  Loader load_;
  std::once_flag once_;
  const absl::StatusOr<Api>* loaded_ = nullptr;  // set once, under once_
  std::atomic<const Api*> testing_{nullptr};
};

}  // namespace stream_executor::cuda

#endif  // XLA_STREAM_EXECUTOR_CUDA_DSO_LOADER_H_
