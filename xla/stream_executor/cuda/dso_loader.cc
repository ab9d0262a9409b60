#include "xla/stream_executor/cuda/dso_loader.h"

#include <dlfcn.h>

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace stream_executor::cuda {

absl::StatusOr<OpenedLibrary> OpenLibrary(
    absl::string_view what, const std::vector<std::string>& candidates,
    const char* env_override, absl::string_view advice, SymbolScope scope) {
  std::vector<std::string> tried = candidates;
  const char* override_path =
      env_override != nullptr ? std::getenv(env_override) : nullptr;
  if (override_path != nullptr && override_path[0] != '\0') {
    tried = {override_path};
  }
  const int flags = RTLD_NOW | (scope == SymbolScope::kGlobal ? RTLD_GLOBAL : RTLD_LOCAL);
  std::string last_error = "no candidate";
  for (const std::string& path : tried) {
    if (void* handle = dlopen(path.c_str(), flags)) {
      return OpenedLibrary{handle, path};
    }
    const char* reason = dlerror();
    last_error = reason != nullptr ? reason : "unknown reason";
  }
  return absl::FailedPreconditionError(
      absl::StrCat(what, " not found: cannot dlopen ",
                   absl::StrJoin(tried, ", "), " (", last_error, "); ", advice));
}

absl::StatusOr<void*> LookupSymbol(const OpenedLibrary& library,
                                   const char* symbol, absl::string_view advice) {
  void* address = dlsym(library.handle, symbol);
  if (address == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        library.path, " has no symbol '", symbol, "'; ", advice));
  }
  return address;
}

}  // namespace stream_executor::cuda
