#include "xla/stream_executor/cuda/dso_loader.h"

#include <dlfcn.h>

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stream_executor::cuda {

std::vector<std::string> LibraryPaths(const std::vector<std::string>& candidates,
                                      const char* env_override) {
  const char* override_path =
      env_override != nullptr ? std::getenv(env_override) : nullptr;
  if (override_path != nullptr && override_path[0] != '\0') return {override_path};
  return candidates;
}

absl::StatusOr<OpenedLibrary> OpenFirst(const std::vector<std::string>& paths,
                                        SymbolScope scope) {
  const int flags = RTLD_NOW | (scope == SymbolScope::kGlobal ? RTLD_GLOBAL : RTLD_LOCAL);
  std::string last_error = "no candidate";
  for (const std::string& path : paths) {
    if (void* handle = dlopen(path.c_str(), flags)) {
      return OpenedLibrary{handle, path};
    }
    const char* reason = dlerror();
    last_error = reason != nullptr ? reason : "unknown reason";
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "cannot dlopen ", absl::StrJoin(paths, ", "), " (", last_error, ")"));
}

absl::StatusOr<OpenedLibrary> OpenLibrary(
    absl::string_view what, const std::vector<std::string>& candidates,
    const char* env_override, absl::string_view advice, SymbolScope scope) {
  absl::StatusOr<OpenedLibrary> library =
      OpenFirst(LibraryPaths(candidates, env_override), scope);
  if (library.ok()) return library;
  return absl::FailedPreconditionError(absl::StrCat(
      what, " not found: ", library.status().message(), "; ", advice));
}

absl::StatusOr<void*> LookupSymbol(const OpenedLibrary& library,
                                   const char* symbol, absl::string_view advice) {
  void* address = dlsym(library.handle, symbol);
  if (address == nullptr) {
    return SymbolResolver::DefaultMissingSymbolError(library, symbol, advice);
  }
  return address;
}

SymbolResolver::SymbolResolver(const OpenedLibrary& library,
                               absl::string_view advice,
                               MissingSymbolError missing)
    : library_(library), advice_(advice), missing_(missing) {}

absl::Status SymbolResolver::DefaultMissingSymbolError(
    const OpenedLibrary& library, const char* symbol, absl::string_view advice) {
  return absl::FailedPreconditionError(
      absl::StrCat(library.path, " has no symbol '", symbol, "'; ", advice));
}

void* SymbolResolver::Find(const char* symbol) const {
  return dlsym(library_.handle, symbol);
}

}  // namespace stream_executor::cuda
